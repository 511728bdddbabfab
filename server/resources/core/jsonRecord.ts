import { sql, type Expression, type RawBuilder } from 'kysely'
import type { Context } from '../../http/endpoint.js'
import type { FieldDef, Fields } from '../../http/fields.js'
import type { ResourceDef } from './define.js'
import type { TableName } from '../../db/schema.js'

// A resource's JSON record written by PostgreSQL: the SQL twin of toJson (http/fields.ts), built from the
// same field declarations. Lists use it, so that a page reaches the server as one JSON text per record,
// which it joins into the answer without reading the rows into objects and serialising them again
// (docs/decisions.md §11). Single records keep toJson; test/server/listRendering.test.ts checks that the
// two agree, record for record, on every list of the API.

/** The JSON form of a column of `alias`, as toJson gives it. */
function columnJson(alias: string, f: FieldDef & { column: string }): Expression<unknown> {
  const ref = sql.ref(`${alias}.${f.column}`)
  // timestamps are stored without a zone; their wire form is 'YYYY-MM-DDThh:mm:ss' (db/time.ts)
  return f.type === 'datetime' ? sql`to_char(${ref}, 'YYYY-MM-DD"T"HH24:MI:SS')` : ref
}

/** The fields a declaration can have written by the database: columns of a JSON scalar type. */
const SCALAR = new Set(['integer', 'float', 'boolean', 'string', 'datetime', 'pk', 'choice'])

/** `select <value> as "<wire name>", ...` of a record with these fields over the row `alias`, the fields
 * without a column (or given another value) taken from `computed`: joined LATERAL as `j`, row_to_json(j) is
 * the record, written without spaces as JSON.stringify writes it; null when a readable field has no SQL form. */
export function recordColumns(fields: Fields, alias: string, computed: Record<string, Expression<unknown>> = {}): RawBuilder<unknown> | null {
  const values: Expression<unknown>[] = []
  for (const [name, f] of Object.entries(fields)) {
    if (f.writeOnly) continue
    const value = computed[name] ?? (f.column && SCALAR.has(f.type) ? columnJson(alias, { ...f, column: f.column }) : undefined)
    if (value === undefined) return null
    values.push(sql`${value} as ${sql.id(name)}`)
  }
  return sql`select ${sql.join(values)}`
}

/** A JSON array of the records with `fields` over the rows `alias` of `from` that `where` keeps, in the order
 * of `orderBy`, written without spaces; [] when there are none. Every field must have an SQL form. */
export function recordArray(fields: Fields, alias: string, from: Expression<unknown>, where: Expression<unknown>,
  orderBy: Expression<unknown>): RawBuilder<unknown> {
  const columns = recordColumns(fields, alias)
  if (!columns) throw new Error(`the records over ${alias} have a field without an SQL form`)
  return sql`coalesce((select ('[' || string_agg(row_to_json(k)::text, ',' order by ${orderBy}) || ']')::json
    from ${from} cross join lateral (${columns}) as k where ${where}), '[]'::json)`
}

/** The columns of a record of `def` over `r` (recordColumns), or null when the resource's lists are rendered
 * by toJson (a computed field given only by `embed`). */
export function listColumns<T extends TableName>(def: ResourceDef<T>, ctx: Context): RawBuilder<unknown> | null {
  const computed = def.embed ? def.embedSql?.(ctx) : {}
  return computed ? recordColumns(def.fields, 'r', computed) : null
}
