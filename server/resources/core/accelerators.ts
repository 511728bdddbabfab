import type { CompiledQuery, RawBuilder, SqlBool } from 'kysely'
import type { BulkItems } from '../../http/columnRows.js'
import type { Caller, Flag, Scope } from '../../access.js'
import type { AnyRow, TableName } from '../../db/schema.js'
import type { Context, Result } from '../../http/endpoint.js'
import type { ParsedInput, Referent } from '../../http/fields.js'
import type { Query } from '../../http/list.js'
import type { Db, ListRequest, RecordRequest, ResourceDef } from './define.js'
import type { CallerBase } from './listStatements.js'

// The port through which the accelerators (server/resources/fast/) answer in the plain path's place
// (docs/architecture.md, "The plain path and the accelerators"): declared here, with the plain path, so that
// core/ names what it asks of them and never imports them; server/services.ts plugs an implementation in.

/** A reference a write's check asks about: the ids of `target` that field `name` names (core/checks.ts). */
export type Ask = { name: string; target: Referent; ids: number[] }

/** A scope check to make in the same statement as the reference checks: may the caller hold `flag` on every row? */
export interface ScopeAsk {
  scope: Scope
  flag: Flag
  rows: AnyRow[]
}

/** What the plain create (core/write.ts) gives a fast one for the parsed values: the new row's columns as
 * stored, and the access check of the new record (none for a site admin, or a resource anyone may create in). */
export interface CreateOf {
  row: (values: Record<string, unknown>) => AnyRow
  scopeAsk: (values: Record<string, unknown>) => ScopeAsk | undefined
}

/** What the plain create gives a fast bulk create (an array body): whether rows identical to stored records are to be
 * skipped, whether the answer holds the new records' ids alone (`?fields=id`) or whole records, the time stamped on
 * them, and the access check of the new records (none for a site admin, or a resource anyone may create in). */
export interface CreateManyOf {
  onDuplicate: 'create' | 'skip'
  answerIds: boolean
  now: string
  scope: { scope: Scope; flag: Flag } | null
}

/** The points where an accelerator may answer in the plain path's place. */
export const PATHS = ['rule', 'fetch', 'detail', 'checks', 'create', 'createMany', 'page', 'list', 'statement'] as const
export type Path = (typeof PATHS)[number]

/** How many times each path answered: the accelerator's (`fast`), or the plain one after it declined. */
export type PathCounts = Record<Path, { fast: number; plain: number }>

/** A page of a list whose records the database writes as JSON: how to run a page's query, how its rows become
 * the records' texts, and, for an unfiltered top-level list, its page with its count from a compiled statement. */
export interface JsonPages {
  run: (page: Query, extras?: string[]) => Promise<AnyRow[]>
  texts: (rows: AnyRow[]) => Promise<string[]>
  planned?: (limit: number, offset: number) => CompiledQuery<AnyRow> | null
}

export interface Accelerators {
  readonly on: boolean
  readonly answered: PathCounts
  /** the access rule of `r` for the caller, compiled once per resource, flag and kind of caller */
  rule(def: Referent, caller: Caller, flag: Flag): RawBuilder<SqlBool> | null
  /** the record `id` with `__can_<flag>` for each flag (undefined: missing or unreadable): a compiled statement,
   * made narrowed first */
  fetch(db: Db, def: Referent, caller: Caller, id: number, flags: Flag[]): Promise<AnyRow | undefined> | null
  /** a detail's answer written by the database (undefined: missing or unreadable), read with the caller's
   * details that arrive meanwhile (alone, when its computed fields read the request's origin and clock) */
  detail<T extends TableName>(
    db: Db,
    def: ResourceDef<T>,
    caller: Caller,
    id: number,
    req: RecordRequest,
  ): Promise<string | undefined> | null
  /** a write's check statement (core/checks.ts) from its compiled plan */
  checks(owner: object, caller: Caller, asks: Ask[], scopeAsk?: ScopeAsk): CompiledQuery<AnyRow> | null
  /** a single create, its body parsed, made in one statement with its checks (batched with others of its shape) */
  create<T extends TableName>(
    ctx: Context,
    def: ResourceDef<T>,
    parsed: ParsedInput,
    of: CreateOf,
  ): Promise<Result | null>
  /** a bulk create (the items of an array body) of one shape and scope row made in one statement with its checks;
   * null when the plain create must make it (then nothing was written) */
  createMany<T extends TableName>(
    ctx: Context,
    def: ResourceDef<T>,
    items: BulkItems,
    of: CreateManyOf,
  ): Promise<Result | null>
  /** the pages of a list written by the database; `base`, for a top-level list, lets an unfiltered page be compiled once */
  pages<T extends TableName>(db: Db, def: ResourceDef<T>, req: ListRequest, base?: CallerBase): JsonPages | null
  /** A list's answer, read by `read` or with the same list asked meanwhile by the same caller: the same path,
   * query and host (`key`, which holds them with the caller's id and kind); null when `read` alone answers it */
  list(db: Db, def: object, key: string, read: () => Promise<Result>): Promise<Result> | null
  /** a statement of an endpoint's own (a review decision's), compiled once per `owner`, kind of caller and `shape`
   * with stand-ins (standIns.ts: the caller is slot 0, `standIns(set)` the others), bound to this request's
   * `slots`; null when it cannot be planned so (then the endpoint compiles it for this request) */
  statement(...args: OwnStatement): CompiledQuery<AnyRow> | null
}

/** An endpoint's own statement as it is asked for: whose it is, for whom, its shape, this request's values (`slots`),
 * the stand-ins of each of two compilations, and how to compile it for a caller and slots. */
export type OwnStatement = [
  owner: object,
  caller: Caller,
  shape: string,
  slots: unknown[],
  standIns: (set: 0 | 1) => unknown[],
  compile: (caller: Caller, slots: unknown[]) => CompiledQuery,
]
