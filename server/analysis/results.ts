import type { Transaction } from 'kysely'
import type { DB } from '../db/schema.js'
import { storeResultFile } from './resultFiles.js'
import type { Storage } from '../storage/index.js'
import type { RunningJob } from './jobType.js'

// The record of why a job failed: a JobResultFile `error.txt` whose notes hold
// the reason in one line, written in the transaction that ends the job in Error.

export async function recordFailure(
  trx: Transaction<DB>,
  storage: Storage,
  jobId: number,
  reason: string,
): Promise<void> {
  const line = oneLine(reason)
  await storeResultFile(trx, storage, jobId, 'error.txt', `${line}\n`, line)
}

/** A result file of a running job, written with the step that counts nothing, so only while the worker holds the job. */
export async function recordResult(job: RunningJob, fileName: string, content: string, notes: string): Promise<void> {
  await job.step(0, async (trx) => {
    await storeResultFile(trx, job.storage, job.job.id, fileName, content, oneLine(notes))
  })
}

export function oneLine(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim()
  return (line || 'The job failed.').slice(0, 1000)
}

/** A result file's CSV text: the header, then a row each, text quoted where it must be. */
export function csvText(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cell = (v: string | number) =>
    typeof v === 'string' && /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : String(v)
  return [header.join(','), ...rows.map((r) => r.map(cell).join(','))].join('\n') + '\n'
}
