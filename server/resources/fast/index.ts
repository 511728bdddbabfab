import type { CompiledQuery, RawBuilder, SqlBool } from 'kysely'
import type { BulkItems } from '../../http/columnRows.js'
import type { Caller, Flag } from '../../access.js'
import type { AnyRow, TableName } from '../../db/schema.js'
import type { Context, Result } from '../../http/endpoint.js'
import type { ParsedInput, Referent } from '../../http/fields.js'
import type { Query } from '../../http/list.js'
import {
  PATHS,
  type Accelerators,
  type Ask,
  type JsonPages,
  type Path,
  type PathCounts,
  type ScopeAsk,
  type CreateOf,
  type CreateManyOf,
  type OwnStatement,
} from '../core/accelerators.js'
import type { AcceleratedPath, Db, ListRequest, RecordRequest, ResourceDef } from '../core/define.js'
import type { CallerBase } from '../core/listStatements.js'
import { plannedCheck } from './checks.js'
import { createBatches, createsInOne, fastCreate, type CreateState } from './create.js'
import { fastCreateMany } from './createMany.js'
import { detailBatches, fetchFlaggedRow, type FetchState } from './detail.js'
import { listPageJson } from './jsonRecord.js'
import { NarrowedFirst } from './narrowed.js'
import { jsonPage, listReads, plannedCountedPage, sameList } from './page.js'
import { compiledRule, type CompiledRule } from './rule.js'
import { bind, planStatement, StatementCache, type Plan } from './statements.js'
import { standInCaller } from '../core/standIns.js'

// The accelerators: every speed-up of the resource core in one place, behind one small interface
// (docs/architecture.md, "The plain path and the accelerators"). The plain path (server/resources/core/) asks
// them first at a few points; each function answers, or says "not for this request" (null) and the plain path
// runs. One set per app, made from its configuration (MAS_ACCELERATORS): `accelerators(false)` declines
// everything. Each keeps a count of which path answered, which tests assert (never a time).

const zeroCounts = (): PathCounts => Object.fromEntries(PATHS.map((p) => [p, { fast: 0, plain: 0 }])) as PathCounts

/** The accelerators of an app: `on` from its configuration. */
export function accelerators(on: boolean): Accelerators {
  return on ? new Accelerated() : new Declining()
}

/** Every function declines: the plain path answers everything (MAS_ACCELERATORS=off). */
class Declining implements Accelerators {
  readonly on = false
  readonly answered = zeroCounts()
  #plain<R>(path: Path): R | null {
    this.answered[path].plain++
    return null
  }
  rule() {
    return this.#plain<RawBuilder<SqlBool>>('rule')
  }
  fetch() {
    return this.#plain<Promise<AnyRow | undefined>>('fetch')
  }
  detail() {
    return this.#plain<Promise<string | undefined>>('detail')
  }
  checks() {
    return this.#plain<CompiledQuery<AnyRow>>('checks')
  }
  async create() {
    return this.#plain<Result>('create')
  }
  async createMany() {
    return this.#plain<Result>('createMany')
  }
  pages() {
    return this.#plain<JsonPages>('page')
  }
  list() {
    return this.#plain<Promise<Result>>('list')
  }
  statement() {
    return this.#plain<CompiledQuery<AnyRow>>('statement')
  }
}

class Accelerated implements Accelerators {
  readonly on = true
  readonly answered = zeroCounts()
  // the statement cache's uses, each with its own bound per resource
  readonly #rules = new StatementCache<CompiledRule>(32)
  readonly #fetches = new StatementCache<Plan>(64)
  readonly #checks = new StatementCache<Plan>(256)
  readonly #creates = new StatementCache<Plan>(256)
  readonly #pages = new StatementCache<Plan>(64)
  readonly #lists = listReads()
  // one and one naming a class, and batches of 2, 4 … 256 rows, for three kinds of caller (tagReview.ts)
  readonly #statements = new StatementCache<Plan>(32)
  readonly #narrowed = new NarrowedFirst()
  readonly #fetchState: FetchState = { plans: this.#fetches, narrowed: this.#narrowed, details: detailBatches() }
  readonly #createState: CreateState = { plans: this.#creates, narrowed: this.#narrowed, batches: createBatches() }

  #count<R>(path: Path, answer: R | null): R | null {
    this.answered[path][answer === null ? 'plain' : 'fast']++
    return answer
  }

  rule(def: Referent, caller: Caller, flag: Flag) {
    return this.#count('rule', compiledRule(this.#rules, def, caller, flag))
  }

  fetch(db: Db, def: Referent, caller: Caller, id: number, flags: Flag[]) {
    return this.#count('fetch', fetchFlaggedRow(this.#fetchState, db, def, caller, id, flags, null))
  }

  detail<T extends TableName>(db: Db, def: ResourceDef<T>, caller: Caller, id: number, req: RecordRequest) {
    const json = def.compiled.json.record
    return this.#count(
      'detail',
      json &&
        fetchFlaggedRow(this.#fetchState, db, def, caller, id, ['read'], { json, req }).then(
          (row) => row?.__json as string | undefined,
        ),
    )
  }

  checks(owner: object, caller: Caller, asks: Ask[], scopeAsk?: ScopeAsk) {
    return this.#count('checks', plannedCheck(this.#checks, owner, caller, asks, scopeAsk))
  }

  async create<T extends TableName>(ctx: Context, def: ResourceDef<T>, parsed: ParsedInput, of: CreateOf) {
    return this.#count('create', await fastCreate(this.#createState, ctx, def, parsed, of))
  }

  async createMany<T extends TableName>(ctx: Context, def: ResourceDef<T>, items: BulkItems, of: CreateManyOf) {
    return this.#count('createMany', await fastCreateMany(this.#createState, ctx, def, items, of))
  }

  pages<T extends TableName>(db: Db, def: ResourceDef<T>, req: ListRequest, base?: CallerBase) {
    if (!def.compiled.json.record) return this.#count<JsonPages>('page', null)
    // the JSON is written over the page's rows only (in the page's statement it would be written for every row
    // OFFSET skips too)
    let json: ((page: Query, extras: string[]) => Query) | null = null
    return this.#count('page', {
      run: (page: Query, extras: string[] = []) =>
        jsonPage((json ??= listPageJson(db, def, req)), def, req, page, extras).execute(),
      texts: async (rows: AnyRow[]) => rows.map((r) => r.__json as string),
      planned:
        base && ((limit: number, offset: number) => plannedCountedPage(this.#pages, def, base, req, limit, offset)),
    })
  }

  list(db: Db, def: object, key: string, read: () => Promise<Result>) {
    return this.#count('list', sameList(this.#lists, db, def, key, read))
  }

  statement(...[owner, caller, shape, slots, standIns, compile]: OwnStatement) {
    const plan = this.#statements.get(owner, caller, shape, () => {
      const sets = ([0, 1] as const).map((set) => ({ caller: standInCaller(set, caller), slots: standIns(set) }))
      return planStatement(
        [sets[0], sets[1]],
        (s) => [s.caller.id, ...s.slots],
        (s) => compile(s.caller, s.slots),
      )
    })
    return this.#count('statement', plan && bind(plan, [caller.id, ...slots]))
  }
}

/** Which of `expected` the accelerators cannot take for this declaration, each with why: a hook or a field they
 * do not handle. Checked where a resource's endpoints are made (resource.ts), so that a change that would leave a
 * fast path fails at start-up instead of silently running slower. */
export function unacceleratedPaths<T extends TableName>(
  def: ResourceDef<T>,
  expected: readonly AcceleratedPath[],
): string[] {
  const out: string[] = []
  for (const path of expected) {
    if (path === 'create' && !createsInOne(def)) {
      out.push(
        'create: a single create is made in one statement only without transform, validate, afterWrite or createHandler',
      )
    }
    if ((path === 'detail' || path === 'list') && !def.compiled.json.record) {
      out.push(
        `${path}: written by the database only without embed, and with every field computed or a column of a JSON scalar type (core/recordJson.ts)`,
      )
    }
  }
  return out
}
