import type { Kysely } from 'kysely'
import type { DB, Row } from '../db/schema.js'
import { localTimestamp } from '../db/time.js'
import { newStoredName, type Pending, type Storage } from '../storage/index.js'
import { metaDataRows, readFacts } from './facts.js'
import { queueSpeechScan } from './speechPolicy.js'
import { startTimeOf, type StartTimeSource } from './startTime.js'

// Importing media into a library (docs/decisions.md §7): received bytes become a media file with
// their audio facts as metadata, stored once per library. Used by the import endpoint
// (server/resources/mediaImport.ts) and by server-side import jobs (server/analysis/types/).

/** An import whose alias another media file of the library holds, with other bytes (aliases are paths:
 * two different recordings never share one). */
export class AliasTakenError extends Error {
  constructor(
    readonly alias: string,
    readonly holder: number,
  ) {
    super(`another media file of this library (id ${holder}) has the alias ${alias}, with other bytes`)
  }
}

/** A damaged file imported with `strict`. */
export class DamagedMediaError extends Error {}

// ---- queries ----

/** The first media file of `library` holding bytes with this md5 (and size, when known). */
async function mediaFileWithBytes(db: Kysely<DB>, library: number, md5: string, size?: number) {
  let q = db.selectFrom('media_files').selectAll().where('library_id', '=', library).where('md5', '=', md5)
  if (size !== undefined) q = q.where((eb) => eb.or([eb('size', '=', String(size)), eb('size', 'is', null)]))
  return q.orderBy('id').limit(1).executeTakeFirst()
}

interface NewMediaFile {
  library: number
  user: number
  file: string
  type: number
  alias: string
  uniqueAlias: boolean
  sensor: number | null
  realStartTime: string | null
  md5: string
  size: number
  metaData: Array<{ name: string; value: string }>
}

/**
 * Insert the media file and its metadata, unless the library gained the same bytes meanwhile.
 * The library row is locked so that concurrent imports of one file into one library store it once.
 * `store` puts the bytes in place before the transaction commits, so that no crash can leave a
 * row without its file (at worst a file without a row, which nothing refers to).
 */
async function insertMediaFile(
  db: Kysely<DB>,
  m: NewMediaFile,
  store: () => Promise<void>,
): Promise<{ row: Row<'media_files'>; created: boolean }> {
  return db.transaction().execute(async (trx) => {
    const library = await trx
      .selectFrom('libraries')
      .select('speech_policy')
      .where('id', '=', m.library)
      .forUpdate()
      .executeTakeFirst()
    const existing = await mediaFileWithBytes(trx, m.library, m.md5, m.size)
    if (existing) return { row: existing, created: false }
    if (m.uniqueAlias && m.alias !== '') {
      const holder = await trx
        .selectFrom('media_files')
        .select('id')
        .where('library_id', '=', m.library)
        .where('alias', '=', m.alias)
        .orderBy('id')
        .limit(1)
        .executeTakeFirst()
      if (holder) throw new AliasTakenError(m.alias, holder.id)
    }
    const row = await trx
      .insertInto('media_files')
      .values({
        file: m.file,
        user_id: m.user,
        type_id: m.type,
        active: true,
        alias: m.alias,
        upload_date: localTimestamp(),
        has_transcript: false,
        sensor_id: m.sensor,
        library_id: m.library,
        real_start_time: m.realStartTime,
        md5: m.md5,
        size: m.size,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    await trx
      .insertInto('media_file_metadata')
      .values(m.metaData.map((d) => ({ media_file_id: row.id, name: d.name, value: d.value, user_editable: false })))
      .execute()
    // a library that keeps speech from its readers has each new file checked (docs/decisions.md, "Speech policy")
    if (library && library.speech_policy !== 'keep') await queueSpeechScan(trx, m.library)
    await store()
    return { row, created: true }
  })
}

/**
 * Import received bytes into a library: the media file already holding the same bytes there
 * (created false, nothing stored twice), or a new one with its audio facts as metadata.
 * Throws NotMediaError for bytes that are no readable media, AliasTakenError when `uniqueAlias` (an alias
 * given as a path, not taken from an upload's file name) and another file of the library has it, DamagedMediaError for a damaged file with `strict`. Shared by the import
 * endpoint and server-side import jobs.
 * `realStartTime`, when given (null included), is stored as it is; otherwise it comes from `startTimeFrom`
 * (default: the file's metadata, then the alias's file name), moved by `timeOffset` minutes.
 */
export async function importReceived(
  db: Kysely<DB>,
  file: Pending,
  opts: {
    library: number
    user: number
    alias: string
    uniqueAlias: boolean
    sensor?: number | null
    realStartTime?: string | null
    startTimeFrom?: StartTimeSource
    timeOffset?: number
    strict?: boolean
  },
): Promise<{ row: Row<'media_files'>; created: boolean }> {
  // duplicates are found inside the insert's transaction (under the library's lock), so no query before it
  const facts = await readFacts(file)
  if (opts.strict && facts.warnings.length) throw new DamagedMediaError(facts.warnings.join('; '))
  const realStartTime =
    opts.realStartTime !== undefined
      ? opts.realStartTime
      : startTimeOf(opts.startTimeFrom ?? 'metadata', facts.recorderStartTime, opts.alias, opts.timeOffset)
  const name = newStoredName(libraryFolder(opts.library), { ext: facts.ext })
  const { row, created } = await insertMediaFile(
    db,
    {
      library: opts.library,
      user: opts.user,
      file: name,
      type: facts.type,
      alias: opts.alias,
      uniqueAlias: opts.uniqueAlias,
      sensor: opts.sensor ?? null,
      realStartTime,
      md5: file.md5,
      size: file.size,
      metaData: metaDataRows(facts, file.size),
    },
    () => file.commit(name),
  )
  if (!created) await file.discard()
  return { row, created }
}

/** the folder of a library's stored media files */
const libraryFolder = (library: number) => `mediaFiles/${library}`

/**
 * Remove stored media files that no MediaFile names: a process killed after moving an import's file
 * into place and before its transaction committed leaves one. Each library's files are checked under
 * the library's row lock, which every import into it holds from before the move until its commit, so
 * a file that another server is importing right now is never taken for one. Answers how many went.
 */
export async function sweepUncommittedMedia(db: Kysely<DB>, storage: Storage): Promise<number> {
  let removed = 0
  for (const { id } of await db.selectFrom('libraries').select('id').orderBy('id').execute()) {
    const names = await storage.list(libraryFolder(id))
    if (!names.length) continue
    const orphans = await db.transaction().execute(async (trx) => {
      await trx.selectFrom('libraries').select('id').where('id', '=', id).forUpdate().execute()
      const known = new Set<string>()
      for (let i = 0; i < names.length; i += 1000) {
        const rows = await trx
          .selectFrom('media_files')
          .select('file')
          .where('file', 'in', names.slice(i, i + 1000))
          .execute()
        for (const r of rows) known.add(r.file)
      }
      return names.filter((n) => !known.has(n))
    })
    for (const name of orphans) await storage.remove(name)
    removed += orphans.length
  }
  return removed
}
