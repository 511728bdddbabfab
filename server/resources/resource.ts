import {
  DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql,
  type CompiledQuery, type Transaction,
} from 'kysely'
import { rowColumns, valueColumns, type Caller, type Flag, type Scope } from '../access.js'
import type { AnyRow, AnyTables, Column, DB, Row, TableName } from '../db/schema.js'
import { localTimestamp } from '../db/time.js'
import type { Context, Endpoint, Handler, Method, Result } from '../http/endpoint.js'
import { ApiError, badRequest, forbidden, MSG, notFound } from '../http/errors.js'
import { parseInput, toColumns, toJson, INT_MAX, type Fields, type FieldType, type InputMode, type Referent, type TableFields } from '../http/fields.js'
import { applyFilters, applyOrdering, pageIfAny, paginate, type Query } from '../http/list.js'

// A resource of the API described as data: its table, wire fields and access
// rule. From that one description come its list and detail endpoints, the
// reference checks of every write, and its part of the schema documents.
// Anything a resource does beyond plain records goes into its hooks.

export type Db = Kysely<DB> | Transaction<DB>
export type { Query }

/** A stored record of table T as the hooks see it, with any computed fields (embed) under their wire names. */
export type Rec<T extends TableName> = Row<T> & { [computed: string]: unknown }

export interface ResourceDef<T extends TableName = TableName> {
  /** path segment and schema key, e.g. 'tag' */
  name: string
  /** 'Tag' -> OPTIONS names 'Tag List' / 'Tag Instance' */
  title: string
  description?: string
  table: T
  fields: TableFields<T>
  /** who may do what to a stored record */
  scope: Scope
  /** the rule a new record (or an updated one, by its new values) must pass; null: anyone may create */
  createScope?: Scope | null
  /** column set to the caller's id on create */
  owner?: Column<T>
  /** columns set to the current time on create */
  stamps?: Column<T>[]
  /** 'admin': only site admins may list (403 for others); false: no list endpoint */
  list?: 'admin' | false
  /** flag needed to create / update / delete; false: method not allowed */
  create?: Flag | false
  update?: Flag | false
  destroy?: Flag | false
  /** POST accepts a JSON array, all or nothing */
  bulk?: boolean
  /** wire names that an update may change; default: every writable field */
  updatable?: string[]
  /** add computed fields (under their wire names) to rows about to be rendered */
  embed?: (db: Db, rows: Rec<T>[], ctx: Context) => Promise<void>
  /** checks beyond field types; throw a 400. `existing` is the stored row on update. */
  validate?: (ctx: Context, values: Record<string, unknown>, existing: Rec<T> | null) => Promise<void> | void
  /** after the row is written, in the same transaction */
  afterWrite?: (trx: Transaction<DB>, row: Rec<T>, values: Record<string, unknown>, ctx: Context, created: boolean) => Promise<void>
  /** before the row is deleted, in the same transaction; may answer what to do once the deletion
   * committed (e.g. remove stored files), which runs only then */
  beforeDelete?: (trx: Transaction<DB>, row: Rec<T>, ctx: Context) => Promise<AfterCommit | void>
  /** every method of both endpoints is for site admins only (403 for others, and left out of their
   * coreapi document) */
  siteAdminsOnly?: boolean
  /** turn parsed column values into what is stored (e.g. hash a password), before insert or update */
  transform?: (cols: AnyRow, values: Record<string, unknown>, ctx: Context) => Promise<void> | void
  /** before a list is read (e.g. create a default record) */
  beforeList?: (ctx: Context) => Promise<void>
  /** POST's handler in place of the generated one (e.g. a multipart upload); the declaration still
   * describes the records it creates */
  createHandler?: Handler
  /** runs around every write (POST, PUT, PATCH, DELETE) of the resource, e.g. to forget cached state
   * before and after it */
  aroundWrite?: (ctx: Context, write: () => Promise<Result>) => Promise<Result>
  /** extra list filters beyond the fields' equality filters */
  listFilter?: <O>(qb: Query<O>, ctx: Context) => Query<O>
  /** the query parameters listFilter reads, for the OpenAPI document */
  listFilterParams?: Fields
}

/** Work that must wait until a transaction committed (e.g. removing stored files of deleted rows). */
export type AfterCommit = () => Promise<void>

/** The database as code written for every table sees it (see AnyRow): the declarations it runs are
 * typed over their tables where they are written. */
const anyTable = (db: Db) => db as unknown as Kysely<AnyTables>

/** Rows read from table T by code written for every table. */
const recs = <T extends TableName>(rows: AnyRow[]) => rows as Rec<T>[]

/** A resource's declaration, its types checked against its table. */
export function defineResource<T extends TableName>(def: ResourceDef<T>): ResourceDef<T> {
  return def
}

// ---- reading ----

/** The records of `def` the caller holds `flag` on, as `r`. */
export function readable(db: Db, def: Referent, caller: Caller, flag: Flag = 'read'): Query<{}> {
  return records(db, def)
    .where((eb) => def.scope.allows(eb, caller, rowColumns('r'), flag))
}

/** Every record of `def`, as `r`, whoever the caller is. */
export function records(db: Db, def: { table: TableName }): Query<{}> {
  return anyTable(db).selectFrom(`${def.table} as r`)
}

/** Rows -> JSON records, with the resource's embedded fields. */
export async function render<T extends TableName>(ctx: Context, def: ResourceDef<T>, rows: Rec<T>[], db: Db = ctx.db): Promise<Record<string, unknown>[]> {
  if (def.embed && rows.length) await def.embed(db, rows, ctx)
  return rows.map((row) => toJson(def.fields, row))
}

/** Query parameters that never narrow a list. */
const PAGING_PARAMS = new Set(['page', 'page_size', 'ordering', 'format'])

export interface ListOptions {
  /** the number of records of `base` when the request has no filters, cheaper than counting them */
  count?: () => Promise<number>
  /** a page of `ordered` (all of `base`, by id) when the request has no filters or ordering, cheaper than
   * LIMIT/OFFSET (e.g. a keyset seek); the same rows as `ordered.limit(limit).offset(offset)` */
  page?: (ordered: Query, limit: number, offset: number) => Promise<AnyRow[]>
}

/** A paginated list of `def` records from a query over `r` (already limited to what the caller may read).
 * Without a cheaper count the page and the count are read in one statement (the count as a subquery). */
export async function listOf<T extends TableName>(ctx: Context, def: ResourceDef<T>, base: Query<{}>, opts: ListOptions = {}): Promise<Result> {
  const { count, rows, countedRows } = listReads(ctx, def, base, opts)
  return { body: await paginate(ctx, count, rows, countedRows) }
}

/** listOf when the requested page has records; null when it is empty or the request's page is `last` or
 * malformed (the caller then answers through listOf, after any checks it skipped). The page and the count
 * are read together: in one statement, or side by side when the count is a cheaper one. */
async function listPageIfAny<T extends TableName>(ctx: Context, def: ResourceDef<T>, base: Query<{}>, opts: ListOptions): Promise<Result | null> {
  const { count, rows, countedRows } = listReads(ctx, def, base, opts)
  const envelope = await pageIfAny(ctx, countedRows ?? (async (limit, offset) => {
    const [total, page] = await Promise.all([count(), rows(limit, offset)])
    return { rows: page, count: total }
  }))
  return envelope && { body: envelope }
}

function listReads<T extends TableName>(ctx: Context, def: ResourceDef<T>, base: Query<{}>, opts: ListOptions) {
  const filtered = applyFilters(base, def.fields, ctx.query)
  const filteredMore = def.listFilter ? def.listFilter(filtered, ctx) : filtered
  const unfiltered = Object.keys(ctx.query).every((k) => PAGING_PARAMS.has(k))
  const byId = unfiltered && (ctx.query.ordering ?? 'id') === 'id'
  const counter = filteredMore.select((eb) => eb.fn.countAll().as('count'))
  const ordered = applyOrdering(filteredMore.selectAll('r'), def.fields, ctx.query)
  const cheapCount = opts.count && unfiltered ? opts.count : null
  const page = opts.page && byId ? opts.page : (q: Query, limit: number, offset: number) => q.limit(limit).offset(offset).execute()
  return {
    count: async () => cheapCount ? cheapCount() : Number((await counter.executeTakeFirst())?.count ?? 0),
    rows: async (limit: number, offset: number) => render(ctx, def, recs<T>(await page(ordered, limit, offset))),
    countedRows: cheapCount ? undefined : async (limit: number, offset: number) => {
      const rows = await ordered.select(() => counter.as('__count')).limit(limit).offset(offset).execute()
      const count = rows.length ? Number(rows[0].__count) : null
      for (const r of rows as AnyRow[]) delete r.__count
      return { rows: await render(ctx, def, recs<T>(rows)), count }
    },
  }
}

export function parseId(raw: string | undefined): number | null {
  if (!raw || !/^\d{1,10}$/.test(raw)) return null
  const n = Number(raw)
  return n >= 1 && n <= INT_MAX ? n : null
}

export interface Fetched<T extends TableName> { row: Rec<T>; can: (flag: Flag) => boolean }

const ALL_FLAGS: Flag[] = ['read', 'write', 'launch_job', 'admin']

/** The record `id` with the caller's flags on it; 404 when it is missing or not readable.
 * `need`: the flags `can` will be asked about (each is a subquery to plan and run; read is always checked). */
export async function fetchRecord<T extends TableName>(db: Db, def: ResourceDef<T>, caller: Caller, rawId: string | number | undefined,
  need: Flag[] = ALL_FLAGS): Promise<Fetched<T>> {
  const id = typeof rawId === 'number' ? rawId : parseId(rawId)
  if (id === null) throw notFound()
  const flags: Flag[] = need.includes('read') ? need : ['read', ...need]
  const row = (await db.executeQuery<AnyRow>(fetchQuery(def, caller, id, flags))).rows[0]
  if (!row || !row.__can_read) throw notFound()
  const can = Object.fromEntries(flags.map((f) => [f, !!row[`__can_${f}`]]))
  for (const f of flags) delete row[`__can_${f}`]
  return {
    row: recs<T>([row])[0],
    can: (f) => {
      if (!(f in can)) throw new Error(`fetchRecord: flag ${f} was not fetched`)
      return can[f]
    },
  }
}

// A record fetch is the most frequent statement: its SQL (the access rule's subqueries included) is built
// and compiled once per resource, flags and admin-ness, with stand-ins for the caller's id and the record's
// id that each request replaces in the parameters. (The rules use nothing else of the caller.)
const CALLER_STAND_IN = -1_987_654_321
const ID_STAND_IN = -1_987_654_322
const fetchQueries = new Map<string, CompiledQuery<AnyRow>>()

function fetchQuery(def: Referent, caller: Caller, id: number, flags: Flag[]): CompiledQuery<AnyRow> {
  const key = `${def.name}|${flags.join(',')}|${caller.isAdmin}`
  let compiled = fetchQueries.get(key)
  if (!compiled) {
    const standIn: Caller = { id: CALLER_STAND_IN, username: '', isAdmin: caller.isAdmin }
    compiled = compiler.selectFrom(`${def.table} as r`)
      .selectAll('r')
      .select((eb) => flags.map((f) => sql<boolean>`${def.scope.allows(eb, standIn, rowColumns('r'), f)}`.as(`__can_${f}`)))
      .where('r.id', '=', ID_STAND_IN)
      .compile()
    fetchQueries.set(key, compiled)
  }
  const parameters = compiled.parameters.map((p) => p === CALLER_STAND_IN ? caller.id : p === ID_STAND_IN ? id : p)
  return { ...compiled, parameters }
}

/** Builds and compiles PostgreSQL statements; never connects (both database kinds speak PostgreSQL's SQL). */
const compiler = new Kysely<AnyTables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
})

/** fetchRecord, then 403 unless the caller holds `flag`. */
export async function fetchFor<T extends TableName>(db: Db, def: ResourceDef<T>, caller: Caller, rawId: string | number | undefined, flag: Flag): Promise<Rec<T>> {
  const { row, can } = await fetchRecord(db, def, caller, rawId, [flag])
  if (!can(flag)) throw forbidden()
  return row
}

// ---- writing ----

/** Every pk field must name a record the caller can read; otherwise it is reported exactly like a missing one.
 * On update (`existing` given) a reference left as it is stored is not checked again: a caller who may
 * change a shared record can send it back whole even when it points at something only its owner can read.
 * All fields are checked in one statement. */
export async function checkReferences<T extends TableName>(db: Db, def: ResourceDef<T>, caller: Caller, items: Record<string, unknown>[], existing: Rec<T> | null = null): Promise<Record<string, string[]>[]> {
  return (await checkAccess(db, def, caller, items, existing)).errors
}

/** A scope check to make in the same statement as the reference checks: may the caller hold `flag` on every row? */
interface ScopeAsk { scope: Scope; flag: Flag; rows: AnyRow[] }

/** checkReferences and, in the same statement, a scope check (`allowed`: null when none was asked). */
async function checkAccess<T extends TableName>(db: Db, def: ResourceDef<T>, caller: Caller, items: Record<string, unknown>[], existing: Rec<T> | null,
  scopeAsk?: ScopeAsk): Promise<{ errors: Record<string, string[]>[]; allowed: boolean | null }> {
  const errors: Record<string, string[]>[] = items.map(() => ({}))
  const asks: Array<{ name: string; kept: number | null; target: Referent; ids: number[] }> = []
  for (const [name, f] of Object.entries(def.fields)) {
    if (f.type !== 'pk' || !f.target || f.readOnly) continue
    const kept = existing && f.column ? Number(existing[f.column]) : null
    const ids = [...new Set(items.map((v) => v[name]).filter((v): v is number => typeof v === 'number' && v !== kept))]
    if (ids.length) asks.push({ name, kept, target: f.target(), ids })
  }
  const keys = scopeAsk ? scopeKeys(scopeAsk.scope, scopeAsk.rows) : []
  if (!asks.length && !keys.length) return { errors, allowed: scopeAsk ? true : null }
  const { found, allowed } = await readableIds(db, caller, asks, scopeAsk ? { ...scopeAsk, rows: keys } : undefined)
  asks.forEach(({ name, kept }, a) => {
    items.forEach((v, i) => {
      if (typeof v[name] === 'number' && v[name] !== kept && !found[a].has(v[name] as number)) errors[i][name] = [MSG.pkMissing(v[name])]
    })
  })
  return { errors, allowed: scopeAsk ? allowed : null }
}

/** The rows with distinct values in the scope's columns. */
function scopeKeys(scope: Scope, rows: AnyRow[]): AnyRow[] {
  const seen = new Map<string, AnyRow>()
  for (const row of rows) {
    const key = scopeKey(scope, row)
    if (!seen.has(key)) seen.set(key, row)
  }
  return [...seen.values()]
}

/** A row's values in the scope's columns as one string (distinct values, distinct strings). */
function scopeKey(scope: Scope, row: AnyRow): string {
  let key = ''
  for (const c of scope.columns) {
    const v = row[c]
    key += (v === null || v === undefined ? 'null' : typeof v === 'number' ? String(v) : JSON.stringify(v)) + ','
  }
  return key
}

/** Which of `ids` of each target the caller can read, and whether it holds the flag on every scope row:
 * one statement (a union of one select per target and one per scope row). */
async function readableIds(db: Db, caller: Caller, asks: Array<{ target: Referent; ids: number[] }>,
  scopeAsk?: ScopeAsk): Promise<{ found: Set<number>[]; allowed: boolean }> {
  const found = asks.map(() => new Set<number>())
  const selects = asks.map(({ target, ids }, a) => readable(db, target, caller)
    .select([sql<number>`${a}::int`.as('ask'), 'r.id'])
    .where(sql<boolean>`r.id = any(${ids}::int[])`))
  // a scope row answers (-1, its index) when allowed
  for (const [k, row] of (scopeAsk?.rows ?? []).entries()) {
    selects.push(anyTable(db).selectNoFrom([sql<number>`-1`.as('ask'), sql<number>`${k}::int`.as('id')])
      .where((eb) => scopeAsk!.scope.allows(eb, caller, valueColumns(row), scopeAsk!.flag)))
  }
  const union = selects.slice(1).reduce((u, q) => u.unionAll(q), selects[0])
  let allowedRows = 0
  for (const r of await union.execute()) {
    if (r.ask === -1) allowedRows++
    else found[r.ask].add(Number(r.id))
  }
  return { found, allowed: allowedRows === (scopeAsk?.rows.length ?? 0) }
}

/** Does the caller hold `flag` under `scope` for records with these column values? One query per distinct key. */
export async function scopeAllows(db: Db, scope: Scope, caller: Caller, rows: AnyRow[], flag: Flag): Promise<boolean> {
  if (caller.isAdmin) return true
  const seen = new Set<string>()
  for (const row of rows) {
    const key = scopeKey(scope, row)
    if (seen.has(key)) continue
    seen.add(key)
    const r = await anyTable(db).selectNoFrom((eb) => sql<boolean>`${scope.allows(eb, caller, valueColumns(row), flag)}`.as('ok'))
      .executeTakeFirst()
    if (!r?.ok) return false
  }
  return true
}

function hasErrors(errors: Record<string, unknown>[]): boolean {
  return errors.some((e) => Object.keys(e).length > 0)
}

/** `scopeOf`: the scope check the caller's write will need, made with the reference checks (see createRecords). */
async function validateItems<T extends TableName>(ctx: Context, def: ResourceDef<T>, data: unknown[], mode: InputMode, existing: Rec<T> | null,
  scopeOf?: (values: Record<string, unknown>[]) => ScopeAsk) {
  const parsed = data.map((d) => parseInput(writableFields(def, mode), d, mode))
  const errors = parsed.map((p) => ({ ...p.errors }) as Record<string, string[]>)
  const scopeAsk = scopeOf?.(parsed.filter((p) => !Object.keys(p.errors).length).map((p) => p.values))
  const checked = await checkAccess(ctx.db, def, ctx.caller, parsed.map((p) => p.values), existing, scopeAsk)
  checked.errors.forEach((e, i) => Object.assign(errors[i], e))
  const scope = scopeAsk ? { keys: scopeKeys(scopeAsk.scope, scopeAsk.rows), allowed: checked.allowed! } : null
  for (let i = 0; i < parsed.length; i++) {
    if (Object.keys(errors[i]).length || !def.validate) continue
    try {
      await def.validate(ctx, parsed[i].values, existing)
    } catch (e) {
      if (e instanceof ApiError && e.statusCode === 400 && !Array.isArray(e.body)) Object.assign(errors[i], e.body)
      else throw e
    }
  }
  return { values: parsed.map((p) => p.values), errors, scope }
}

const updatableFields = new WeakMap<object, Fields>()

function writableFields<T extends TableName>(def: ResourceDef<T>, mode: InputMode): Fields {
  if (mode === 'create' || !def.updatable) return def.fields
  let fields = updatableFields.get(def)
  if (!fields) updatableFields.set(def, fields = Object.fromEntries(Object.entries(def.fields).filter(([n]) => def.updatable!.includes(n))))
  return fields
}

/** The items whose fields naming the scope's target have no errors (the target exists and is readable), so
 * whether the caller may write it can be said without revealing anything. */
function targetKnown<T extends TableName>(def: ResourceDef<T>, scope: Scope, values: Record<string, unknown>[], errors: Record<string, string[]>[]) {
  const names = Object.entries(def.fields).filter(([, f]) => f.column && scope.columns.includes(f.column)).map(([n]) => n)
  return values.filter((v, i) => names.every((n) => !errors[i][n] && n in v))
}

/** The fields an update's documents describe: those it may change, and the read-only ones (which the
 * documents leave out, or list as ignored). */
function documentedFields<T extends TableName>(def: ResourceDef<T>): Fields {
  return def.updatable ? Object.fromEntries(Object.entries(def.fields).filter(([n, f]) => f.readOnly || def.updatable!.includes(n))) : def.fields
}

/** rows per INSERT (PostgreSQL takes at most 65,535 parameters in one statement) */
const INSERT_CHUNK = 1000

/** Create one record or, for bulk resources, an array of them in one transaction. */
export async function createRecords<T extends TableName>(ctx: Context, def: ResourceDef<T>): Promise<Result> {
  const body = await ctx.body()
  const many = Array.isArray(body)
  if (many && !def.bulk) throw badRequest({ non_field_errors: [MSG.notDict('list')] })
  const items = many ? body as unknown[] : [body]
  if (many && items.length === 0) throw badRequest({ non_field_errors: ['This list may not be empty.'] })
  const now = localTimestamp()
  const rowsOf = (values: Record<string, unknown>[]) => values.map((v) => {
    const cols = toColumns(def.fields, v)
    if (def.owner) cols[def.owner] = ctx.caller.id
    for (const s of def.stamps ?? []) cols[s] = now
    return cols
  })
  const createScope = def.createScope === undefined ? def.scope : def.createScope
  const flag = def.create || 'write'
  const checkScope = createScope && !ctx.caller.isAdmin ? createScope : null
  // the scope's columns of each new row (what rowsOf would give them), without building whole rows twice
  const stamps: readonly string[] = def.stamps ?? []
  const columnField = new Map<string, string>(Object.entries(def.fields).filter(([, f]) => f.column).map(([n, f]) => [f.column!, n]))
  const scopeRowsOf = (scope: Scope, values: Record<string, unknown>[]) => values.map((v) => {
    const row: AnyRow = {}
    for (const c of scope.columns) row[c] = c === def.owner ? ctx.caller.id : stamps.includes(c) ? now : v[columnField.get(c) ?? '']
    return row
  })
  const { values, errors, scope } = await validateItems(ctx, def, items, 'create', null,
    checkScope ? (valid) => ({ scope: checkScope, flag, rows: scopeRowsOf(checkScope, valid) }) : undefined)
  if (hasErrors(errors)) {
    // readable but not writable is 403, before any field error about references (docs/decisions.md §6)
    if (checkScope && scope && !scope.allowed
      && !(await scopeAllows(ctx.db, checkScope, ctx.caller, scopeRowsOf(checkScope, targetKnown(def, checkScope, values, errors)), flag))) {
      throw forbidden()
    }
    throw badRequest(many ? errors : errors[0])
  }
  const rows = rowsOf(values)
  if (checkScope) {
    // answered with the reference checks, unless validation changed the values the scope looks at
    const keyOf = (rs: AnyRow[]) => rs.map((r) => scopeKey(checkScope, r)).join('|')
    const same = scope && keyOf(scopeKeys(checkScope, scopeRowsOf(checkScope, values))) === keyOf(scope.keys)
    if (!(same ? scope.allowed : await scopeAllows(ctx.db, checkScope, ctx.caller, rows, flag))) throw forbidden()
  }
  if (def.transform) for (let i = 0; i < rows.length; i++) await def.transform(rows[i], values[i], ctx)
  const insert = (db: Db, chunk: AnyRow[]) => insertRows(db, def, chunk)
  // one INSERT is atomic by itself: a transaction only when there is more to do
  const created = rows.length <= INSERT_CHUNK && !def.afterWrite ? await insert(ctx.db, rows) : await ctx.db.transaction().execute(async (trx) => {
    const out: Rec<T>[] = []
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) out.push(...await insert(trx, rows.slice(i, i + INSERT_CHUNK)))
    if (def.afterWrite) for (let i = 0; i < out.length; i++) await def.afterWrite(trx, out[i], values[i], ctx, true)
    return out
  })
  const json = await render(ctx, def, created)
  return { status: 201, body: many ? json : json[0] }
}

/** INSERT … RETURNING. Many rows with the same columns go as one array parameter per column, turned
 * back into rows by unnest: 15 parameters for 1,000 tags instead of 15,000, which kysely would build,
 * and the driver serialize, one by one. When every column given stores exactly the value given (see
 * BulkPlan), only what the database adds comes back: the id and the columns not given; sending the
 * rest back and parsing it again was a fifth of the work. */
async function insertRows<T extends TableName>(db: Db, def: ResourceDef<T>, rows: AnyRow[]): Promise<Rec<T>[]> {
  const columns = Object.keys(rows[0])
  const plan = bulkPlanOf(def)
  const types = columns.map((c) => plan.arrayTypes.get(c))
  if (rows.length === 1 || types.includes(undefined) || !rows.every((r) => sameKeys(r, columns))) {
    return recs<T>(await anyTable(db).insertInto(def.table).values(rows).returningAll().execute())
  }
  const added = columns.every((c) => plan.exact.has(c)) ? plan.columns.filter((c) => !columns.includes(c)) : null
  const arrays = columns.map((c, i) => {
    const values = rows.map((r) => r[c])
    return sql`${UNQUOTED.has(types[i]!) ? unquotedArray(values) : values}::${sql.raw(types[i]!)}[]`
  })
  const result = await sql<AnyRow>`insert into ${sql.table(def.table)} (${sql.join(columns.map((c) => sql.ref(c)))})
    select * from unnest(${sql.join(arrays)})
    returning ${added ? sql.join(added.map((c) => sql.ref(c))) : sql`*`}`.execute(db)
  return recs<T>(added ? result.rows.map((r, i) => Object.assign(rows[i], r)) : result.rows)
}

/** The array element type of each field type, wide enough for every column of it (an assignment cast
 * narrows it to the column's own type). */
const ARRAY_TYPES: Partial<Record<FieldType, string>> = {
  pk: 'int4', integer: 'int8', float: 'float8', boolean: 'bool', datetime: 'timestamp', string: 'text', choice: 'text',
}

/** Element types whose values (finite numbers, booleans) read back from their String() in an array
 * literal: the literal is joined here, instead of quoted and escaped value by value by the driver. */
const UNQUOTED = new Set(['int4', 'int8', 'float8', 'bool'])

const unquotedArray = (values: unknown[]) => `{${values.map((v) => v === null || v === undefined ? 'NULL' : String(v)).join(',')}}`

/** What a bulk insert needs of a resource's declaration, worked out once. */
interface BulkPlan {
  /** the array type of each column a create may give: its fields', its owner's and its stamps' (list
   * and object fields have none, and rows with them go through kysely) */
  arrayTypes: Map<string, string>
  /** the columns that store exactly the value given, so a row as given is the row as stored: numbers
   * (validated finite, and integers in range), booleans and ids, and the stamps (timestamps to the
   * second, as the columns keep them); none when the records get more than their columns (embed) or
   * the writes do more (afterWrite) */
  exact: Set<string>
  /** the columns the records are made of */
  columns: string[]
}

const bulkPlans = new WeakMap<object, BulkPlan>()

function bulkPlanOf<T extends TableName>(def: ResourceDef<T>): BulkPlan {
  let plan = bulkPlans.get(def)
  if (!plan) {
    const arrayTypes = new Map<string, string>()
    for (const f of Object.values(def.fields)) {
      const type = ARRAY_TYPES[f.type]
      if (f.column && type) arrayTypes.set(f.column, type)
    }
    if (def.owner) arrayTypes.set(def.owner, 'int4')
    const stamps: readonly string[] = def.stamps ?? []
    for (const s of stamps) arrayTypes.set(s, 'timestamp')
    const exact = new Set(def.embed || def.afterWrite ? []
      : [...arrayTypes].filter(([c, type]) => UNQUOTED.has(type) || stamps.includes(c)).map(([c]) => c))
    const columns = [...new Set(['id', ...Object.values(def.fields).flatMap((f) => f.column ? [f.column] : []),
      ...(def.owner ? [def.owner] : []), ...(def.stamps ?? [])])]
    bulkPlans.set(def, plan = { arrayTypes, exact, columns })
  }
  return plan
}

function sameKeys(row: AnyRow, columns: string[]): boolean {
  let n = 0
  for (const k in row) { if (k !== columns[n++]) return false }
  return n === columns.length
}

/** PUT (all required fields) or PATCH (any subset). */
export async function updateRecord<T extends TableName>(ctx: Context, def: ResourceDef<T>, partial: boolean): Promise<Result> {
  const flag = def.update || 'write'
  const existing = await fetchFor(ctx.db, def, ctx.caller, ctx.params.id, flag)
  const { values, errors } = await validateItems(ctx, def, [await ctx.body()], partial ? 'partial' : 'replace', existing)
  const createScope = def.createScope === undefined ? def.scope : def.createScope
  if (hasErrors(errors)) {
    // moved to a target the caller may read but not write: 403, before field errors about other references
    const known = createScope && targetKnown(def, createScope, values, errors)
    if (known?.length && Object.keys(toColumns(def.fields, values[0])).some((c) => createScope!.columns.includes(c))
      && !(await scopeAllows(ctx.db, createScope!, ctx.caller, [{ ...existing, ...toColumns(def.fields, values[0]) }], flag))) {
      throw forbidden()
    }
    throw badRequest(errors[0])
  }
  const changes = toColumns(def.fields, values[0])
  const merged = { ...existing, ...changes }
  if (createScope && createScope !== def.scope && !(await scopeAllows(ctx.db, createScope, ctx.caller, [merged], flag))) throw forbidden()
  if (createScope === def.scope && Object.keys(changes).some((c) => def.scope.columns.includes(c))
    && !(await scopeAllows(ctx.db, def.scope, ctx.caller, [merged], flag))) throw forbidden()
  if (def.transform) await def.transform(changes, values[0], ctx)
  const table: string = def.table
  const row = await ctx.db.transaction().execute(async (trx) => {
    const updated = Object.keys(changes).length
      ? recs<T>(await anyTable(trx).updateTable(table).set(changes).where('id', '=', existing.id).returningAll().execute())[0]
      : existing
    // deleted by a simultaneous request since it was read
    if (!updated) throw notFound()
    if (def.afterWrite) await def.afterWrite(trx, updated, values[0], ctx, false)
    return updated
  })
  return { body: (await render(ctx, def, [row]))[0] }
}

export async function deleteRecord<T extends TableName>(ctx: Context, def: ResourceDef<T>): Promise<Result> {
  const row = await fetchFor(ctx.db, def, ctx.caller, ctx.params.id, def.destroy || 'write')
  const table: string = def.table
  const afterCommit = await ctx.db.transaction().execute(async (trx) => {
    const then = def.beforeDelete ? await def.beforeDelete(trx, row, ctx) : undefined
    await anyTable(trx).deleteFrom(table).where('id', '=', row.id).execute()
    return then
  })
  if (afterCommit) await afterCommit()
  return { status: 204 }
}

// ---- endpoints ----

export const API = '/api/v0'

export function resourceEndpoints<T extends TableName>(def: ResourceDef<T>): Endpoint[] {
  const listMethods: Endpoint['methods'] = {}
  if (def.list !== false) {
    listMethods.GET = async (ctx) => {
      if (def.list === 'admin' && !ctx.caller.isAdmin) throw forbidden()
      if (def.beforeList) await def.beforeList(ctx)
      return listOf(ctx, def, readable(ctx.db, def, ctx.caller))
    }
  }
  const write = (handler: Handler): Handler => {
    const around = def.aroundWrite
    return around ? (ctx) => around(ctx, () => handler(ctx)) : handler
  }
  if (def.create !== false) listMethods.POST = write(def.createHandler ?? ((ctx) => createRecords(ctx, def)))

  const detailMethods: Endpoint['methods'] = {
    GET: async (ctx) => {
      const { row } = await fetchRecord(ctx.db, def, ctx.caller, ctx.params.id, ['read'])
      return { body: (await render(ctx, def, [row]))[0] }
    },
  }
  if (def.update !== false) {
    detailMethods.PUT = write((ctx) => updateRecord(ctx, def, false))
    detailMethods.PATCH = write((ctx) => updateRecord(ctx, def, true))
  }
  if (def.destroy !== false) detailMethods.DELETE = write((ctx) => deleteRecord(ctx, def))

  const record = def.fields
  const listActions: Partial<Record<Method, string>> = {}
  if (listMethods.GET) listActions.GET = 'list'
  if (listMethods.POST) listActions.POST = 'create'
  const detailActions: Partial<Record<Method, string>> = { GET: 'read' }
  if (detailMethods.PUT) Object.assign(detailActions, { PUT: 'update', PATCH: 'partial_update' })
  if (detailMethods.DELETE) detailActions.DELETE = 'delete'

  if (def.siteAdminsOnly) { guardAll(listMethods); guardAll(detailMethods) }
  const listAdminOnly: Method[] = def.siteAdminsOnly ? Object.keys(listActions) as Method[] : def.list === 'admin' ? ['GET'] : []
  const detailAdminOnly: Method[] = def.siteAdminsOnly ? Object.keys(detailActions) as Method[] : []

  return [
    {
      path: `${API}/${def.name}/`,
      name: `${def.title} List`,
      description: def.description,
      methods: listMethods,
      options: async () => (listMethods.POST ? { POST: def.fields } : undefined),
      doc: {
        keys: [def.name], actions: listActions, fields: { POST: def.fields }, record, list: true, filters: def.listFilterParams, description: def.description,
        adminOnly: listAdminOnly, bulk: !!def.bulk,
      },
    },
    {
      path: `${API}/${def.name}/:id/`,
      name: `${def.title} Instance`,
      description: def.description,
      methods: detailMethods,
      options: async (ctx) => {
        if (!detailMethods.PUT) return undefined
        try {
          const { can } = await fetchRecord(ctx.db, def, ctx.caller, ctx.params.id, [def.update || 'write'])
          return can(def.update || 'write') ? { PUT: def.fields } : undefined
        } catch { return undefined }
      },
      doc: {
        keys: [def.name], actions: detailActions, record, description: def.description, adminOnly: detailAdminOnly,
        fields: { PUT: documentedFields(def), PATCH: documentedFields(def) },
      },
    },
  ]
}

function guardAll(methods: Endpoint['methods']) {
  for (const [m, h] of Object.entries(methods) as Array<[Method, NonNullable<Endpoint['methods'][Method]>]>) {
    methods[m] = async (ctx) => {
      if (!ctx.caller.isAdmin) throw forbidden()
      return h(ctx)
    }
  }
}

/** A read-only list of `child` records belonging to a readable `parent` record, e.g. tagSet/{id}/tags/. */
export function subListEndpoint<P extends TableName, C extends TableName>(opts: {
  parent: ResourceDef<P>; child: ResourceDef<C>; segment: string; name: string
  /** limit the child query to the parent's records */
  where: (qb: Query<{}>, parentId: number) => Query<{}>
  /** the children shown: default, those the caller may read */
  base?: (ctx: Context) => Query<{}>
  /** the number of children when the request has no filters (see ListOptions.count) */
  count?: (ctx: Context, parentId: number) => Promise<number>
  /** a page of children in the default order without filters (see ListOptions.page) */
  page?: (ctx: Context, parentId: number, ordered: Query, limit: number, offset: number) => Promise<AnyRow[]>
}): Endpoint {
  return {
    path: `${API}/${opts.parent.name}/:id/${opts.segment}/`,
    name: opts.name,
    methods: {
      GET: async (ctx) => {
        const base = () => opts.base ? opts.base(ctx) : readable(ctx.db, opts.child, ctx.caller)
        const { count, page } = opts
        const listOptions = (parentId: number): ListOptions => ({
          ...(count ? { count: () => count(ctx, parentId) } : {}),
          ...(page ? { page: (ordered: Query, limit: number, offset: number) => page(ctx, parentId, ordered, limit, offset) } : {}),
        })
        // First the page with the parent's read rule as a condition of the same statement: a page with
        // records proves the parent readable. Only an empty page, a bad filter or page needs the parent
        // fetched first (404 before 400, an empty page of a readable parent).
        const id = parseId(ctx.params.id)
        if (id !== null) {
          const parentReadable = (qb: Query<{}>) => qb.where((eb) => eb.exists(
            readable(ctx.db, opts.parent, ctx.caller).select(sql<number>`1`.as('one')).where('r.id', '=', id)))
          try {
            const found = await listPageIfAny(ctx, opts.child, parentReadable(opts.where(base(), id)), listOptions(id))
            if (found) return found
          } catch (e) {
            if (!(e instanceof ApiError)) throw e
          }
        }
        const { row } = await fetchRecord(ctx.db, opts.parent, ctx.caller, ctx.params.id, ['read'])
        const parentId = Number(row.id)
        return listOf(ctx, opts.child, opts.where(base(), parentId), listOptions(parentId))
      },
    },
    doc: { keys: [opts.parent.name], actions: { GET: opts.segment }, record: opts.child.fields, list: true, filters: opts.child.listFilterParams },
  }
}

