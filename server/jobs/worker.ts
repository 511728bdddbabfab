import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'
import type { Kysely, Transaction } from 'kysely'
import type { Caller } from '../access.js'
import type { AppConfig } from '../config.js'
import { openStorage, type Storage } from '../storage/index.js'
import type { DB } from '../db/schema.js'
import { isConnectionLost } from '../db/connectionLost.js'
import { named } from '../named.js'
import type { JobRow } from '../analysis/jobType.js'
import { checkParameters } from '../analysis/parameters.js'
import { recordFailure } from '../analysis/results.js'
import {
  claimNext,
  ERROR,
  lockAncestors,
  requeue,
  markComplete,
  markError,
  markStopped,
  markWaiting,
  QUEUED,
  refreshParent,
  renewLease,
  RUNNING,
  STOPPED,
} from '../analysis/state.js'
import { jobTypes } from '../analysis/types/index.js'
import { waitingFor } from '../analysis/waiting.js'
import type { Learned } from '../analysis/examples.js'
import type { ExecutionProvider } from '../analysis/models/onnx.js'
import { SharedWork } from '../analysis/sharedWork.js'
import { analysisThreads, type Analysis } from '../analysis/threads.js'
import { HEARTBEAT_SECONDS, removeHeartbeat, renewHeartbeat } from './heartbeat.js'
import { LeaseLost, Running } from './running.js'

// A worker runs queued jobs: each of its `concurrency` slots claims one job at
// a time (SELECT ... FOR UPDATE SKIP LOCKED, so workers sharing a database
// never take the same job), holds it by renewing a lease, and ends it in
// Complete, Error or Stopped. A worker that dies leaves its jobs to be taken
// over once their lease runs out; every write of a job is conditional on the
// worker still holding it, so the work is never done twice. While it runs, a
// worker renews its heartbeat row (./heartbeat.ts), so /healthz can count it.

export interface WorkerOptions {
  db: Kysely<DB>
  config: AppConfig
  /** where media and result files live; default: a storage of its own from `config` */
  storage?: Storage
  concurrency?: number
  /** how long an idle slot waits before looking for work again */
  pollMs?: number
  /** threads audio is analysed on (0, the default: the worker's own thread) */
  threads?: number
  /** where models run (default: cpu) */
  executionProvider?: ExecutionProvider
  /** this worker's name in `worker_id` (default: host, process and a random part) */
  id?: string
  log?: (message: string) => void
  /** how often the worker's heartbeat row is renewed (default HEARTBEAT_SECONDS) */
  heartbeatMs?: number
}

/** how often a worker that lost the database tries again to give its job back */
const REQUEUE_RETRY_MS = 500

class Stop extends Error {}
class ShuttingDown extends Error {}
/** A parameter was removed after the job was claimed: it waits again in the queue, never fails for it. */
class Waiting extends Error {
  constructor(readonly missing: string[]) {
    super(`waiting for ${missing.join(', ')}`)
  }
}

export class Worker {
  readonly id: string
  private readonly db: Kysely<DB>
  private readonly config: AppConfig
  private readonly storage: Storage
  private readonly analysis: Analysis
  private readonly executionProvider: ExecutionProvider
  /** detectors learned here: a worker's, since job and tag set ids are only unique within its database */
  private readonly learned = new SharedWork<Learned>(8)
  private readonly concurrency: number
  private readonly pollMs: number
  private readonly log: (message: string) => void
  private readonly heartbeatMs: number
  private stopping = new AbortController()
  /** jobs this worker gave back to the queue because it was stopping */
  private readonly givenBack: number[] = []
  private slots: Promise<void>[] = []
  private alive?: Promise<void>

  constructor(opts: WorkerOptions) {
    this.db = opts.db
    this.config = opts.config
    this.storage = opts.storage ?? openStorage(opts.config)
    this.analysis = analysisThreads(opts.threads ?? 0)
    this.executionProvider = opts.executionProvider ?? 'cpu'
    this.concurrency = Math.max(1, opts.concurrency ?? 1)
    this.pollMs = opts.pollMs ?? 500
    this.id = opts.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`
    this.log = opts.log ?? (() => {})
    this.heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_SECONDS * 1000
  }

  start(): this {
    this.alive = this.beat()
    for (let i = 0; i < this.concurrency; i++) this.slots.push(this.slot())
    return this
  }

  /** Stop taking jobs and wait for the slots: a job in progress is interrupted and goes back to the queue, keeping its
   * progress. Answers the ids of those jobs. */
  async stop(): Promise<number[]> {
    this.stopping.abort()
    await Promise.all([...this.slots, this.alive])
    await this.analysis.close()
    return [...this.givenBack]
  }

  /** The worker's heartbeat row, renewed until it stops, then removed. */
  private async beat(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      try {
        await renewHeartbeat(this.db, this.id)
      } catch (e) {
        this.log(`worker heartbeat failed: ${(e as Error).message}`)
      }
      await delay(this.heartbeatMs, undefined, { signal: this.stopping.signal }).catch(() => {})
    }
    await removeHeartbeat(this.db, this.id).catch((e) =>
      this.log(`worker heartbeat not removed: ${(e as Error).message}`),
    )
  }

  private async slot(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      let job: JobRow | null = null
      try {
        job = await claimNext(this.db, this.id, this.config.jobLeaseSeconds)
        if (job) await this.execute(job)
        else await this.finishWaitingParents()
      } catch (e) {
        this.log(`worker error: ${(e as Error).message}`)
      }
      if (!job) await delay(this.pollMs, undefined, { signal: this.stopping.signal }).catch(() => {})
    }
  }

  /** Run one claimed job to its end state. Exposed for tests that drive a worker step by step. */
  async execute(job: JobRow): Promise<void> {
    const control = new AbortController()
    const onShutdown = () => control.abort(new ShuttingDown())
    this.stopping.signal.addEventListener('abort', onShutdown)
    const heartbeat = this.heartbeat(job.id, control)
    try {
      this.log(`job ${job.id}: running`)
      if (job.requested_status_id === STOPPED) throw new Stop()
      const type = jobTypes.get(job.type_id)
      if (!type)
        throw new Error(`Job type ${await this.typeName(job.type_id)} (${job.type_id}) cannot be run by this worker.`)
      const owner = await this.ownerOf(job)
      const given = Object.fromEntries(
        (
          await this.db
            .selectFrom('job_parameters')
            .select(['name', 'value'])
            .where('job_id', '=', job.id)
            .orderBy('id')
            .execute()
        ).map((p) => [p.name, p.value]),
      )
      const missing = waitingFor(job.type_id, job.project_id, Object.keys(given))
      if (missing.length) throw new Waiting(missing)
      const { values, errors } = await checkParameters(this.db, owner, this.config, type, given)
      const bad = Object.entries(errors)[0]
      if (bad) throw new Error(`Parameter ${bad[0]}: ${bad[1][0]}`)
      const running = new Running(
        this.db,
        job,
        values,
        owner,
        this.config,
        this.storage,
        this.analysis,
        this.executionProvider,
        this.learned,
        control.signal,
        this.id,
      )
      await type.run(running)
      control.signal.throwIfAborted()
      if (running.waiting) {
        await this.family(job, async (trx) => {
          if (await markWaiting(trx, job.id, this.id)) await this.settleParent(trx, job.id)
        })
        this.log(`job ${job.id}: waiting for its children`)
      } else {
        await this.family(job, async (trx) => {
          if (await markComplete(trx, job.id, this.id)) await this.afterEnd(trx, job)
        })
        this.log(`job ${job.id}: complete`)
      }
    } catch (e) {
      const reason = control.signal.aborted ? control.signal.reason : e
      if (reason instanceof ShuttingDown || reason instanceof Waiting) {
        await requeue(this.db, job.id, this.id)
        if (reason instanceof ShuttingDown) this.givenBack.push(job.id)
        this.log(`job ${job.id}: back in the queue (${reason instanceof Waiting ? reason.message : 'worker stopping'})`)
      } else if (reason instanceof LeaseLost) {
        this.log(`job ${job.id}: ${reason.message}`)
      } else if (isConnectionLost(reason)) {
        // the database went away, not the job: it goes back to the queue with its progress (docs/decisions.md §16)
        this.log(`job ${job.id}: lost the database (${(reason as Error).message}); putting it back in the queue`)
        await this.requeueWhileLeased(job.id)
      } else if (reason instanceof Stop) {
        await this.family(job, async (trx) => {
          if (await markStopped(trx, job.id, this.id)) await this.afterEnd(trx, job)
        })
        this.log(`job ${job.id}: stopped`)
      } else {
        const message = (reason as Error)?.message ?? String(reason)
        await this.fail(job, message)
        this.log(`job ${job.id}: error: ${message}`)
      }
    } finally {
      this.stopping.signal.removeEventListener('abort', onShutdown)
      control.abort()
      await heartbeat
    }
  }

  /** Give the job back to the queue, trying again while this worker's lease on it lasts; should the database
   * stay away longer, the lease runs out and any worker takes the job over (claimNext). */
  private async requeueWhileLeased(id: number): Promise<void> {
    const until = Date.now() + this.config.jobLeaseSeconds * 1000
    for (;;) {
      try {
        await requeue(this.db, id, this.id)
        this.log(`job ${id}: back in the queue`)
        return
      } catch (e) {
        if (!isConnectionLost(e) || Date.now() + REQUEUE_RETRY_MS > until) {
          this.log(
            `job ${id}: could not put it back in the queue (${(e as Error).message}); it is taken over when its lease runs out`,
          )
          return
        }
        await delay(REQUEUE_RETRY_MS)
      }
    }
  }

  /** A transaction that changes `job` and perhaps its parents, with the parents locked first. */
  private family(job: JobRow, work: (trx: Transaction<DB>) => Promise<void>): Promise<void> {
    return this.db.transaction().execute(async (trx) => {
      await lockAncestors(trx, job.parent_job_id)
      await work(trx)
    })
  }

  private async fail(job: JobRow, message: string) {
    await this.family(job, async (trx) => {
      if (!(await markError(trx, job.id, this.id))) return
      await recordFailure(trx, this.storage, job.id, message)
      await this.afterEnd(trx, job)
    })
  }

  /** Renew the lease while the job runs; abort it when a stop is asked for or the job was taken over. */
  private async heartbeat(id: number, control: AbortController): Promise<void> {
    const every = Math.min(1000, (this.config.jobLeaseSeconds * 1000) / 3)
    while (!control.signal.aborted) {
      await delay(every, undefined, { signal: control.signal }).catch(() => {})
      if (control.signal.aborted) return
      try {
        const held = await renewLease(this.db, id, this.id, this.config.jobLeaseSeconds)
        if (!held) control.abort(new LeaseLost('taken over by another worker'))
        else if (held.requested === STOPPED) control.abort(new Stop())
      } catch (e) {
        this.log(`job ${id}: lease renewal failed: ${(e as Error).message}`)
      }
    }
  }

  /** After a job ended: its parent's progress (and end, when this was the last child). */
  private async afterEnd(trx: Transaction<DB>, job: JobRow) {
    if (job.parent_job_id !== null) await this.settleParent(trx, job.parent_job_id)
  }

  private async settleParent(trx: Transaction<DB>, parentId: number) {
    const outcome = await refreshParent(trx, parentId)
    if (outcome?.status === ERROR && outcome.failedChild)
      await recordFailure(
        trx,
        this.storage,
        parentId,
        `Child ${named('job', outcome.failedChild.id, outcome.failedChild.name)} failed.`,
      )
    const parent = await trx.selectFrom('jobs').select('parent_job_id').where('id', '=', parentId).executeTakeFirst()
    if (outcome && parent?.parent_job_id) await this.settleParent(trx, parent.parent_job_id)
  }

  /** Parents waiting for children that ended while nobody was looking (a worker died between the two). */
  private async finishWaitingParents() {
    const waiting = await this.db
      .selectFrom('jobs as p')
      .select(['p.id', 'p.parent_job_id'])
      .where('p.status_id', '=', RUNNING)
      .where('p.worker_id', 'is', null)
      .where(({ exists, selectFrom }) =>
        exists(selectFrom('jobs as c').select('c.id').whereRef('c.parent_job_id', '=', 'p.id')),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('jobs as c')
              .select('c.id')
              .whereRef('c.parent_job_id', '=', 'p.id')
              .where('c.status_id', 'in', [QUEUED, RUNNING]),
          ),
        ),
      )
      .limit(10)
      .execute()
    for (const p of waiting) {
      await this.db.transaction().execute(async (trx) => {
        await lockAncestors(trx, p.parent_job_id)
        await this.settleParent(trx, p.id)
      })
    }
  }

  private async ownerOf(job: JobRow): Promise<Caller> {
    const u = await this.db
      .selectFrom('users')
      .select(['id', 'username', 'is_admin', 'is_active'])
      .where('id', '=', job.user_id)
      .executeTakeFirst()
    if (!u || !u.is_active) throw new Error("The job's owner is no longer an active user.")
    return { id: u.id, username: u.username, isAdmin: u.is_admin }
  }

  private async typeName(id: number): Promise<string> {
    const t = await this.db.selectFrom('job_types').select('name').where('id', '=', id).executeTakeFirst()
    return t?.name ?? 'unknown'
  }
}
