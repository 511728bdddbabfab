import { extname } from 'node:path'
import { Readable } from 'node:stream'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.js'
import { localTimestamp } from '../db/time.js'
import { newStoredName, type Pending, type Storage } from '../storage/index.js'

// Result files of jobs: the bytes in storage under a safe name, and the JobResultFile row that
// names them, written together (docs/architecture.md, Storage). Used by the worker's job types
// and by the jobResultFile/ resource's multipart create.

export const RESULT_FOLDER = 'jobResultFiles'

/** A stored name for a result file called `fileName` by its producer: a sanitised stem and extension, never a path. */
export function resultName(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? ''
  const ext = extname(base)
  return newStoredName(RESULT_FOLDER, { stem: ext ? base.slice(0, -ext.length) : base, ext })
}

/**
 * Insert the row naming `name` and move the bytes into place before its transaction commits, as media
 * import does: a crash can leave at worst a file without a row, never a row without its file.
 */
export async function insertWithFile(
  db: Kysely<DB>,
  pending: Pending,
  name: string,
  values: { job: number; notes: string; creationDate?: string },
) {
  const write = async (trx: Kysely<DB>) => {
    const row = await trx
      .insertInto('job_result_files')
      .values({
        job_id: values.job,
        creation_date: values.creationDate ?? localTimestamp(),
        result_file: name,
        notes: values.notes,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    await pending.commit(name)
    return row
  }
  // a worker writes its results inside the transaction that records the job's step
  return db.isTransaction ? write(db) : db.transaction().execute(write)
}

/**
 * Store a file a job produced as a JobResultFile of `jobId` (for workers). `content` streams into storage;
 * the stored name keeps a sanitised form of `fileName`. Returns the new row.
 */
export async function storeResultFile(
  db: Kysely<DB>,
  storage: Storage,
  jobId: number,
  fileName: string,
  content: Readable | AsyncIterable<Buffer> | Buffer | string,
  notes = '',
) {
  const source =
    typeof content === 'string' || Buffer.isBuffer(content) ? Readable.from([Buffer.from(content)]) : content
  const pending = await storage.receive(source)
  try {
    return await insertWithFile(db, pending, resultName(fileName), { job: jobId, notes })
  } finally {
    await pending.discard()
  }
}
