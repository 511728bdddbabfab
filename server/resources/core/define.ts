import type { Expression, Kysely, RawBuilder, Transaction } from 'kysely'
import type { Caller, Flag, Scope } from '../../access.js'
import type { AnyRow, AnyTables, Column, DB, Row, TableName } from '../../db/schema.js'
import type { Context, Handler, Result } from '../../http/endpoint.js'
import type { FieldPlan, Fields, TableFields } from '../../http/fields.js'
import type { Query } from '../../http/list.js'

// The declaration of a resource of the API, typed over its table: its wire fields, access rule and
// hooks (docs/architecture.md, "Why resources are declared as data"); and what is worked out of it once, when it
// is defined (compile.ts), for every request to use.

export type Db = Kysely<DB> | Transaction<DB>
export type { Query }

/** What a list's statements may use of their request (a narrowed Context): the part a statement compiled
 * once is planned for (the caller's kind, the query) and the values it takes at each request (list.ts). */
export interface ListRequest {
  caller: Caller
  query: Record<string, string>
  /** scheme://host of the request, for absolute URLs in records */
  origin: string
  /** the server's clock when the list was asked for (a job's lease is judged against it) */
  now: Date
}

/** What a record's computed fields (ResourceDef.computed) may use of their request. */
export type RecordRequest = Pick<ListRequest, 'origin' | 'now'>

/** A computed field's SQL over the record `r`: one expression, or, when it reads the request (its origin, its
 * clock), a function making it for each request. */
export type ComputedField = Expression<unknown> | ((req: RecordRequest) => Expression<unknown>)

/** The names of a resource's computed fields, known from its declaration. */
export const computedNames = (def: Pick<ResourceDef, 'computed'>): string[] => Object.keys(def.computed ?? {})

/** Whether some computed field of the resource reads the request (then its records' SQL is made for each). */
export const computedOfRequest = (def: Pick<ResourceDef, 'computed'>): boolean =>
  Object.values(def.computed ?? {}).some((f) => typeof f === 'function')

/** A resource's computed fields' SQL for a request (undefined when it has none). */
export function computedFor(
  def: Pick<ResourceDef, 'computed'>,
  req: RecordRequest,
): Record<string, Expression<unknown>> | undefined {
  if (!def.computed) return undefined
  const out: Record<string, Expression<unknown>> = {}
  for (const [name, f] of Object.entries(def.computed)) out[name] = typeof f === 'function' ? f(req) : f
  return out
}

/** A stored record of table T as the hooks see it, with any computed fields under their wire names. */
export type Rec<T extends TableName> = Row<T> & { [computed: string]: unknown }

export interface ListOptions {
  /** the number of records of `base` when the request has no filters, cheaper than counting them */
  count?: () => Promise<number>
  /** a page of `ordered` (all of `base`, by id) when the request has no filters or ordering, cheaper than
   * LIMIT/OFFSET (e.g. a keyset seek); the same rows as `pageOf(ordered, limit, offset)`, with what `count`
   * would answer when the page's statement read it too */
  page?: (ordered: Query, limit: number, offset: number, run: PageRun) => Promise<PageRows>
  /** `count` and `page` answer for the request's filters too (ResourceDef.listVia), not only without them */
  filtered?: boolean
}

/** A page's rows, and the number of records of the whole list when the statement read it beside them. */
export interface PageRows {
  rows: AnyRow[]
  count?: number
}

/** Runs a page's query (a query over the records as `r`, limited to the page): its rows, each with `id`,
 * the record (its columns, or its JSON text as `__json`) and the named `extras` the query selects. */
export type PageRun = (page: Query, extras?: string[]) => Promise<AnyRow[]>

/** A list read another way (ResourceDef.listVia): the records the caller may read before the request's
 * filters, as `r`, and the count and pages of the filtered list (ListOptions, with `filtered`). */
export interface ListVia {
  base: Query<{}>
  options: ListOptions
}

/** The paths a resource may expect to be accelerated (ResourceDef.accelerated). */
export type AcceleratedPath = 'create' | 'detail' | 'list'

/** A resource as its module declares it (defineResource makes it a ResourceDef). */
export interface ResourceDeclaration<T extends TableName = TableName> {
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
  /** columns set to the current time on create, unless the request gave them (a creationDate kept as given) */
  stamps?: Column<T>[]
  /** 'admin': only site admins may list (403 for others); false: no list endpoint */
  list?: 'admin' | false
  /** flag needed to create / update / delete; false: method not allowed */
  create?: Flag | false
  update?: Flag | false
  destroy?: Flag | false
  /** POST accepts a JSON array, all or nothing */
  bulk?: boolean
  /** the columns whose values make two records the same, for a create's `?onDuplicate=skip` (duplicates.ts) */
  identity?: Column<T>[]
  /** identity columns the lookup of a stored twin compares on the row only (as `column + 0`), so that the planner
   * never walks an index that leads with them: the rest of the identity is what finds the twin (duplicates.ts) */
  identityOnRow?: Column<T>[]
  /** wire names that an update may change; default: every writable field */
  updatable?: string[]
  /** fields the database computes for each record, by wire name: SQL expressions over the record `r` (or, for
   * one that reads the request's origin or clock, a function making it), e.g. an address or a json column the
   * database keeps in the record's row (an embedded list, migration 2026_11_24_0004). A field given here is
   * rendered as the expression's value, whether or not it has a column. Every path selects them: a list's
   * statement, a detail's and a write's answer (read.ts, render), and the JSON the database writes
   * (fast/jsonRecord.ts). */
  computed?: Record<string, ComputedField>
  /** fields read for a page of records in one more query, under their wire names, where SQL cannot give them
   * as the API renders them (a sensor array's sensors are whole sensor records, rendered by their declaration);
   * a resource with it has its records rendered by the server (toJson), never by the database */
  embed?: (db: Db, rows: Rec<T>[], ctx: Context) => Promise<void>
  /** checks of the values alone beyond field types: a pure function of the parsed values (and, on update, the
   * stored record), with no database and nothing of the caller; throws a 400 with field errors. Run on every
   * create and update, for each item whose fields, references and access passed, before `validate`
   * (validateItems, core/checks.ts). */
  checkValues?: (values: Record<string, unknown>, existing: Rec<T> | null) => void
  /** checks of the values against stored records (e.g. a media file's length), every item at once; per item,
   * its field errors. Run on every create and update, over the items that passed the other checks, after them. */
  checkStored?: (
    db: Db,
    items: Record<string, unknown>[],
    existing: Rec<T> | null,
  ) => Promise<Record<string, string[]>[]>
  /** checkStored of a new record as an SQL condition over its columns' values, so that a single create makes it in
   * its one statement (fast/create.ts). It must be false wherever checkStored finds something wrong, and may be
   * false where it does not: such a create is made again the ordinary way, which runs checkStored. */
  storedCondition?: (column: (name: Column<T>) => Expression<unknown>) => Expression<boolean>
  /** The columns storedCondition reads, when it holds for every row of a group sharing the `by` columns wherever it
   * holds for the group's greatest value of each `greatest` column (a tag fits its media file when the latest end
   * and the highest frequency among the file's new tags do): a batch of creates (fast/createBatch.ts) then makes it
   * once a group instead of once a row. */
  storedConditionGroups?: { by: Column<T>[]; greatest: Column<T>[] }
  /** checks beyond field types that may read the database or the caller (e.g. a job's parameters); throw a 400.
   * Run after checkValues. `existing` is the stored row on update. */
  validate?: (ctx: Context, values: Record<string, unknown>, existing: Rec<T> | null) => Promise<void> | void
  /** after the row is written, in the same transaction */
  afterWrite?: (
    trx: Transaction<DB>,
    row: Rec<T>,
    values: Record<string, unknown>,
    ctx: Context,
    created: boolean,
  ) => Promise<void>
  /** like afterWrite, for updates alone: a create stays one statement (and may be accelerated) */
  afterUpdate?: (trx: Transaction<DB>, row: Rec<T>, values: Record<string, unknown>, ctx: Context) => Promise<void>
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
  listFilter?: <O>(qb: Query<O>, req: Pick<ListRequest, 'caller' | 'query'>) => Query<O>
  /** a cheaper way to the list a request asks for (e.g. one tag set's tags: the rule checked once for the
   * set, counts kept by triggers); null: the list is read the usual way */
  listVia?: {
    /** the column whose record, once readable, makes every record readable (`allReadableWith`, access.ts): the
     * list checks the rule once for it; a rule that does not say so is refused where the resource is defined */
    readableWith: string
    list: (db: Db, caller: Caller, query: Record<string, string>, services: Context['services']) => ListVia | null
  }
  /** the query parameters listFilter reads, for the OpenAPI document */
  listFilterParams?: Fields
  /** the paths the accelerators must take for this resource (server/resources/fast/): a declaration they cannot
   * take them for (a hook or a field they do not handle) is refused when its endpoints are made, at start-up */
  accelerated?: AcceleratedPath[]
}

/** A declared resource with what compile.ts worked out of its declaration when it was defined. */
export interface ResourceDef<T extends TableName = TableName> extends ResourceDeclaration<T> {
  /** not enumerable, so that a copy of a definition (`{ ...tags, embed }`) is not mistaken for one: it must be
   * defined again */
  readonly compiled: CompiledResource
}

/** What every request uses of a declaration, worked out once when it is defined (compile.ts). */
export interface CompiledResource {
  /** its fields: a create's body, a record's columns and its rendering */
  readonly fields: FieldPlan
  /** the fields an update may set (`updatable`, else every writable field) */
  readonly updatable: FieldPlan
  /** how many records at a time are inserted (insert.ts) */
  readonly bulk: BulkPlan
  /** its records as JSON written by the database (recordJson.ts) */
  readonly json: RecordJson
}

export interface BulkPlan {
  /** the array type of each column a create may give: its fields', its owner's and its stamps' (list
   * fields have none, and rows with them go through kysely) */
  readonly arrayTypes: ReadonlyMap<string, string>
  /** the columns that store exactly the value given, so a row as given is the row as stored: numbers
   * (validated finite, and integers in range), booleans and ids, and the stamps (timestamps to the
   * second, as the columns keep them); none when the records get more than their columns (computed, embed) or
   * the writes do more (afterWrite) */
  readonly exact: ReadonlySet<string>
  /** the columns the records are made of */
  readonly columns: readonly string[]
}

/** A resource's records as the database writes them, as JSON (recordJson.ts). */
export interface RecordJson {
  /** how a record read over the row `r` (a detail, a list's page) is written; null when the database cannot write
   * it (an `embed`, a field without an SQL form): then its details and lists are rendered by toJson */
  readonly record: RecordColumns | null
  /** the columns of a record over the row named by its table (a create's RETURNING); null when it has `computed`
   * fields or an `embed`, or a field without an SQL form */
  readonly returned: RawBuilder<unknown> | null
}

/** The columns of a record as the database writes it, for a request, and whether they depend on the request
 * (computed fields read its origin and clock). */
export interface RecordColumns {
  columns: (req: RecordRequest) => RawBuilder<unknown>
  ofRequest: boolean
}

/** Work that must wait until a transaction committed (e.g. removing stored files of deleted rows). */
export type AfterCommit = () => Promise<void>

/** The database as code written for every table sees it (see AnyRow): the declarations it runs are
 * typed over their tables where they are written. */
export const anyTable = (db: Db | Kysely<AnyTables>) => db as unknown as Kysely<AnyTables>

/** Rows read from table T by code written for every table. */
export const recs = <T extends TableName>(rows: AnyRow[]) => rows as Rec<T>[]
