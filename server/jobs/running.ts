import { setTimeout as delay } from 'node:timers/promises'
import type { Kysely, Transaction } from 'kysely'
import type { Caller } from '../access.js'
import type { AppConfig } from '../config.js'
import type { Storage } from '../storage/index.js'
import type { DB } from '../db/schema.js'
import { localTimestamp } from '../db/time.js'
import type { ChildJob, JobRow, ParamValues, RunningJob } from '../analysis/jobType.js'
import type { Learned } from '../analysis/examples.js'
import type { ExecutionProvider } from '../analysis/models/onnx.js'
import type { SharedWork } from '../analysis/sharedWork.js'
import type { Analysis } from '../analysis/threads.js'
import { ERROR, lockAncestors, QUEUED, refreshParent, STOPPED, toMilliseconds } from '../analysis/state.js'

// The job a worker hands to its type's run (./worker.ts): progress, children and stop checks, every write
// conditional on the worker still holding the job.

/** The worker no longer holds the job (its lease ran out and another worker took it over). */
export class LeaseLost extends Error {}

/** The running job handed to a job type: progress, children and stop checks, all tied to this worker's claim. */
export class Running implements RunningJob {
  waiting = false
  private done: number
  private total: number
  /** the progress shown before a restart: a job that redoes its work shows no less until it has done more */
  private shownBefore = 0
  private readonly startedAt = Date.now()
  private readonly elapsedBefore: number

  constructor(
    readonly db: Kysely<DB>,
    readonly job: JobRow,
    readonly params: ParamValues,
    readonly owner: Caller,
    readonly config: AppConfig,
    readonly storage: Storage,
    readonly analysis: Analysis,
    readonly executionProvider: ExecutionProvider,
    readonly learned: SharedWork<Learned>,
    readonly signal: AbortSignal,
    private readonly holder: string,
  ) {
    this.done = job.num_completed
    this.total = job.num_to_complete
    this.elapsedBefore = job.elapsed_real_time
  }

  async setTotal(n: number, restart = false): Promise<void> {
    this.total = n
    if (restart) {
      this.shownBefore = Math.min(this.done, n)
      this.done = 0
    }
    await this.step(0)
  }

  async step(n = 1, write?: (trx: Transaction<DB>) => Promise<void>): Promise<void> {
    this.signal.throwIfAborted()
    const done = this.done + n
    const shown = Math.max(done, this.shownBefore)
    const elapsed = toMilliseconds(this.elapsedBefore + (Date.now() - this.startedAt) / 1000)
    const held = await this.db.transaction().execute(async (trx) => {
      await lockAncestors(trx, this.job.parent_job_id)
      const r = await trx
        .updateTable('jobs')
        .set({
          num_completed: shown,
          num_to_complete: this.total,
          fraction_completed: this.total > 0 ? Math.min(1, shown / this.total) : 0,
          elapsed_real_time: elapsed,
          time_to_completion: shown > 0 ? toMilliseconds((elapsed / shown) * Math.max(0, this.total - shown)) : -1,
          last_status_date: localTimestamp(),
        })
        .where('id', '=', this.job.id)
        .where('worker_id', '=', this.holder)
        .returning('parent_job_id')
        .executeTakeFirst()
      if (!r) return false
      if (write) await write(trx)
      if (r.parent_job_id !== null) await refreshParent(trx, r.parent_job_id)
      return true
    })
    if (!held) throw new LeaseLost('taken over by another worker')
    this.done = done
  }

  async spawnChildren(children: ChildJob[]): Promise<void> {
    this.signal.throwIfAborted()
    await this.db.transaction().execute(async (trx) => {
      const mine = await trx
        .selectFrom('jobs')
        .select('id')
        .where('id', '=', this.job.id)
        .where('worker_id', '=', this.holder)
        .forUpdate()
        .executeTakeFirst()
      if (!mine) throw new LeaseLost('taken over by another worker')
      const existing = await trx
        .selectFrom('jobs')
        .select(['id', 'status_id'])
        .where('parent_job_id', '=', this.job.id)
        .execute()
      if (existing.length) {
        // resumed or re-queued: children that stopped or failed run again, finished ones stay
        const again = existing.filter((c) => c.status_id === STOPPED || c.status_id === ERROR).map((c) => c.id)
        if (again.length) {
          await trx
            .updateTable('jobs')
            .set({
              status_id: QUEUED,
              requested_status_id: null,
              was_stopped: false,
              is_running: false,
              last_status_date: localTimestamp(),
            })
            .where('id', 'in', again)
            .execute()
        }
      } else {
        const now = localTimestamp()
        // the parent's total is its children's, known before any of them runs (so its progress never falls)
        const total = children.reduce((sum, c) => sum + (c.numToComplete ?? 0), 0)
        await trx
          .updateTable('jobs')
          .set({ num_to_complete: total, num_completed: 0, fraction_completed: 0, time_to_completion: -1 })
          .where('id', '=', this.job.id)
          .execute()
        for (const c of children) {
          const row = await trx
            .insertInto('jobs')
            .values({
              name: c.name,
              user_id: this.job.user_id,
              project_id: this.job.project_id,
              type_id: c.typeId,
              creation_date: now,
              parent_job_id: this.job.id,
              priority: this.job.priority,
              status_id: QUEUED,
              num_to_complete: c.numToComplete ?? 0,
            })
            .returning('id')
            .executeTakeFirstOrThrow()
          const params = Object.entries(c.parameters).map(([name, value]) => ({ job_id: row.id, name, value }))
          if (params.length) await trx.insertInto('job_parameters').values(params).execute()
        }
      }
    })
    this.waiting = true
  }

  async sleep(ms: number): Promise<void> {
    await delay(ms, undefined, { signal: this.signal })
  }
}
