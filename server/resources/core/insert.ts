import { sql } from 'kysely'
import type { AnyRow, TableName } from '../../db/schema.js'
import type { FieldType } from '../../http/fields.js'
import {
  anyTable,
  recs,
  type BulkPlan,
  type Db,
  type Rec,
  type ResourceDeclaration,
  type ResourceDef,
} from './define.js'

// INSERT of new records, many at a time as arrays (bulk creation).

/** INSERT … RETURNING. Many rows with the same columns go as one array parameter per column, turned
 * back into rows by unnest: 15 parameters for 1,000 tags instead of 15,000, which kysely would build,
 * and the driver serialize, one by one. When every column given stores exactly the value given (see
 * BulkPlan, define.ts), only what the database adds comes back: the id and the columns not given; sending the
 * rest back and parsing it again was a fifth of the work. `asArrays`: insertsAsArrays of these rows, when the
 * caller has asked it already. `idsOnly`: the caller uses nothing of the new records but their ids, and only the
 * ids come back (the rows given, each with its id). */
export async function insertRows<T extends TableName>(
  db: Db,
  def: ResourceDef<T>,
  rows: AnyRow[],
  asArrays = insertsAsArrays(def, rows),
  idsOnly = false,
): Promise<Rec<T>[]> {
  const columns = Object.keys(rows[0])
  const plan = def.compiled.bulk
  const types = columns.map((c) => plan.arrayTypes.get(c))
  if (!asArrays) {
    const out: Rec<T>[] = []
    for (let i = 0; i < rows.length; i += VALUES_CHUNK) {
      out.push(
        ...recs<T>(
          await anyTable(db)
            .insertInto(def.table)
            .values(rows.slice(i, i + VALUES_CHUNK))
            .returningAll()
            .execute(),
        ),
      )
    }
    return out
  }
  const added = idsOnly
    ? ['id']
    : columns.every((c) => plan.exact.has(c))
      ? plan.columns.filter((c) => !columns.includes(c))
      : null
  const arrays = columns.map(
    (c, i) =>
      sql`${arrayParameter(
        types[i]!,
        rows.map((r) => r[c]),
      )}::${sql.raw(types[i]!)}[]`,
  )
  const result = await sql<AnyRow>`insert into ${sql.table(def.table)} (${sql.join(columns.map((c) => sql.ref(c)))})
    select * from unnest(${sql.join(arrays)})
    returning ${added ? sql.join(added.map((c) => sql.ref(c))) : sql`*`}`.execute(db)
  return recs<T>(added ? result.rows.map((r, i) => Object.assign(rows[i], r)) : result.rows)
}

/** rows per INSERT … VALUES (PostgreSQL takes at most 65,535 parameters in one statement) */
const VALUES_CHUNK = 1000

/** Whether insertRows writes `rows` as one statement of arrays (any number of rows: a parameter per column),
 * rather than INSERT … VALUES by chunks of VALUES_CHUNK. */
export function insertsAsArrays<T extends TableName>(def: ResourceDef<T>, rows: AnyRow[]): boolean {
  if (rows.length < 2) return false
  const columns = Object.keys(rows[0])
  const types = def.compiled.bulk.arrayTypes
  return columns.every((c) => types.has(c)) && rows.every((r) => sameKeys(r, columns))
}

/** The array element type of each field type, wide enough for every column of it (an assignment cast
 * narrows it to the column's own type). */
const ARRAY_TYPES: Partial<Record<FieldType, string>> = {
  pk: 'int4',
  integer: 'int8',
  float: 'float8',
  boolean: 'bool',
  datetime: 'timestamp',
  string: 'text',
  choice: 'text',
  // an object column holds the JSON text toColumns made of it (http/fields.ts)
  object: 'json',
}

/** Element types whose values (finite numbers, booleans) read back from their String() in an array
 * literal: the literal is joined here, instead of quoted and escaped value by value by the driver. */
const UNQUOTED = new Set(['int4', 'int8', 'float8', 'bool'])

function unquotedArray(values: unknown[]): string {
  // join writes each number and boolean as String() does, without an array of their texts; only a null or
  // missing value (which join would leave empty) needs its NULL written
  if (!values.some((v) => v === null || v === undefined)) return `{${values.join(',')}}`
  return `{${values.map((v) => (v === null || v === undefined ? 'NULL' : String(v))).join(',')}}`
}

/** The array literal of text values (texts, JSON texts, timestamps as text), each quoted and escaped as the driver
 * would, but a value repeated from the one before (a batch's stamp, an import's provenance) quoted once; the values
 * as they are, for the driver to write, when one is not a string. */
function quotedArray(values: unknown[]): unknown {
  let literal = '{'
  let last: string | undefined
  let lastQuoted = ''
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (i > 0) literal += ','
    if (v === null || v === undefined) literal += 'NULL'
    else if (typeof v !== 'string') return values
    else {
      if (v !== last) {
        last = v
        lastQuoted = `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
      }
      literal += lastQuoted
    }
  }
  return `${literal}}`
}

/** A column's values as the parameter of an array of element type `type`. */
export const arrayParameter = (type: string, values: unknown[]): unknown =>
  UNQUOTED.has(type) ? unquotedArray(values) : quotedArray(values)

/** The SQL type of each column a create may give (none for list fields). */
export const columnTypes = <T extends TableName>(def: ResourceDef<T>): ReadonlyMap<string, string> =>
  def.compiled.bulk.arrayTypes

/** What a bulk insert needs of a resource's declaration, worked out when it is defined (compile.ts). */
export function bulkPlan<T extends TableName>(def: ResourceDeclaration<T>): BulkPlan {
  const arrayTypes = new Map<string, string>()
  for (const f of Object.values(def.fields)) {
    const type = ARRAY_TYPES[f.type]
    if (f.column && type) arrayTypes.set(f.column, type)
  }
  if (def.owner) arrayTypes.set(def.owner, 'int4')
  const stamps: readonly string[] = def.stamps ?? []
  for (const s of stamps) arrayTypes.set(s, 'timestamp')
  const exact = new Set(
    def.computed || def.embed || def.afterWrite
      ? []
      : [...arrayTypes].filter(([c, type]) => UNQUOTED.has(type) || stamps.includes(c)).map(([c]) => c),
  )
  const columns = [
    ...new Set([
      'id',
      ...Object.values(def.fields).flatMap((f) => (f.column ? [f.column] : [])),
      ...(def.owner ? [def.owner] : []),
      ...stamps,
    ]),
  ]
  return { arrayTypes, exact, columns }
}

function sameKeys(row: AnyRow, columns: string[]): boolean {
  let n = 0
  for (const k in row) {
    if (k !== columns[n++]) return false
  }
  return n === columns.length
}
