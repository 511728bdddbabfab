import { sql, type Kysely, type Transaction } from 'kysely'
import type { DB } from '../db/schema.js'
import { localTimestamp } from '../db/time.js'
import type { JobRow } from './jobType.js'
import { waitsForNothing } from './waiting.js'

// The job state machine, as SQL: Queued(2) -> Running(3) -> Complete(6) |
// Error(4) | Stopped(5). Clients ask through `requestedStatus` (5 stop, 2
// re-queue); what can be applied at once is applied when they ask, a running
// job is stopped by the worker holding it. Every change also keeps the
// booleans and `lastStatusDate` true.

type Db = Kysely<DB> | Transaction<DB>

export const QUEUED = 2
export const RUNNING = 3
export const ERROR = 4
export const STOPPED = 5
export const COMPLETE = 6
const TERMINAL = [ERROR, STOPPED, COMPLETE]

const released = { worker_id: null, lease_expires: null, requested_status_id: null, is_running: false } as const

/** Apply a client's requestedStatus to the job `id`, as far as it can be applied without a worker. */
export async function applyRequestedStatus(trx: Transaction<DB>, id: number): Promise<void> {
  const job = await trx.selectFrom('jobs').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
  if (!job || job.requested_status_id === null) return
  const want = job.requested_status_id
  const now = localTimestamp()
  if (want === STOPPED && job.status_id === QUEUED) {
    await markStopped(trx, id)
  } else if (want === STOPPED && job.status_id === RUNNING && job.worker_id === null && (await hasChildren(trx, id))) {
    await stopFamily(trx, id)
  } else if (want === QUEUED && (job.status_id === STOPPED || job.status_id === ERROR)) {
    await trx
      .updateTable('jobs')
      .set({
        ...released,
        status_id: QUEUED,
        was_stopped: false,
        is_complete: false,
        time_to_completion: -1,
        last_status_date: now,
      })
      .where('id', '=', id)
      .execute()
  } else if (want === QUEUED) {
    // nothing to do (already queued or running, or complete): the request is answered
    await trx.updateTable('jobs').set({ requested_status_id: null }).where('id', '=', id).execute()
  }
  // a stop asked of a job that has ended stays asked, as the original keeps it: no worker claims an ended job,
  // and a later requestedStatus 2 replaces it
}

async function hasChildren(db: Db, id: number): Promise<boolean> {
  return !!(await db.selectFrom('jobs').select('id').where('parent_job_id', '=', id).limit(1).executeTakeFirst())
}

export async function markStopped(db: Db, id: number, holder?: string): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({
      ...released,
      status_id: STOPPED,
      was_stopped: true,
      time_to_completion: -1,
      last_status_date: localTimestamp(),
    })
    .where('id', '=', id)
    .$if(holder !== undefined, (q) => q.where('worker_id', '=', holder!))
    .executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

/**
 * Stop a parent waiting for its children: queued children stop now, running ones are asked to.
 * The parent ends (Stopped) with its last child; with none running it ends now.
 */
async function stopFamily(trx: Transaction<DB>, id: number): Promise<void> {
  const children = await trx
    .selectFrom('jobs')
    .select(['id', 'status_id', 'worker_id'])
    .where('parent_job_id', '=', id)
    .orderBy('id')
    .forUpdate()
    .execute()
  let running = 0
  for (const c of children) {
    if (c.status_id === QUEUED) await markStopped(trx, c.id)
    else if (c.status_id === RUNNING) {
      await trx.updateTable('jobs').set({ requested_status_id: STOPPED }).where('id', '=', c.id).execute()
      if (c.worker_id === null) await stopFamily(trx, c.id)
      const still = await trx.selectFrom('jobs').select('status_id').where('id', '=', c.id).executeTakeFirstOrThrow()
      if (still.status_id === RUNNING) running++
    }
  }
  if (running === 0) await markStopped(trx, id)
}

/** Take the next queued job that waits for nothing (waiting.ts), or one whose holder's lease ran out. */
export async function claimNext(db: Kysely<DB>, workerId: string, leaseSeconds: number): Promise<JobRow | null> {
  return db.transaction().execute(async (trx) => {
    const next = await trx
      .selectFrom('jobs')
      .select('id')
      .where((eb) =>
        eb.or([
          eb.and([eb('status_id', '=', QUEUED), waitsForNothing('jobs')]),
          eb.and([
            eb('status_id', '=', RUNNING),
            eb('worker_id', 'is not', null),
            eb('lease_expires', '<', sql<Date>`now()`),
          ]),
        ]),
      )
      .orderBy('priority', 'desc')
      .orderBy('id', 'asc')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst()
    if (!next) return null
    const now = localTimestamp()
    return (await trx
      .updateTable('jobs')
      .set({
        status_id: RUNNING,
        is_running: true,
        is_complete: false,
        was_stopped: false,
        worker_id: workerId,
        lease_expires: sql<Date>`now() + make_interval(secs => ${leaseSeconds})`,
        lease_renewed: sql<Date>`now()`,
        started_date: sql<string>`coalesce(started_date, ${now}::timestamp)`,
        last_status_date: now,
      })
      .where('id', '=', next.id)
      .returningAll()
      .executeTakeFirstOrThrow()) as JobRow
  })
}

/** Give a held job back to the queue (its worker is shutting down); its progress stays for the next run. */
export async function requeue(db: Db, id: number, holder: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      worker_id: null,
      lease_expires: null,
      is_running: false,
      status_id: QUEUED,
      last_status_date: localTimestamp(),
    })
    .where('id', '=', id)
    .where('worker_id', '=', holder)
    .execute()
}

/** Extend the lease; null when this worker no longer holds the job, else the requested status. */
export async function renewLease(
  db: Kysely<DB>,
  id: number,
  workerId: string,
  leaseSeconds: number,
): Promise<{ requested: number | null } | null> {
  const row = await db
    .updateTable('jobs')
    .set({ lease_expires: sql<Date>`now() + make_interval(secs => ${leaseSeconds})`, lease_renewed: sql<Date>`now()` })
    .where('id', '=', id)
    .where('worker_id', '=', workerId)
    .returning('requested_status_id')
    .executeTakeFirst()
  return row ? { requested: row.requested_status_id } : null
}

export async function markComplete(db: Db, id: number, holder: string): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({
      ...released,
      status_id: COMPLETE,
      is_complete: true,
      time_to_completion: 0,
      last_status_date: localTimestamp(),
      num_completed: sql<number>`num_to_complete`,
      fraction_completed: 1,
    })
    .where('id', '=', id)
    .where('worker_id', '=', holder)
    .executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

export async function markError(db: Db, id: number, holder?: string): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({
      ...released,
      status_id: ERROR,
      time_to_completion: -1,
      last_status_date: localTimestamp(),
    })
    .where('id', '=', id)
    .$if(holder !== undefined, (q) => q.where('worker_id', '=', holder!))
    .executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

/** A parent whose work is its children: running, held by nobody, until they end. */
export async function markWaiting(db: Db, id: number, holder: string): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ worker_id: null, lease_expires: null, last_status_date: localTimestamp() })
    .where('id', '=', id)
    .where('worker_id', '=', holder)
    .executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

/**
 * Lock a job's ancestors, oldest first, before the job itself is changed: every path that changes a
 * family of jobs (a stop request goes from a parent down to its children; a child's progress goes up)
 * then takes the locks in the same order, and none waits for another in a circle.
 */
export async function lockAncestors(trx: Transaction<DB>, parentId: number | null): Promise<void> {
  const chain: number[] = []
  for (let p = parentId; p !== null && !chain.includes(p);) {
    chain.push(p)
    p =
      (await trx.selectFrom('jobs').select('parent_job_id').where('id', '=', p).executeTakeFirst())?.parent_job_id ??
      null
  }
  for (const id of chain.sort((a, b) => a - b))
    await trx.selectFrom('jobs').select('id').where('id', '=', id).forUpdate().execute()
}

export interface ParentOutcome {
  status: number
  failedChild?: { id: number; name: string }
}

/**
 * A parent's progress is the sum of its children's. When every child has ended
 * the parent ends too: Complete when all completed, else Error (a child failed)
 * or Stopped. Returns the parent's new end state, if it just ended.
 */
export async function refreshParent(trx: Transaction<DB>, parentId: number): Promise<ParentOutcome | null> {
  const parent = await trx.selectFrom('jobs').selectAll().where('id', '=', parentId).forUpdate().executeTakeFirst()
  if (!parent || parent.status_id !== RUNNING || parent.worker_id !== null) return null
  const kids = await trx
    .selectFrom('jobs')
    .select(['id', 'name', 'status_id', 'num_to_complete', 'num_completed', 'elapsed_real_time'])
    .where('parent_job_id', '=', parentId)
    .orderBy('id')
    .execute()
  if (!kids.length) return null
  const total = kids.reduce((s, k) => s + k.num_to_complete, 0)
  const done = kids.reduce((s, k) => s + k.num_completed, 0)
  const elapsed = toMilliseconds(kids.reduce((s, k) => s + k.elapsed_real_time, 0))
  const fraction = total > 0 ? done / total : 0
  const ended = kids.every((k) => TERMINAL.includes(k.status_id))
  const progress = {
    num_to_complete: total,
    num_completed: done,
    fraction_completed: fraction,
    elapsed_real_time: elapsed,
    time_to_completion: done > 0 && total > done ? toMilliseconds((elapsed / done) * (total - done)) : ended ? 0 : -1,
    last_status_date: localTimestamp(),
  }
  if (!ended) {
    await trx.updateTable('jobs').set(progress).where('id', '=', parentId).execute()
    return null
  }
  const failed = kids.find((k) => k.status_id === ERROR)
  const status = failed ? ERROR : kids.some((k) => k.status_id === STOPPED) ? STOPPED : COMPLETE
  await trx
    .updateTable('jobs')
    .set({
      ...progress,
      ...released,
      status_id: status,
      is_complete: status === COMPLETE,
      was_stopped: status === STOPPED,
      time_to_completion: status === COMPLETE ? 0 : -1,
    })
    .where('id', '=', parentId)
    .execute()
  return { status, failedChild: failed && { id: failed.id, name: failed.name } }
}

/** Seconds of a job's progress to the millisecond, as they are measured: sums of them show no binary noise (0.972, not 0.9720000000000002). */
export const toMilliseconds = (seconds: number) => Math.round(seconds * 1000) / 1000

/** A job queued by the server itself (not through POST jobs/), with its parameters, in the caller's transaction;
 * answers its id. */
export async function insertQueuedJob(
  trx: Transaction<DB>,
  job: { name: string; user: number; type: number; parameters: Record<string, string> },
): Promise<number> {
  const row = await trx
    .insertInto('jobs')
    .values({
      name: job.name,
      user_id: job.user,
      project_id: null,
      type_id: job.type,
      creation_date: localTimestamp(),
      status_id: QUEUED,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const params = Object.entries(job.parameters).map(([name, value]) => ({ job_id: row.id, name, value }))
  if (params.length) await trx.insertInto('job_parameters').values(params).execute()
  return row.id
}
