import { sql, type Expression, type Kysely, type RawBuilder } from 'kysely'
import type { FieldDef, Fields } from '../../http/fields.js'
import {
  anyTable,
  computedFor,
  computedNames,
  computedOfRequest,
  type Db,
  type ListRequest,
  type Query,
  type RecordRequest,
  type ResourceDef,
} from '../core/define.js'
import type { AnyTables, TableName } from '../../db/schema.js'

// A resource's JSON record written by PostgreSQL: the SQL twin of toJson (http/fields.ts), built from the
// same field declarations. Lists use it, so that a page reaches the server as one JSON text per record,
// which it joins into the answer without reading the rows into objects and serialising them again, and so
// do the details of resources without a query of their own (`embed`), and the single creates of those whose
// records do not depend on the request either (no `computed` fields) (detail.ts, create.ts; docs/decisions.md §11). The answers of other writes keep toJson; test/server/resources/listRendering.test.ts checks that the two agree,
// record for record.

/** The JSON form of a column of `alias`, as toJson gives it: the column itself. Timestamps are stored to the
 * second without a zone (timestamp(0)), which row_to_json writes as their wire form 'YYYY-MM-DDThh:mm:ss'
 * (db/time.ts) without a to_char for each (docs/decisions.md §11). */
function columnJson(alias: string, f: FieldDef & { column: string }): Expression<unknown> {
  return sql.ref(`${alias}.${f.column}`)
}

/** The fields a declaration can have written by the database: columns of a JSON scalar type, and object
 * columns of type json, whose text (JSON.stringify's, toColumns in http/fields.ts) row_to_json writes as it is. */
const SCALAR = new Set(['integer', 'float', 'boolean', 'string', 'datetime', 'pk', 'choice', 'object'])

/** `select <value> as "<wire name>", ...` of a record with these fields over the row `alias`, the fields
 * without a column (or given another value) taken from `computed`: joined LATERAL as `j`, row_to_json(j) is
 * the record, written without spaces as JSON.stringify writes it; null when a readable field has no SQL form. */
export function recordColumns(
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

/** per resource, by alias: the columns of its JSON record, or null when its records are rendered by toJson */
const ownColumns = new WeakMap<object, Map<string, RawBuilder<unknown> | null>>()

/** The columns of a resource's JSON record over the row `alias` (recordColumns), for a single record the
 * database writes (a detail, a create's answer); null when the resource has `computed` fields (of the request,
 * built for each) or an `embed` (its records are rendered by toJson), or a field without an SQL form. */
export function ownRecordColumns<T extends TableName>(def: ResourceDef<T>, alias: string): RawBuilder<unknown> | null {
  let byAlias = ownColumns.get(def)
  if (!byAlias) ownColumns.set(def, (byAlias = new Map()))
  let columns = byAlias.get(alias)
  if (columns === undefined)
    byAlias.set(alias, (columns = def.embed || def.computed ? null : recordColumns(def.fields, alias)))
  return columns
}

/** A detail's JSON record as the database writes it: its columns for a request, and whether they depend on the
 * request (computed fields read its origin and clock). */
export interface DetailJson {
  columns: (req: RecordRequest) => RawBuilder<unknown>
  ofRequest: boolean
}

/** per resource: how the database writes its details, made once (a detail is the most frequent request) */
const detailJsons = new WeakMap<object, DetailJson | null>()

/** How the database writes a detail of `def` (ownRecordColumns, with the computed fields when it has them); null
 * when it cannot (an `embed`, a field without an SQL form). */
export function detailJson<T extends TableName>(def: ResourceDef<T>): DetailJson | null {
  let json = detailJsons.get(def)
  if (json === undefined) detailJsons.set(def, (json = makeDetailJson(def)))
  return json
}

function makeDetailJson<T extends TableName>(def: ResourceDef<T>): DetailJson | null {
  if (def.embed) return null
  if (!def.computed) {
    const own = ownRecordColumns(def, 'r')
    return own && { columns: () => own, ofRequest: false }
  }
  if (!recordColumns(def.fields, 'r', standInComputed(def))) return null
  // computed fields that do not read the request: the record's SQL is made once
  if (!computedOfRequest(def)) {
    const columns = recordColumns(def.fields, 'r', computedFor(def, NO_REQUEST))!
    return { columns: () => columns, ofRequest: false }
  }
  return { columns: (req) => recordColumns(def.fields, 'r', computedFor(def, req))!, ofRequest: true }
}

/** The request given to computed fields that read none of it. */
const NO_REQUEST: RecordRequest = { origin: '', now: new Date(0) }

/** Each computed field as a stand-in value: whether a record has an SQL form depends on which fields are computed,
 * not on their SQL. */
const standInComputed = (def: Pick<ResourceDef, 'computed'>): Record<string, Expression<unknown>> =>
  Object.fromEntries(computedNames(def).map((name) => [name, sql`null`]))

/** per resource: whether its lists' records are written by the database (pageJson gives a statement) */
const writesLists = new WeakMap<object, boolean>()

/** Whether pageJson gives a statement for `def`'s lists, known without building one for a request: which fields
 * `computed` gives does not depend on the request it is given. */
export function listsWrittenByDatabase<T extends TableName>(def: ResourceDef<T>): boolean {
  let writes = writesLists.get(def)
  if (writes === undefined)
    writesLists.set(def, (writes = !def.embed && recordColumns(def.fields, 'r', standInComputed(def)) !== null))
  return writes
}

/** How the records of a page of `def`, whose lists the database writes (listsWrittenByDatabase), are written
 * as JSON: the statement for `page` (a query of records as `r`, limited to a page), with rows of `id`, the
 * named `extras` of `page` and `__json`, unordered. */
export function listPageJson<T extends TableName>(
  db: Db | Kysely<AnyTables>,
  def: ResourceDef<T>,
  req: Pick<ListRequest, 'origin' | 'now'>,
): (page: Query, extras: string[]) => Query {
  const json = pageJson(db, def, req)
  if (!json) throw new Error(`the records of ${def.name} are not written by the database`)
  return json
}

/** listPageJson, or null when the resource's lists are rendered by toJson (an `embed`, or a field without an
 * SQL form). */
function pageJson<T extends TableName>(
  db: Db | Kysely<AnyTables>,
  def: ResourceDef<T>,
  req: Pick<ListRequest, 'origin' | 'now'>,
): ((page: Query, extras: string[]) => Query) | null {
  // a record without computed fields is the one a detail writes, built once; computed fields are of the request
  // (the origin, the clock), built for each
  if (def.embed) return null
  const columns = def.computed ? recordColumns(def.fields, 'r', computedFor(def, req)) : ownRecordColumns(def, 'r')
  return columns && ((page, extras) => pageStatement(db, page, extras, columns))
}

function pageStatement(db: Db | Kysely<AnyTables>, page: Query, extras: string[], columns: RawBuilder<unknown>): Query {
  return anyTable(db)
    .with('page', () => page)
    .selectFrom('page as r')
    .innerJoinLateral(sql`(${columns})`.as('j'), (join) => join.onTrue())
    .select([
      'r.id',
      ...extras.map((e) => `r.${e}`),
      sql<string>`row_to_json(j)::text`.as('__json'),
    ]) as unknown as Query
}
