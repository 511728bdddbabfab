import type { CompiledQuery, Kysely } from 'kysely'
import type { BulkItems } from '../../http/columnRows.js'
import type { Caller, Flag } from '../../access.js'
import type { AnyRow, AnyTables, TableName } from '../../db/schema.js'
import type { Context, Result } from '../../http/endpoint.js'
import type { ParsedInput, Referent } from '../../http/fields.js'
import type { Query } from '../../http/list.js'
import type {
  Accelerators,
  Ask,
  CreateManyOf,
  CreateOf,
  JsonPages,
  OwnStatement,
  PathCounts,
  ScopeAsk,
} from './accelerators.js'
import type { Db, ListRequest, Rec, RecordRequest, ResourceDef } from './define.js'
import type { CallerBase } from './listStatements.js'
import { fetchFor, fetchRecord, readable, readableRecord, type Fetched } from './read.js'
import { callerKey } from './standIns.js'

// The records of an app as its callers may read and make them (docs/architecture.md, "The plain path and the
// accelerators"): one per app, made by server/services.ts with the app's accelerators, which nothing else holds.
// Handlers and the plain path read and write through it (`ctx.services.records`) and never name the
// accelerators: each member is the plain path's, with the accelerators asked first where they may answer in its
// place, or, where the plain path has no single step to stand for (a detail or a page written by the database,
// a single create), the accelerators' answer or null.

/** Whom a read is for and where it runs: a request's context, or the same caller in its transaction. */
export interface Reader<D = Db> {
  db: D
  caller: Caller
}

export class Records {
  readonly #fast: Accelerators

  constructor(fast: Accelerators) {
    this.#fast = fast
  }

  /** whether the accelerators are on (MAS_ACCELERATORS) */
  get accelerated(): boolean {
    return this.#fast.on
  }

  /** how many times each point was answered by the accelerators, or by the plain path after they declined */
  get answered(): PathCounts {
    return this.#fast.answered
  }

  /** The records of `def` the reader holds `flag` on, as `r`. */
  readable(as: Reader<Db | Kysely<AnyTables>>, def: Referent, flag: Flag = 'read'): Query<{}> {
    return readable(as.db, def, as.caller, flag, this.#fast)
  }

  /** The record `id` of `def`, as one row, when the reader may read it (for an `exists`). */
  readableRecord(as: Reader<Db | Kysely<AnyTables>>, def: Referent, id: number) {
    return readableRecord(as.db, def, as.caller, id, this.#fast)
  }

  /** The record `id` with the reader's flags on it; 404 when it is missing or not readable. */
  fetch<T extends TableName>(
    as: Reader,
    def: ResourceDef<T>,
    rawId: string | number | undefined,
    need?: Flag[],
  ): Promise<Fetched<T>> {
    return fetchRecord(as.db, def, as.caller, rawId, need, this.#fast)
  }

  /** fetch, then 403 unless the reader holds `flag`. */
  fetchFor<T extends TableName>(
    as: Reader,
    def: ResourceDef<T>,
    rawId: string | number | undefined,
    flag: Flag,
  ): Promise<Rec<T>> {
    return fetchFor(as.db, def, as.caller, rawId, flag, this.#fast)
  }

  /** A detail's answer written by the database (undefined: missing or unreadable), or null when the
   * accelerators do not take it (the plain path fetches and renders it). */
  detail<T extends TableName>(
    as: Reader,
    def: ResourceDef<T>,
    id: number,
    req: RecordRequest,
  ): Promise<string | undefined> | null {
    return this.#fast.detail(as.db, def, as.caller, id, req)
  }

  /** The pages of a list written by the database, or null when the plain path renders them. */
  pages<T extends TableName>(db: Db, def: ResourceDef<T>, req: ListRequest, base?: CallerBase): JsonPages | null {
    return this.#fast.pages(db, def, req, base)
  }

  /** A list's answer, read by `read`, or with the same list (path, query and host) asked by the same caller while
   * it is read (docs/decisions.md §13). */
  list(ctx: Context, def: object, read: () => Promise<Result>): Promise<Result> {
    const key = `${ctx.caller.id}|${callerKey(ctx.caller)}|${ctx.origin}|${ctx.req.url}`
    return this.#fast.list(ctx.db, def, key, read) ?? read()
  }

  /** A single create made in one statement with its checks, or null when the plain path makes it. */
  create<T extends TableName>(
    ctx: Context,
    def: ResourceDef<T>,
    parsed: ParsedInput,
    of: CreateOf,
  ): Promise<Result | null> {
    return this.#fast.create(ctx, def, parsed, of)
  }

  /** A bulk create (an array body's items) made in one statement with its checks, or null when the plain path makes
   * it. */
  createMany<T extends TableName>(
    ctx: Context,
    def: ResourceDef<T>,
    items: BulkItems,
    of: CreateManyOf,
  ): Promise<Result | null> {
    return this.#fast.createMany(ctx, def, items, of)
  }

  /** A write's check statement compiled once for its shape, or null when the plain path builds it. */
  checks(owner: object, caller: Caller, asks: Ask[], scopeAsk?: ScopeAsk): CompiledQuery<AnyRow> | null {
    return this.#fast.checks(owner, caller, asks, scopeAsk)
  }

  /** An endpoint's own statement of `shape` for the caller (core/accelerators.ts, `statement`), compiled once with
   * stand-ins and bound to `slots`, or compiled for this request. */
  statement(...args: OwnStatement): CompiledQuery<AnyRow> {
    const [, caller, , slots, , compile] = args
    return this.#fast.statement(...args) ?? (compile(caller, slots) as CompiledQuery<AnyRow>)
  }
}
