import { sql, type Expression, type RawBuilder } from 'kysely'
import type { Context } from '../../http/endpoint.js'
import type { FieldDef, Fields } from '../../http/fields.js'
import { anyTable, type Db, type Query, type ResourceDef } from './define.js'
import type { TableName } from '../../db/schema.js'

// A resource's JSON record written by PostgreSQL: the SQL twin of toJson (http/fields.ts), built from the
// same field declarations. Lists use it, so that a page reaches the server as one JSON text per record,
// which it joins into the answer without reading the rows into objects and serialising them again, and so
// do the details of resources without an `embed` (read.ts, fetchRecordJson; docs/decisions.md §11). The
// answers of writes keep toJson; test/server/listRendering.test.ts checks that the two agree, record for
// record, on every list of the API.

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

/** per resource, by alias: the columns of its JSON record, or null when its records are rendered by toJson */
const ownColumns = new WeakMap<object, Map<string, RawBuilder<unknown> | null>>()

/** The columns of a resource's JSON record over the row `alias` (recordColumns), for a single record the
 * database writes (a detail, a create's answer); null when the resource has an `embed`, whose records are
 * rendered by toJson, or a field without an SQL form. */
export function ownRecordColumns<T extends TableName>(def: ResourceDef<T>, alias: string): RawBuilder<unknown> | null {
  let byAlias = ownColumns.get(def)
  if (!byAlias) ownColumns.set(def, byAlias = new Map())
  let columns = byAlias.get(alias)
  if (columns === undefined) byAlias.set(alias, columns = def.embed ? null : recordColumns(def.fields, alias))
  return columns
}

/** An embedded list of records of another table (e.g. a media file's metadata records), written by the
 * database for a whole page at once: one grouped part of the page's statement, not a subquery per record. */
export interface NestedRecords {
  /** the fields of each embedded record (every one with an SQL form) */
  fields: Fields
  table: TableName
  /** the column of `table` that holds the embedding record's id */
  parentColumn: string
  /** the column the embedded records are listed by */
  orderBy: string
  /** the column of `table` in which the database keeps each record's JSON (written by a trigger from the
   * same fields, e.g. migration 2026_11_24_0004), joined as it is instead of written again at each read */
  jsonColumn?: string
}

/** What a resource's `embedSql` gives a field: a value over the record `r`, or an embedded list. */
export type SqlField = Expression<unknown> | NestedRecords

const isNested = (f: SqlField): f is NestedRecords => 'parentColumn' in f

/** How the records of a page are written as JSON: the statement for `page` (a query of records as `r`,
 * limited to a page), with rows of `id`, the named `extras` of `page` and `__json`, unordered; null when the
 * resource's lists are rendered by toJson (a field `embed` gives has no SQL form). */
export function pageJson<T extends TableName>(db: Db, def: ResourceDef<T>, ctx: Context): ((page: Query, extras: string[]) => Query) | null {
  const given = def.embed ? def.embedSql?.(ctx) : {}
  if (!given) return null
  const computed: Record<string, Expression<unknown>> = {}
  const nested: Nested[] = []
  for (const [name, f] of Object.entries(given)) {
    if (!isNested(f)) computed[name] = f
    else {
      const alias = `n${nested.length}`
      const items = recordColumns(f.fields, 'x')
      if (!items) throw new Error(`the records of ${f.table} embedded in ${def.name} have a field without an SQL form`)
      nested.push({ alias, json: f.jsonColumn ? storedJson(f.jsonColumn) : writtenJson(items), of: f })
      computed[name] = sql`coalesce(${sql.ref(`${alias}.__json`)}, '[]'::json)`
    }
  }
  const columns = recordColumns(def.fields, 'r', computed)
  return columns && ((page, extras) => pageStatement(db, page, extras, columns, nested))
}

/** An embedded list of a page's statement: its alias there, how its records' JSON is had (over the
 * embedded table as `x`) and its declaration. */
interface Nested { alias: string; json: EmbeddedJson; of: NestedRecords }

/** The JSON array of the grouped records of `x`, in the order of `orderBy` (joined from its FROM, as `tail`). */
interface EmbeddedJson { array: (orderBy: RawBuilder<unknown>) => RawBuilder<unknown>; joined: RawBuilder<unknown> }

/** each record written by row_to_json over its columns; array_to_json writes the array as row_to_json writes each
 * record, joined by ',' (a tenth cheaper than string_agg of row_to_json; json_agg would put ', ' and line
 * breaks between them) */
const writtenJson = (items: RawBuilder<unknown>): EmbeddedJson => ({
  array: (orderBy) => sql`array_to_json(array_agg(k order by ${orderBy}))`,
  joined: sql`cross join lateral (${items}) as k`,
})

/** each record's JSON as the database keeps it in `column` (of type json: array_to_json joins the texts as
 * they are, where a text would be parsed again as it is cast to json) */
const storedJson = (column: string): EmbeddedJson => ({
  array: (orderBy) => sql`array_to_json(array_agg(${sql.ref(`x.${column}`)} order by ${orderBy}))`,
  joined: sql``,
})

function pageStatement(db: Db, page: Query, extras: string[], columns: RawBuilder<unknown>, nested: Nested[]): Query {
  // the page is read once (a CTE named twice is computed once); each embedded list is grouped over its ids,
  // given as an array so that they are looked up through the index (a semi-join may scan the whole table)
  let q = anyTable(db).with('page', () => page)
  for (const { alias, json, of: n } of nested) {
    const parent = sql.ref(`x.${n.parentColumn}`)
    q = q.with(alias, () => sql`(select ${parent} as __of, ${json.array(sql.ref(`x.${n.orderBy}`))} as __json
      from ${sql.table(n.table)} as x ${json.joined}
      where ${parent} = any(array(select page.id from page)) group by ${parent})` as unknown as Query)
  }
  let outer = q.selectFrom('page as r')
  for (const { alias } of nested) outer = outer.leftJoin(alias, `${alias}.__of`, 'r.id')
  return outer.innerJoinLateral(sql`(${columns})`.as('j'), (join) => join.onTrue())
    .select(['r.id', ...extras.map((e) => `r.${e}`), sql<string>`row_to_json(j)::text`.as('__json')]) as unknown as Query
}
