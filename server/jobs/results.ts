import { Readable } from 'node:stream'
import type { Kysely } from 'kysely'
import type { AppConfig } from '../config.js'
import type { DB } from '../db/schema.js'
import { localTimestamp } from '../db/time.js'
import { storageFor } from '../storage/index.js'

// The record of why a job failed: a JobResultFile `error.txt` whose notes hold
// the reason in one line. A job that fails again replaces its earlier one.

export async function recordFailure(db: Kysely<DB>, config: AppConfig, jobId: number, reason: string): Promise<void> {
  const line = oneLine(reason)
  const storage = storageFor(config)
  const name = `job-results/${jobId}/error.txt`
  const pending = await storage.receive(Readable.from([Buffer.from(`${line}\n`)]))
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('job_result_files').where('job_id', '=', jobId).where('result_file', '=', name).execute()
    await trx.insertInto('job_result_files')
      .values({ job_id: jobId, creation_date: localTimestamp(), result_file: name, notes: line }).execute()
  })
  await pending.commit(name)
}

export function oneLine(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim()
  return (line || 'The job failed.').slice(0, 1000)
}
