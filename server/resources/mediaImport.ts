import type { Kysely } from 'kysely'
import type { DB, Row } from '../db/schema.js'
import { localTimestamp } from '../db/time.js'
import type { Context, Endpoint, Result } from '../http/endpoint.js'
import { badRequest, MSG } from '../http/errors.js'
import { parseInput, type Fields } from '../http/fields.js'
import { metaDataRows, NotMediaError, readFacts } from '../media/facts.js'
import { MD5_MESSAGE, parseMd5 } from '../media/md5.js'
import { parseTimeOffset, START_TIME_SOURCES, startTimeOf, type StartTimeSource } from '../media/startTime.js'
import { receiveUpload } from '../media/upload.js'
import { newStoredName, storageFor, type Pending, type Storage } from '../storage/index.js'
import { libraries } from './library.js'
import { mediaFiles } from './mediaFile.js'
import { API, checkReferences, fetchFor, fetchRecord, render, type Db } from './resource.js'
import { sensors } from './sensor.js'

// Media import (docs/decisions.md §7): POST library/{Id}/mediaFiles/import/ streams one
// file into storage while hashing it, reads its audio facts, and answers 201
// with the new MediaFile, or 200 with the one already holding the same bytes
// in that library. POST library/{Id}/mediaFiles/check/ answers for a batch of
// checksums which are already there, so a re-run uploads only what is new.

const importFields: Fields = {
  file: { type: 'string', required: true, label: 'File', description: 'the media file (multipart file part)' },
  alias: {
    type: 'string', maxLength: 1024, allowBlank: true,
    description: 'the file\'s path relative to the root of the import (default: the uploaded file name); a given alias is unique in the library: another file holding it with other bytes makes the import a 400',
  },
  sensor: { type: 'pk', target: () => sensors, nullable: true },
  realStartTime: { type: 'datetime', nullable: true, label: 'RealStartTime' },
  md5: { type: 'string', allowBlank: true, label: 'Md5', description: 'md5 of the file; the upload is refused when the bytes differ' },
  startTimeFrom: {
    type: 'choice', choices: [...START_TIME_SOURCES], label: 'Start time from',
    description: 'where realStartTime comes from when it is not given: the recorder\'s metadata in the file, else the alias\'s file name (metadata, the default); the file name only (name); or nowhere (none)',
  },
  timeOffset: {
    type: 'string', allowBlank: true, label: 'Time offset',
    description: '±hh:mm added to a start time read from the file or its name, e.g. +02:00 to store UTC recordings (AudioMoth) in local time',
  },
  strict: { type: 'boolean', label: 'Strict', description: 'refuse a damaged (e.g. truncated) file instead of importing it with a warning metadata row' },
}
const valueFields: Fields = Object.fromEntries(Object.entries(importFields).filter(([n]) => n !== 'file'))

export const MAX_CHECK_ITEMS = 1000

/** An import whose alias another media file of the library holds, with other bytes (aliases are paths:
 * two different recordings never share one). */
export class AliasTakenError extends Error {
  constructor(readonly alias: string, readonly holder: number) {
    super(`another media file of this library (id ${holder}) has the alias ${alias}, with other bytes`)
  }
}

/** A damaged file imported with `strict`. */
export class DamagedMediaError extends Error {}

// ---- queries ----

/** The first media file of `library` holding bytes with this md5 (and size, when known). */
async function mediaFileWithBytes(db: Db, library: number, md5: string, size?: number) {
  let q = db.selectFrom('media_files').selectAll().where('library_id', '=', library).where('md5', '=', md5)
  if (size !== undefined) q = q.where((eb) => eb.or([eb('size', '=', String(size)), eb('size', 'is', null)]))
  return q.orderBy('id').limit(1).executeTakeFirst()
}

interface NewMediaFile {
  library: number; user: number; file: string; type: number; alias: string; uniqueAlias: boolean
  sensor: number | null; realStartTime: string | null; md5: string; size: number
  metaData: Array<{ name: string; value: string }>
}

/**
 * Insert the media file and its metadata, unless the library gained the same bytes meanwhile.
 * The library row is locked so that concurrent imports of one file into one library store it once.
 * `store` puts the bytes in place before the transaction commits, so that no crash can leave a
 * row without its file (at worst a file without a row, which nothing refers to).
 */
async function insertMediaFile(db: Kysely<DB>, m: NewMediaFile, store: () => Promise<void>): Promise<{ row: Row<'media_files'>; created: boolean }> {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('libraries').select('id').where('id', '=', m.library).forUpdate().execute()
    const existing = await mediaFileWithBytes(trx, m.library, m.md5, m.size)
    if (existing) return { row: existing, created: false }
    if (m.uniqueAlias && m.alias !== '') {
      const holder = await trx.selectFrom('media_files').select('id').where('library_id', '=', m.library).where('alias', '=', m.alias)
        .orderBy('id').limit(1).executeTakeFirst()
      if (holder) throw new AliasTakenError(m.alias, holder.id)
    }
    const row = await trx.insertInto('media_files').values({
      file: m.file, user_id: m.user, type_id: m.type, active: true, alias: m.alias, upload_date: localTimestamp(),
      has_transcript: false, sensor_id: m.sensor, library_id: m.library, real_start_time: m.realStartTime,
      md5: m.md5, size: m.size,
    }).returningAll().executeTakeFirstOrThrow()
    await trx.insertInto('media_file_metadata')
      .values(m.metaData.map((d) => ({ media_file_id: row.id, name: d.name, value: d.value, user_editable: false })))
      .execute()
    await store()
    return { row, created: true }
  })
}

// ---- import ----

async function importMediaFile(ctx: Context): Promise<Result> {
  const library = await fetchFor(ctx.db, libraries, ctx.caller, ctx.params.id, 'write')
  const storage = storageFor(ctx.config)
  const upload = await receiveUpload(ctx, storage, 'file')
  const pending = upload.file
  try {
    const values = await parseImportFields(ctx, upload.fields, pending)
    const file = pending!
    if (values.md5 && values.md5 !== file.md5) {
      throw badRequest({ md5: [`The received bytes have md5 ${file.md5}, not ${values.md5}; the upload was incomplete or changed.`] })
    }
    const { row, created } = await importReceived(ctx.db, file, {
      library: library.id, user: ctx.caller.id, alias: values.alias || upload.filename.slice(0, 1024), uniqueAlias: !!values.alias,
      sensor: values.sensor ?? null, realStartTime: values.realStartTime,
      startTimeFrom: values.startTimeFrom, timeOffset: values.timeOffset, strict: values.strict,
    }).catch((e) => {
      if (e instanceof NotMediaError) {
        throw badRequest({ file: [`Upload a valid media file. The file you uploaded is not a readable media file: ${e.message}.`] })
      }
      if (e instanceof DamagedMediaError) throw badRequest({ file: [`The file is damaged (${e.message}); it was not imported (strict).`] })
      if (e instanceof AliasTakenError) throw badRequest({ alias: [`A media file with this alias already exists in this library (id ${e.holder}) and holds other bytes.`] })
      throw e
    })
    return { status: created ? 201 : 200, body: (await render(ctx, mediaFiles, [row]))[0] }
  } finally {
    await pending?.discard()
  }
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
export async function importReceived(db: Kysely<DB>, file: Pending, opts: {
  library: number; user: number; alias: string; uniqueAlias: boolean; sensor?: number | null; realStartTime?: string | null
  startTimeFrom?: StartTimeSource; timeOffset?: number; strict?: boolean
}): Promise<{ row: Row<'media_files'>; created: boolean }> {
  // duplicates are found inside the insert's transaction (under the library's lock), so no query before it
  const facts = await readFacts(file)
  if (opts.strict && facts.warnings.length) throw new DamagedMediaError(facts.warnings.join('; '))
  const realStartTime = opts.realStartTime !== undefined ? opts.realStartTime
    : startTimeOf(opts.startTimeFrom ?? 'metadata', facts.recorderStartTime, opts.alias, opts.timeOffset)
  const name = newStoredName(libraryFolder(opts.library), { ext: facts.ext })
  const { row, created } = await insertMediaFile(db, {
    library: opts.library, user: opts.user, file: name, type: facts.type, alias: opts.alias, uniqueAlias: opts.uniqueAlias,
    sensor: opts.sensor ?? null, realStartTime, md5: file.md5, size: file.size,
    metaData: metaDataRows(facts, file.size),
  }, () => file.commit(name))
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
        const rows = await trx.selectFrom('media_files').select('file').where('file', 'in', names.slice(i, i + 1000)).execute()
        for (const r of rows) known.add(r.file)
      }
      return names.filter((n) => !known.has(n))
    })
    for (const name of orphans) await storage.remove(name)
    removed += orphans.length
  }
  return removed
}

interface ImportValues {
  alias?: string; sensor?: number | null; realStartTime?: string | null; md5?: string
  startTimeFrom?: StartTimeSource; timeOffset?: number; strict?: boolean
}

/** The text parts, checked like any other input (DRF messages; a sensor the caller cannot read is 400). */
async function parseImportFields(ctx: Context, raw: Record<string, unknown>, file: Pending | null): Promise<ImportValues> {
  const { values, errors } = parseInput(valueFields, raw, 'create')
  if (!file) errors.file = ['No file was submitted.']
  if (typeof values.md5 === 'string' && values.md5 !== '') {
    const md5 = parseMd5(values.md5)
    if (md5) values.md5 = md5
    else errors.md5 = [MD5_MESSAGE]
  }
  if (typeof values.timeOffset === 'string') {
    const minutes = values.timeOffset === '' ? 0 : parseTimeOffset(values.timeOffset)
    if (minutes === null) errors.timeOffset = ['Enter an offset as +hh:mm or -hh:mm, e.g. +02:00.']
    else values.timeOffset = minutes
  }
  if (!errors.sensor && typeof values.sensor === 'number') {
    Object.assign(errors, (await checkReferences(ctx.db, mediaFiles, ctx.caller, [{ sensor: values.sensor }]))[0])
  }
  if (Object.keys(errors).length) throw badRequest(ordered(errors))
  return values as ImportValues
}

/** Errors in the order of the fields, as DRF reports them. */
function ordered(errors: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const name of Object.keys(importFields)) if (errors[name]) out[name] = errors[name]
  for (const [name, e] of Object.entries(errors)) out[name] ??= e
  return out
}

// ---- check ----

async function checkMediaFiles(ctx: Context): Promise<Result> {
  const { row: library } = await fetchRecord(ctx.db, libraries, ctx.caller, ctx.params.id)
  const body = await ctx.body()
  if (!Array.isArray(body)) {
    throw badRequest({ non_field_errors: [MSG.notList(body === null ? 'NoneType' : typeof body === 'object' ? 'dict' : typeof body)] })
  }
  if (body.length > MAX_CHECK_ITEMS) {
    throw badRequest({ non_field_errors: [`Ensure this field has no more than ${MAX_CHECK_ITEMS} elements.`] })
  }
  const items = body.map(parseCheckItem)
  if (items.some((i) => 'errors' in i)) throw badRequest(items.map((i) => ('errors' in i ? i.errors : {})))
  const wanted = items as Array<{ md5: string; size?: number }>
  const md5s = [...new Set(wanted.map((i) => i.md5))]
  const rows = md5s.length
    ? await ctx.db.selectFrom('media_files').select(['id', 'md5', 'size'])
      .where('library_id', '=', library.id).where('md5', 'in', md5s).orderBy('id').execute()
    : []
  return {
    body: wanted.map((item) => {
      const hit = rows.find((r) => r.md5 === item.md5 && (item.size === undefined || r.size === null || Number(r.size) === item.size))
      return hit ? hit.id : null
    }),
  }
}

function parseCheckItem(item: unknown): { md5: string; size?: number } | { errors: Record<string, string[]> } {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    return { errors: { non_field_errors: [MSG.notDict(Array.isArray(item) ? 'list' : item === null ? 'NoneType' : typeof item)] } }
  }
  const { md5: rawMd5, size: rawSize } = item as Record<string, unknown>
  const errors: Record<string, string[]> = {}
  const md5 = parseMd5(rawMd5)
  if (rawMd5 === undefined) errors.md5 = [MSG.required]
  else if (!md5) errors.md5 = [MD5_MESSAGE]
  let size: number | undefined
  if (rawSize !== undefined && rawSize !== null) {
    if (typeof rawSize === 'number' && Number.isSafeInteger(rawSize) && rawSize >= 0) size = rawSize
    else errors.size = [MSG.integer]
  }
  return Object.keys(errors).length ? { errors } : { md5: md5!, size }
}

// ---- routes ----

export const endpoints = (): Endpoint[] => [
  {
    path: `${API}/library/:id/mediaFiles/import/`,
    name: 'Library Media File Import',
    description: 'Import one media file into the library (multipart: file, alias, sensor, realStartTime, md5). 201 with the new MediaFile; 200 with the existing one when the library already holds the same bytes.',
    methods: { POST: importMediaFile },
    options: async () => ({ POST: importFields }),
    doc: {
      keys: ['library'], actions: { POST: 'importMediaFiles' }, fields: { POST: importFields }, record: mediaFiles.fields, upload: 'file',
      success: { POST: [{ status: 201, description: 'Imported: the new MediaFile' },
        { status: 200, description: 'The library already holds these bytes: the existing MediaFile' }] },
    },
  },
  {
    path: `${API}/library/:id/mediaFiles/check/`,
    name: 'Library Media File Check',
    description: `Which of these files the library already holds: a JSON array (at most ${MAX_CHECK_ITEMS}) of {md5, size}; the answer holds, in order, the id of the media file with those bytes or null.`,
    methods: { POST: checkMediaFiles },
    doc: {
      keys: ['library'], actions: { POST: 'checkMediaFiles' }, bulk: true,
      success: { POST: [{ status: 200, description: 'For each item, in order, the id of the media file holding those bytes, or null',
        body: { type: 'array', items: { type: ['integer', 'null'] } } }] },
    },
  },
]
