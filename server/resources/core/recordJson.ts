import { sql, type Expression, type RawBuilder } from 'kysely'
import type { FieldDef, Fields } from '../../http/fields.js'
import {
  computedFor,
  computedNames,
  computedOfRequest,
  type RecordColumns,
  type RecordJson,
  type RecordRequest,
  type ResourceDeclaration,
} from './define.js'
import type { TableName } from '../../db/schema.js'

// A resource's JSON record written by PostgreSQL: the SQL twin of toJson (http/fields.ts), built from the
// same field declarations once, when the resource is defined (compile.ts). Lists use it, so that a page reaches
// the server as one JSON text per record, which it joins into the answer without reading the rows into objects and
// serialising them again, and so do the details of resources without a query of their own (`embed`), and the
// single creates of those whose records do not depend on the request either (no `computed` fields) (the
// accelerators: fast/detail.ts, fast/create.ts, fast/jsonRecord.ts; docs/decisions.md §11). The answers of other
// writes keep toJson; test/server/resources/listRendering.test.ts checks that the two agree, record for record.

/** The JSON form of a column of `alias`, as toJson gives it: the column itself (an `emptyAsNull` object's NULL as {}).
 * Timestamps are stored to the second without a zone (timestamp(0)), which row_to_json writes as their wire form
 * 'YYYY-MM-DDThh:mm:ss' (db/time.ts) without a to_char for each (docs/decisions.md §11). */
function columnJson(alias: string, f: FieldDef & { column: string }): Expression<unknown> {
  const column = sql.ref(`${alias}.${f.column}`)
  return f.emptyAsNull ? sql`coalesce(${column}, '{}'::json)` : column
}

/** The fields a declaration can have written by the database: columns of a JSON scalar type, and object
 * columns of type json, whose text (JSON.stringify's, toColumns in http/fields.ts) row_to_json writes as it is. */
const SCALAR = new Set(['integer', 'float', 'boolean', 'string', 'datetime', 'pk', 'choice', 'object'])

/** `select <value> as "<wire name>", ...` of a record with these fields over the row `alias`, the fields
 * without a column (or given another value) taken from `computed`: joined LATERAL as `j`, row_to_json(j) is
 * the record, written without spaces as JSON.stringify writes it; null when a readable field has no SQL form. */
function recordColumns(
  fields: Fields,
  alias: string,
  computed: Record<string, Expression<unknown>> = {},
): RawBuilder<unknown> | null {
  const values: Expression<unknown>[] = []
  for (const [name, f] of Object.entries(fields)) {
    if (f.writeOnly) continue
    const value =
      computed[name] ?? (f.column && SCALAR.has(f.type) ? columnJson(alias, { ...f, column: f.column }) : undefined)
    if (value === undefined) return null
    values.push(sql`${value} as ${sql.id(name)}`)
  }
  return sql`select ${sql.join(values)}`
}

/** How the database writes the records of `def`. */
export function recordJson<T extends TableName>(def: ResourceDeclaration<T>): RecordJson {
  return {
    record: def.embed ? null : readColumns(def),
    returned: def.embed || def.computed ? null : recordColumns(def.fields, def.table),
  }
}

/** The columns of a record of `def` read over `r` (it has no `embed`); null when a field has no SQL form. */
function readColumns<T extends TableName>(def: ResourceDeclaration<T>): RecordColumns | null {
  // whether a record has an SQL form depends on which fields are computed, not on their SQL
  const fixed = computedOfRequest(def) ? standInComputed(def) : computedFor(def, NO_REQUEST)
  const columns = recordColumns(def.fields, 'r', fixed)
  if (!columns) return null
  // computed fields that do not read the request (or none): the record's SQL is made once
  if (!computedOfRequest(def)) return { columns: () => columns, ofRequest: false }
  return { columns: (req) => recordColumns(def.fields, 'r', computedFor(def, req))!, ofRequest: true }
}

/** The request given to computed fields that read none of it. */
const NO_REQUEST: RecordRequest = { origin: '', now: new Date(0) }

/** Each computed field as a stand-in value. */
const standInComputed = (def: Pick<ResourceDeclaration, 'computed'>): Record<string, Expression<unknown>> =>
  Object.fromEntries(computedNames(def).map((name) => [name, sql`null`]))
