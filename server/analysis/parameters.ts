import { realpathSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'
import { sql, type Kysely } from 'kysely'
import { AccessRefused, libraryAllows, tagSetAllows, type Caller } from '../access.js'
import type { AppConfig } from '../config.js'
import type { DB } from '../db/schema.js'
import { named } from '../named.js'
import { characters, MSG, parseInteger, parseNumber } from '../values.js'
import type { JobType, ParamSpec, ParamValues } from './jobType.js'
import { labelsFileOf, namesLabelsFile } from './labelsFile.js'

// Job parameters arrive as strings (JobParameters rows). Each job type says
// what it expects; this turns the strings into values and checks that every
// library and tag set they name may have jobs launched on it by the caller.
// A record the caller cannot read is reported like a missing one (400);
// one they can read but not launch jobs on is refused (AccessRefused, a 403).

type Db = Kysely<DB>

export interface ParamCheck {
  values: ParamValues
  errors: Record<string, string[]>
}

/** Every parameter of the type: the given ones checked (and refused without the parameter they need), the missing
 * ones given their default or reported when the type needs them. `partial`: only the parameters given are checked
 * (one added or changed on its own; a job missing what one needs waits for it, waiting.ts). */
export async function checkParameters(
  db: Db,
  caller: Caller,
  config: AppConfig,
  type: JobType,
  given: Record<string, string>,
  partial = false,
): Promise<ParamCheck> {
  const values: ParamValues = {}
  const errors: Record<string, string[]> = {}
  for (const [name, spec] of Object.entries(type.params)) {
    const raw = given[name]
    if (raw === undefined) {
      if (partial) continue
      if (spec.required) errors[name] = [MSG.required]
      else if (spec.default !== undefined) values[name] = spec.default
      continue
    }
    const r = await checkOne(db, caller, config, name, spec, raw)
    if (typeof r === 'string') errors[name] = [r]
    else if (spec.needs && given[spec.needs] === undefined && !partial)
      errors[name] = [`Give ${spec.needs} as well: ${name} is only read with it.`]
    else values[name] = r.value
  }
  return { values, errors }
}

async function checkOne(
  db: Db,
  caller: Caller,
  config: AppConfig,
  name: string,
  spec: ParamSpec,
  raw: string,
): Promise<string | { value: number | string }> {
  switch (spec.kind) {
    case 'integer':
    case 'float': {
      const r = (spec.kind === 'integer' ? parseInteger : parseNumber)(raw, spec)
      return r.ok ? { value: r.value as number } : r.error
    }
    case 'string':
      return raw.trim() === '' ? MSG.blank : { value: raw }
    case 'path': {
      const r = importPath(config, raw)
      return 'error' in r ? r.error : { value: r.path }
    }
    case 'tagClass': {
      // a tag class id, or the name of a class to use (created if missing)
      if (!/^\s*\d+\s*$/.test(raw)) return raw.trim() === '' ? MSG.blank : { value: raw.trim() }
      const id = Number(raw)
      const ok = await readableTagClass(db, caller, id)
      return ok ? { value: id } : MSG.pkMissing(raw.trim())
    }
    case 'labels': {
      // labels separated by ;, or the name of a result file of the caller's holding them (labelsFile.ts)
      const text = raw.trim()
      if (text === '') return MSG.blank
      if (namesLabelsFile(text) && !(await labelsFileOf(db, caller, text))) {
        return `No result file of yours named ${text}: upload the list first with mas job result upload JOB ${text} (to any job of yours).`
      }
      return { value: text }
    }
    case 'model': {
      // a model's id or its name (every user may run any model: a site admin added it)
      const text = raw.trim()
      if (text === '') return MSG.blank
      const model = /^\d{1,10}$/.test(text)
        ? await db.selectFrom('models').select('id').where('id', '=', Number(text)).executeTakeFirst()
        : await db.selectFrom('models').select('id').where('name', '=', text).executeTakeFirst()
      return model
        ? { value: model.id }
        : `No model ${/^\d+$/.test(text) ? text : `named "${text}"`}: mas model list shows those there are.`
    }
    case 'library':
    case 'tagSet':
    case 'mediaFile': {
      const id = /^\s*\d{1,10}\s*$/.test(raw) ? Number(raw) : NaN
      if (!Number.isSafeInteger(id) || id < 1) return MSG.pkType('str')
      const can = await referenceAccess(db, caller, spec.kind, id)
      if (!can.read) return MSG.pkMissing(id)
      if (spec.kind !== 'mediaFile' && !can.launch) {
        throw new AccessRefused(
          `You may not launch jobs on ${named(spec.kind === 'library' ? 'library' : 'tag set', id, can.name)}, given as ${name}.`,
        )
      }
      return { value: id }
    }
  }
}

/** Read and launch_job of the caller on a library, tag set, or (through its library) a media file. */
async function referenceAccess(db: Db, caller: Caller, kind: 'library' | 'tagSet' | 'mediaFile', id: number) {
  const row =
    kind === 'library'
      ? await db
          .selectFrom('libraries as l')
          .where('l.id', '=', id)
          .select((eb) => [
            'l.name',
            sql<boolean>`${libraryAllows(eb, caller, eb.ref('l.id'), 'read')}`.as('read'),
            sql<boolean>`${libraryAllows(eb, caller, eb.ref('l.id'), 'launch_job')}`.as('launch'),
          ])
          .executeTakeFirst()
      : kind === 'tagSet'
        ? await db
            .selectFrom('tag_sets as t')
            .where('t.id', '=', id)
            .select((eb) => [
              't.name',
              sql<boolean>`${tagSetAllows(eb, caller, eb.ref('t.id'), 'read')}`.as('read'),
              sql<boolean>`${tagSetAllows(eb, caller, eb.ref('t.id'), 'launch_job')}`.as('launch'),
            ])
            .executeTakeFirst()
        : await db
            .selectFrom('media_files as m')
            .where('m.id', '=', id)
            .select((eb) => [
              'm.alias as name',
              sql<boolean>`${libraryAllows(eb, caller, eb.ref('m.library_id'), 'read')}`.as('read'),
              sql<boolean>`${libraryAllows(eb, caller, eb.ref('m.library_id'), 'launch_job')}`.as('launch'),
            ])
            .executeTakeFirst()
  return { read: !!row?.read, launch: !!row?.launch, name: row?.name }
}

async function readableTagClass(db: Db, caller: Caller, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('tag_classes as c')
    .where('c.id', '=', id)
    .where((eb) => libraryAllows(eb, caller, eb.ref('c.library_id'), 'read'))
    .select('c.id')
    .executeTakeFirst()
  return !!row
}

/** A file or folder below the import root (after following links); anything else is refused. */
export function importPath(config: AppConfig, raw: string): { path: string } | { error: string } {
  if (!config.importRoot)
    return { error: 'Server-side import is not enabled on this server (MAS_IMPORT_ROOT is not set).' }
  let root: string
  try {
    root = realpathSync(config.importRoot)
  } catch {
    return { error: "The server's import folder does not exist." }
  }
  let real: string
  try {
    real = realpathSync(resolve(root, raw))
  } catch {
    return { error: `No such file or folder below the import folder: "${raw}".` }
  }
  const rel = relative(root, real)
  if (rel.startsWith('..') || isAbsolute(rel)) return { error: `"${raw}" is outside the server's import folder.` }
  return { path: real }
}

/** A parameters object from a request: names to strings (numbers are taken as their text). */
export function parametersFrom(v: unknown): { params: Record<string, string> } | { error: string } {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    return { error: MSG.notDict(Array.isArray(v) ? 'list' : typeof v) }
  const params: Record<string, string> = {}
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k === '' || characters(k) > 255) return { error: 'Parameter names must have 1 to 255 characters.' }
    if (typeof x === 'string') params[k] = x
    else if (typeof x === 'number' && Number.isFinite(x)) params[k] = String(x)
    else return { error: `The value of "${k}" must be a string.` }
  }
  return { params }
}
