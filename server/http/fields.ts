import { characters, err, INT_MAX, MSG, ok, parseInteger, parseNumber, type Parsed } from '../values.js'
import type { Scope } from '../access.js'
import type { Column, TableName } from '../db/schema.js'
import { parseTimestamp, wireTimestamp } from '../db/time.js'

export { characters, INT_MAX, INT_MIN, type Parsed } from '../values.js'

// A resource's wire fields, declared once: they drive input validation (with
// DRF's messages), row -> JSON mapping, list filters and ordering, OPTIONS
// metadata and the schema documents.

export type FieldType = 'integer' | 'float' | 'boolean' | 'string' | 'datetime' | 'pk' | 'choice' | 'list' | 'object'

export interface FieldDef<C extends string = string> {
  type: FieldType
  /** database column; absent for computed or embedded fields (filled in by the resource) */
  column?: C
  /** pk: the resource the id refers to (the caller must be able to read it); a function, read once every module
   * has loaded, so that a declaration may name itself */
  target?: () => Referent
  required?: boolean
  readOnly?: boolean
  /** read-only, yet listed (optional) in the forms of the coreapi document, as the original's document lists
   * it: its clients may pass it and it is ignored (or, for a file part, taken from the upload) */
  inForms?: boolean
  writeOnly?: boolean
  nullable?: boolean
  /** value used on create when the field is absent */
  default?: unknown
  /** string: the most characters; object: the most characters of its JSON text */
  maxLength?: number
  /** string: a regular expression the whole value must match (declared in the OpenAPI document) */
  pattern?: string
  /** string: the message when `pattern` does not match */
  patternMessage?: string
  allowBlank?: boolean
  choices?: readonly string[]
  min?: number
  max?: number
  /** list: the type of the items (for documents); object: 'string' when every value must be a string */
  items?: FieldType
  /** object: stored as NULL when it has no member, and read as {} (docs/decisions.md §42: an empty object is then
   * no byte of its row) */
  emptyAsNull?: boolean
  /** equality filter on lists; default: pk and boolean fields with a column */
  filter?: boolean
  label?: string
  description?: string
}

/** What a reference needs of the resource it points at: its name (for the documents), table and read rule. */
export interface Referent {
  name: string
  table: TableName
  scope: Scope
}

export type Fields<C extends string = string> = Record<string, FieldDef<C>>

/** The fields of a resource over table T: every column is checked against the table's type. */
export type TableFields<T extends TableName> = Fields<Column<T>>

/** The description of every record's `creationDate`: written as given, as the original's serializers do (data
 * moved from it keeps its dates), else the time of the create (docs/decisions.md §2). */
export const CREATION_DATE =
  'when the record was created: kept as given on create and update; default: the time of the create'

const TRUE = new Set<unknown>([
  't',
  'T',
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
  '1',
  1,
  true,
])
const FALSE = new Set<unknown>([
  'f',
  'F',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
  '0',
  0,
  false,
])

const pyType = (v: unknown) =>
  v === null
    ? 'NoneType'
    : typeof v === 'boolean'
      ? 'bool'
      : typeof v === 'string'
        ? 'str'
        : typeof v === 'number'
          ? Number.isInteger(v)
            ? 'int'
            : 'float'
          : Array.isArray(v)
            ? 'list'
            : 'dict'

function parseString(v: unknown, f: FieldDef): Parsed {
  if (typeof v === 'number' && Number.isFinite(v)) v = String(v)
  if (typeof v !== 'string') return err(MSG.string)
  if (v.includes('\0')) return err('Null characters are not allowed.')
  if (v.trim() === '' && !f.allowBlank) return err(MSG.blank)
  if (f.maxLength !== undefined && v.length > f.maxLength && characters(v) > f.maxLength)
    return err(MSG.maxLength(f.maxLength))
  if (f.pattern !== undefined && !new RegExp(f.pattern, 'u').test(v))
    return err(f.patternMessage ?? 'Enter a valid value.')
  return ok(v)
}

export function parsePk(v: unknown): Parsed {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= INT_MAX) return ok(v)
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) {
    const n = Number(v)
    return n >= 1 && n <= INT_MAX ? ok(n) : err(MSG.pkMissing(v.trim()))
  }
  if (typeof v === 'number' && Number.isInteger(v)) return err(MSG.pkMissing(v))
  return err(MSG.pkType(pyType(v)))
}

/** Parse one input value for a field; null handling is the caller's. */
export function parseValue(f: FieldDef, v: unknown): Parsed {
  switch (f.type) {
    case 'integer':
      return parseInteger(v, f)
    case 'float':
      return parseNumber(v, f)
    case 'boolean':
      if (TRUE.has(v)) return ok(true)
      if (FALSE.has(v)) return ok(false)
      return err(MSG.boolean)
    case 'string':
      return parseString(v, f)
    case 'datetime': {
      const s = typeof v === 'string' ? parseTimestamp(v) : null
      return s === null ? err(MSG.datetime) : ok(s)
    }
    case 'pk':
      return parsePk(v)
    case 'choice':
      return typeof v === 'string' && f.choices?.includes(v)
        ? ok(v)
        : err(MSG.choice(typeof v === 'string' ? v : JSON.stringify(v)))
    case 'list':
      return Array.isArray(v) ? ok(v) : err(MSG.notList(pyType(v)))
    case 'object':
      return parseObject(v, f)
  }
}

/** An object; with `items: 'string'`, of string values; with `maxLength`, of at most that many characters
 * of JSON text (what its column stores, toColumns). */
function parseObject(v: unknown, f: FieldDef): Parsed {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return err(MSG.notDict(pyType(v)))
  if (f.items === 'string') {
    for (const [key, value] of Object.entries(v)) {
      if (typeof value !== 'string')
        return err(`The value of ${JSON.stringify(key)} must be a string, not ${pyType(value)}.`)
      if (value.includes('\0') || key.includes('\0')) return err('Null characters are not allowed.')
    }
  }
  if (f.maxLength !== undefined && JSON.stringify(v).length > f.maxLength) return err(MSG.jsonMaxLength(f.maxLength))
  return ok(v)
}

export type InputMode = 'create' | 'replace' | 'partial'

export interface ParsedInput {
  /** wire name -> parsed value, for every writable field present (or defaulted on create) */
  values: Record<string, unknown>
  errors: Record<string, string[]>
}

// What the per-row functions below need of a Fields declaration, worked out once per declaration:
// they run for every record of every request (1,000 times for a bulk create).
/** What parsing, storing and rendering a set of fields need of it, worked out once (planFields): a resource's when it
 * is defined (resources/core/compile.ts), an endpoint's own body fields where they are declared. */
export interface FieldPlan {
  /** fields a body may set, in declaration order */
  readonly writable: ReadonlyArray<readonly [string, FieldDef]>
  /** wire name -> column, for the fields that have one */
  readonly columns: ReadonlyMap<string, string>
  /** column -> wire name, the other way */
  readonly fieldOfColumn: ReadonlyMap<string, string>
  /** the object fields with a column: stored as their JSON text, or as NULL when empty and `emptyAsNull` */
  readonly jsonColumns: ReadonlyMap<string, { emptyAsNull: boolean }>
  /** the fields of a rendered record, with how each value is turned into its wire form */
  readonly readable: ReadonlyArray<{
    name: string
    column: string | undefined
    convert: 'timestamp' | 'number' | 'emptyObject' | null
  }>
}

export function planFields(fields: Fields): FieldPlan {
  const entries = Object.entries(fields)
  return {
    writable: entries.filter(([, f]) => !f.readOnly),
    columns: new Map(entries.filter(([, f]) => f.column).map(([n, f]) => [n, f.column!])),
    fieldOfColumn: new Map(entries.filter(([, f]) => f.column).map(([n, f]) => [f.column!, n])),
    jsonColumns: new Map(
      entries.filter(([, f]) => f.column && f.type === 'object').map(([n, f]) => [n, { emptyAsNull: !!f.emptyAsNull }]),
    ),
    readable: entries
      .filter(([, f]) => !f.writeOnly)
      .map(([name, f]) => ({
        name,
        column: f.column,
        convert:
          f.type === 'datetime'
            ? ('timestamp' as const)
            : f.type === 'integer' || f.type === 'float' || f.type === 'pk'
              ? ('number' as const)
              : f.emptyAsNull
                ? ('emptyObject' as const)
                : null,
      })),
  }
}

/** Validate a request body against the writable fields. Read-only and unknown fields are ignored. */
export function parseInput(plan: FieldPlan, data: unknown, mode: InputMode): ParsedInput {
  const values: Record<string, unknown> = {}
  const errors: Record<string, string[]> = {}
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { values, errors: { non_field_errors: [MSG.notDict(pyType(data))] } }
  }
  const body = data as Record<string, unknown>
  for (const [name, f] of plan.writable) {
    const r = fieldInput(f, body, name, mode)
    if (r === ABSENT) continue
    if (r.ok) values[name] = r.value
    else errors[name] = [r.error]
  }
  return { values, errors }
}

/** A field the body does not give and that takes no default: left out of the values. */
export const ABSENT = Symbol('absent')

/** One writable field of an object body as parseInput reads it: its value (its default, when the body does not give
 * it on create), its error, or ABSENT. */
export function fieldInput(
  f: FieldDef,
  body: Record<string, unknown>,
  name: string,
  mode: InputMode,
): Parsed | typeof ABSENT {
  if (!Object.prototype.hasOwnProperty.call(body, name)) {
    if (mode !== 'partial' && f.required) return err(MSG.required)
    return mode === 'create' && f.default !== undefined ? ok(f.default) : ABSENT
  }
  const v = body[name]
  if (v === null || (v === '' && f.nullable && f.type !== 'string')) return f.nullable ? ok(null) : err(MSG.null)
  return parseValue(f, v)
}

/** Wire values -> column values, for the fields that have a column; an object as its JSON text, so that
 * a create of one keeps the statements of text values (resources/fast/create.ts, resources/core/insert.ts). */
export function toColumns(plan: FieldPlan, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const name in values) {
    const col = plan.columns.get(name)
    if (col) out[col] = columnValue(plan, name, values[name])
  }
  return out
}

/** A field's wire value as its column stores it: an object as its JSON text (NULL when empty and `emptyAsNull`). */
export function columnValue(plan: FieldPlan, name: string, value: unknown): unknown {
  const json = plan.jsonColumns.get(name)
  if (json === undefined || value === null) return value
  return json.emptyAsNull && isEmptyObject(value) ? null : JSON.stringify(value)
}

const isEmptyObject = (v: unknown): boolean => {
  for (const _key in v as object) return false
  return true
}

/** A database row (plus any computed properties under their wire names) -> the JSON record. */
export function toJson(plan: FieldPlan, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const { name, column, convert } of plan.readable) {
    if (column === undefined) {
      out[name] = row[name]
      continue
    }
    const v = row[column]
    out[name] =
      convert === 'emptyObject'
        ? (v ?? {})
        : v === null || v === undefined
          ? null
          : convert === 'timestamp'
            ? wireTimestamp(String(v))
            : convert === 'number'
              ? Number(v)
              : v
  }
  return out
}

/** Fields usable as `?name=value` equality filters. */
export function filterFields(fields: Fields): Array<[string, FieldDef]> {
  return Object.entries(fields).filter(
    ([, f]) => f.column && !f.writeOnly && (f.filter ?? (f.type === 'pk' || f.type === 'boolean')),
  )
}

/** Fields usable in `?ordering=`. */
export function orderFields(fields: Fields): Map<string, string> {
  const m = new Map<string, string>()
  for (const [name, f] of Object.entries(fields)) {
    if (f.column && !f.writeOnly && f.type !== 'list' && f.type !== 'object') m.set(name, f.column)
  }
  return m
}

/** Label in the style DRF derives from a field name: 'tagSet' -> 'TagSet', 'launch_job' -> 'Launch job'. */
export function labelOf(name: string, f: FieldDef): string {
  if (f.label) return f.label
  if (name === 'id') return 'ID'
  const s = name.replace(/_/g, ' ')
  return s.charAt(0).toUpperCase() + s.slice(1)
}
