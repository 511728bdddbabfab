import { extname } from 'node:path'
import type { Kysely } from 'kysely'
import type { Caller } from '../access.js'
import type { DB } from '../db/schema.js'
import { readWhole, safeExtension, safeStem, type Storage } from '../storage/index.js'
import { RESULT_FOLDER } from './resultFiles.js'

// A list of a model's labels (ModelInference's `species`): given in the parameter, separated by ;, or as the name
// of a text file of labels, one a line, as BirdNET's species lists are written, uploaded as a result file of one
// of the job owner's jobs (`mas job result upload JOB ohio-may.txt`). The newest such upload of that name counts,
// so a list corrected and uploaded again is the one used (docs/decisions.md, "Models").

/** A value naming a file of labels rather than listing them: one name ending in .txt, no ;. */
export function namesLabelsFile(value: string): boolean {
  const v = value.trim()
  return !v.includes(';') && /\.txt$/i.test(v)
}

/** The stored name of the owner's newest result file uploaded as `fileName`, or undefined. */
export async function labelsFileOf(db: Kysely<DB>, owner: Caller, fileName: string): Promise<string | undefined> {
  const base = fileName.trim()
  const ext = safeExtension(extname(base))
  const stem = safeStem(base.slice(0, base.length - extname(base).length))
  if (!stem || !ext) return undefined
  // stored as folder/<stem>_<24 hex digits>.<ext> (newStoredName); the pattern's _ are literal
  const prefix = `${RESULT_FOLDER}/${stem}_`.replace(/[\\%_]/g, (c) => `\\${c}`)
  const stored = new RegExp(`^${RESULT_FOLDER}/${stem}_[0-9a-f]{24}\\.${ext}$`)
  const rows = await db
    .selectFrom('job_result_files as f')
    .innerJoin('jobs as j', 'j.id', 'f.job_id')
    .select(['f.id', 'f.result_file'])
    .where('j.user_id', '=', owner.id)
    .where('f.result_file', 'like', `${prefix}%`)
    .orderBy('f.id', 'desc')
    .execute()
  return rows.find((r) => stored.test(r.result_file))?.result_file
}

/** The labels of a parameter value: those listed, separated by ;, or those of the file it names (read from storage). */
export async function labelsOf(db: Kysely<DB>, storage: Storage, owner: Caller, value: string): Promise<string[]> {
  if (!namesLabelsFile(value))
    return value
      .split(';')
      .map((l) => l.trim())
      .filter((l) => l !== '')
  const stored = await labelsFileOf(db, owner, value)
  if (!stored)
    throw new Error(
      `No result file of yours named ${value.trim()}: upload the list with mas job result upload JOB ${value.trim()}.`,
    )
  const text = (await readWhole(storage, stored)).toString('utf8').replace(/^\uFEFF/, '')
  // one label a line; blank lines and # comments are passed over
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
}
