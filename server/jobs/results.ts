import type { Transaction } from 'kysely'
import type { AppConfig } from '../config.js'
import type { DB } from '../db/schema.js'
import { storeResultFile } from '../resources/jobResultFile.js'
import { storageFor } from '../storage/index.js'

// The record of why a job failed: a JobResultFile `error.txt` whose notes hold
// the reason in one line, written in the transaction that ends the job in Error.

export async function recordFailure(trx: Transaction<DB>, config: AppConfig, jobId: number, reason: string): Promise<void> {
  const line = oneLine(reason)
  await storeResultFile(trx, storageFor(config), jobId, 'error.txt', `${line}\n`, line)
}

export function oneLine(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim()
  return (line || 'The job failed.').slice(0, 1000)
}
