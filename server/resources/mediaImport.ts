import type { Context, Endpoint, Result } from '../http/endpoint.js'
import { badRequest, MSG } from '../http/errors.js'
import { parseInput, planFields, type Fields } from '../http/fields.js'
import { NotMediaError } from '../media/facts.js'
import { AliasTakenError, DamagedMediaError, importReceived } from '../media/import.js'
import { MD5_MESSAGE, parseMd5 } from '../media/md5.js'
import { parseTimeOffset, START_TIME_SOURCES, type StartTimeSource } from '../media/startTime.js'
import { receiveUpload } from '../http/upload.js'
import { type Pending } from '../storage/index.js'
import { libraries } from './library.js'
import { mediaFiles } from './mediaFile.js'
import { API, checkReferences, render } from './resource.js'
import { sensors } from './sensor.js'

// Media import (docs/decisions.md §7): POST library/{Id}/mediaFiles/import/ streams one
// file into storage while hashing it, reads its audio facts, and answers 201
// with the new MediaFile, or 200 with the one already holding the same bytes
// in that library. POST library/{Id}/mediaFiles/check/ answers for a batch of
// checksums which are already there, so a re-run uploads only what is new.

const importFields: Fields = {
  file: { type: 'string', required: true, label: 'File', description: 'the media file (multipart file part)' },
  alias: {
    type: 'string',
    maxLength: 1024,
    allowBlank: true,
    description:
      "the file's path relative to the root of the import (default: the uploaded file name); a given alias is unique in the library: another file holding it with other bytes makes the import a 400",
  },
  sensor: { type: 'pk', target: () => sensors, nullable: true },
  realStartTime: { type: 'datetime', nullable: true, label: 'RealStartTime' },
  md5: {
    type: 'string',
    allowBlank: true,
    label: 'Md5',
    description: 'md5 of the file; the upload is refused when the bytes differ',
  },
  startTimeFrom: {
    type: 'choice',
    choices: [...START_TIME_SOURCES],
    label: 'Start time from',
    description:
      "where realStartTime comes from when it is not given: the recorder's metadata in the file, else the alias's file name (metadata, the default); the file name only (name); or nowhere (none)",
  },
  timeOffset: {
    type: 'string',
    allowBlank: true,
    label: 'Time offset',
    description:
      '±hh:mm added to a start time read from the file or its name, e.g. +02:00 to store UTC recordings (AudioMoth) in local time',
  },
  strict: {
    type: 'boolean',
    label: 'Strict',
    description: 'refuse a damaged (e.g. truncated) file instead of importing it with a warning metadata row',
  },
}
const valueFields: Fields = Object.fromEntries(Object.entries(importFields).filter(([n]) => n !== 'file'))
const VALUE_PLAN = planFields(valueFields)

export const MAX_CHECK_ITEMS = 1000

// ---- import ----

async function importMediaFile(ctx: Context): Promise<Result> {
  const library = await ctx.services.records.fetchFor(ctx, libraries, ctx.params.id, 'write')
  const storage = ctx.storage
  const upload = await receiveUpload(ctx, storage, 'file')
  const pending = upload.file
  try {
    const values = await parseImportFields(ctx, upload.fields, pending)
    const file = pending!
    if (values.md5 && values.md5 !== file.md5) {
      throw badRequest({
        md5: [`The received bytes have md5 ${file.md5}, not ${values.md5}; the upload was incomplete or changed.`],
      })
    }
    const { row, created } = await importReceived(ctx.db, file, {
      library: library.id,
      user: ctx.caller.id,
      alias: values.alias || upload.filename.slice(0, 1024),
      uniqueAlias: !!values.alias,
      sensor: values.sensor ?? null,
      realStartTime: values.realStartTime,
      startTimeFrom: values.startTimeFrom,
      timeOffset: values.timeOffset,
      strict: values.strict,
    }).catch((e) => {
      if (e instanceof NotMediaError) {
        throw badRequest({
          file: [`Upload a valid media file. The file you uploaded is not a readable media file: ${e.message}.`],
        })
      }
      if (e instanceof DamagedMediaError)
        throw badRequest({ file: [`The file is damaged (${e.message}); it was not imported (strict).`] })
      if (e instanceof AliasTakenError)
        throw badRequest({
          alias: [
            `A media file with this alias already exists in this library (id ${e.holder}) and holds other bytes.`,
          ],
        })
      throw e
    })
    return { status: created ? 201 : 200, body: (await render(ctx, mediaFiles, [row]))[0] }
  } finally {
    await pending?.discard()
  }
}

interface ImportValues {
  alias?: string
  sensor?: number | null
  realStartTime?: string | null
  md5?: string
  startTimeFrom?: StartTimeSource
  timeOffset?: number
  strict?: boolean
}

/** The text parts, checked like any other input (DRF messages; a sensor the caller cannot read is 400). */
async function parseImportFields(
  ctx: Context,
  raw: Record<string, unknown>,
  file: Pending | null,
): Promise<ImportValues> {
  const { values, errors } = parseInput(VALUE_PLAN, raw, 'create')
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
  const { row: library } = await ctx.services.records.fetch(ctx, libraries, ctx.params.id)
  const body = await ctx.body()
  if (!Array.isArray(body)) {
    throw badRequest({
      non_field_errors: [MSG.notList(body === null ? 'NoneType' : typeof body === 'object' ? 'dict' : typeof body)],
    })
  }
  if (body.length > MAX_CHECK_ITEMS) {
    throw badRequest({ non_field_errors: [`Ensure this field has no more than ${MAX_CHECK_ITEMS} elements.`] })
  }
  const items = body.map(parseCheckItem)
  if (items.some((i) => 'errors' in i)) throw badRequest(items.map((i) => ('errors' in i ? i.errors : {})))
  const wanted = items as Array<{ md5: string; size?: number }>
  const md5s = [...new Set(wanted.map((i) => i.md5))]
  const rows = md5s.length
    ? await ctx.db
        .selectFrom('media_files')
        .select(['id', 'md5', 'size'])
        .where('library_id', '=', library.id)
        .where('md5', 'in', md5s)
        .orderBy('id')
        .execute()
    : []
  return {
    body: wanted.map((item) => {
      const hit = rows.find(
        (r) => r.md5 === item.md5 && (item.size === undefined || r.size === null || Number(r.size) === item.size),
      )
      return hit ? hit.id : null
    }),
  }
}

function parseCheckItem(item: unknown): { md5: string; size?: number } | { errors: Record<string, string[]> } {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    return {
      errors: {
        non_field_errors: [MSG.notDict(Array.isArray(item) ? 'list' : item === null ? 'NoneType' : typeof item)],
      },
    }
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
    description:
      'Import one media file into the library (multipart: file, alias, sensor, realStartTime, md5). 201 with the new MediaFile; 200 with the existing one when the library already holds the same bytes.',
    methods: { POST: importMediaFile },
    options: async () => ({ POST: importFields }),
    doc: {
      keys: ['library'],
      actions: { POST: 'importMediaFiles' },
      fields: { POST: importFields },
      record: mediaFiles.fields,
      upload: 'file',
      success: {
        POST: [
          { status: 201, description: 'Imported: the new MediaFile' },
          { status: 200, description: 'The library already holds these bytes: the existing MediaFile' },
        ],
      },
    },
  },
  {
    path: `${API}/library/:id/mediaFiles/check/`,
    name: 'Library Media File Check',
    description: `Which of these files the library already holds: a JSON array (at most ${MAX_CHECK_ITEMS}) of {md5, size}; the answer holds, in order, the id of the media file with those bytes or null.`,
    methods: { POST: checkMediaFiles },
    doc: {
      keys: ['library'],
      actions: { POST: 'checkMediaFiles' },
      bulk: true,
      success: {
        POST: [
          {
            status: 200,
            description: 'For each item, in order, the id of the media file holding those bytes, or null',
            body: { type: 'array', items: { type: ['integer', 'null'] } },
          },
        ],
      },
    },
  },
]
