import { setTimeout as delay } from 'node:timers/promises'
import type { Database } from '../../server/db/database.js'
import { localTimestamp } from '../../server/db/time.js'

// Projects and jobs written straight into the database, and a bounded wait for
// a worker to bring a job where a test expects it.

type Db = Database['db']
type Owner = { id: number }

let serial = 0

export async function makeProject(db: Db, owner: Owner, name = `project-${++serial}`): Promise<number> {
  const row = await db
    .insertInto('projects')
    .values({ name, type_id: 1, user_id: owner.id, creation_date: localTimestamp() })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function addToProject(db: Db, project: number, mediaFiles: number[]): Promise<void> {
  await db
    .insertInto('project_media_files')
    .values(mediaFiles.map((m) => ({ project_id: project, media_file_id: m })))
    .execute()
}

/** A job row of `type` in `project` with these parameters, Queued. */
export async function makeJob(
  db: Db,
  owner: Owner,
  project: number,
  type: number,
  parameters: Record<string, string> = {},
): Promise<number> {
  // one transaction, so that a running worker never sees the job without its parameters
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('jobs')
      .values({
        name: `job-${++serial}`,
        user_id: owner.id,
        project_id: project,
        type_id: type,
        creation_date: localTimestamp(),
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const params = Object.entries(parameters).map(([name, value]) => ({ job_id: row.id, name, value }))
    if (params.length) await trx.insertInto('job_parameters').values(params).execute()
    return row.id
  })
}

export async function jobRow(db: Db, id: number) {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

/** Poll until `check` returns a value (not undefined/false); fails after `seconds` (generous: this is no timing test). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, seconds = 30): Promise<T> {
  const until = Date.now() + seconds * 1000
  for (;;) {
    const v = await check()
    if (v !== undefined && v !== false) return v as T
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`)
    await delay(20)
  }
}

/** Wait until job `id` has status `status` (one of them), and return its row. */
export async function waitForStatus(db: Db, id: number, status: number | number[], seconds = 30) {
  const want = Array.isArray(status) ? status : [status]
  return waitFor(
    `job ${id} to reach status ${want.join('/')}`,
    async () => {
      const row = await jobRow(db, id)
      return want.includes(row.status_id) ? row : undefined
    },
    seconds,
  )
}
