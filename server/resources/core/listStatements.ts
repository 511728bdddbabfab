import { sql, type CompiledQuery, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { Caller } from '../../access.js'
import type { AnyRow, AnyTables, TableName } from '../../db/schema.js'
import { applyFilters, applyOrdering, pageOf, type Query } from '../../http/list.js'
import { bind, callerKey, compiler, planStatement, standInCaller, standInNumber, standInText, type CallerKind, type Plan } from './compiled.js'
import { anyTable, type Db, type ListRequest, type ResourceDef } from './define.js'
import { listPageJson, listsWrittenByDatabase } from './jsonRecord.js'
import { countOfReadable, parseId } from './read.js'

// The statements of a list, built for a request; and the most frequent of them, an unfiltered page of a
// top-level list read with the list's count, compiled once per shape (compiled.ts, docs/decisions.md §14).

/** Query parameters that never narrow a list. */
const PAGING_PARAMS = new Set(['page', 'page_size', 'ordering', 'format'])

/** Whether a list request has no filters (only paging parameters). */
export const unfiltered = (query: Record<string, string>): boolean => Object.keys(query).every((k) => PAGING_PARAMS.has(k))

/** The records a top-level list shows before its filters, as `r`, for any caller (the caller's read rule):
 * its page statement may then be compiled once per shape with a stand-in caller. It must use nothing of the
 * request but its `caller`; a sub-list's records, which hold its parent's id, are given built instead. */
export type CallerBase = (db: Db | Kysely<AnyTables>, caller: Caller) => Query<{}>

/** The queries of a list: its records in the requested order, and the statement of their number. */
export interface ListQueries {
  ordered: Query
  counter: SelectQueryBuilder<AnyTables, keyof AnyTables, { count: unknown }>
}

/** The queries of a list over `base` for a request. */
export function listQueries<T extends TableName>(db: Db | Kysely<AnyTables>, def: ResourceDef<T>, base: Query<{}>,
  req: Pick<ListRequest, 'caller' | 'query'>): ListQueries {
  const filtered = applyFilters(base, def.fields, req.query)
  const narrowed = def.listFilter ? def.listFilter(filtered, req) : filtered
  const { countBy } = def
  const id = countBy ? onlyFilter(req.query, countBy.field) : null
  return {
    ordered: applyOrdering(narrowed.selectAll('r'), def.fields, req.query),
    counter: countBy && id !== null
      ? anyTable(db).selectNoFrom(() => sql<unknown>`${countOfReadable(db, def, req.caller, id)}`.as('count'))
      : narrowed.select((eb) => eb.fn.countAll().as('count')),
  }
}

/** The id a list request filters `field` by, when that is its only filter; null otherwise. */
function onlyFilter(query: Record<string, string>, field: string): number | null {
  const filters = Object.keys(query).filter((k) => !PAGING_PARAMS.has(k))
  return filters.length === 1 && filters[0] === field ? parseId(query[field]) : null
}

/** A page of the list with the number of its records in each row, as `__count`. */
export const countedPage = (q: ListQueries, limit: number, offset: number): Query =>
  pageOf(q.ordered.select(() => q.counter.as('__count')), limit, offset)

/** The statement whose rows carry the JSON records (`__json`, jsonRecord.ts) of `page` (a query of records as
 * `r`) with its `extras`, in the list's order. */
export const jsonPage = <T extends TableName>(json: (page: Query, extras: string[]) => Query, def: ResourceDef<T>,
  req: Pick<ListRequest, 'query'>, page: Query, extras: string[]): Query => applyOrdering(json(page, extras), def.fields, req.query)

interface StandIn extends ListRequest { offset: number }

/** The slots of a planned page: the caller's id, the origin, the clock, the offset. */
const slots = (s: StandIn): unknown[] => [s.caller.id, s.origin, s.now, s.offset]

/** Two sets of stand-ins (compiled.ts): a new clock for each, found by identity as the parameter it becomes. */
const standIns = (kind: CallerKind, query: Record<string, string>): [StandIn, StandIn] => ([0, 1] as const).map((set) => ({
  caller: standInCaller(set, kind), query, origin: standInText(set, 1), now: new Date(standInNumber(set, 2)), offset: standInNumber(set, 3),
})) as [StandIn, StandIn]

/** per resource, by kind of caller, page size and query without its page: the plan, or null when the
 * statement depends on more than the slots */
const plans = new WeakMap<object, Map<string, Plan | null>>()
/** plans kept per resource (a query's ordering may be any text); past this, pages are built at each request */
const MAX_PLANS = 64

/** The JSON page with its count (countedPage, jsonPage) of an unfiltered request for a top-level list whose
 * records the database writes, from a statement compiled once per shape; null when the request has filters,
 * the records are rendered by the server, or the statement uses more of the request than the slots (then it
 * is built for every request). */
export function plannedCountedPage<T extends TableName>(def: ResourceDef<T>, base: CallerBase, req: ListRequest,
  limit: number, offset: number): CompiledQuery<AnyRow> | null {
  if (!unfiltered(req.query) || !listsWrittenByDatabase(def)) return null
  // the page is the offset; the rest of the query is the shape
  const { page: _page, ...query } = req.query
  let byKey = plans.get(def)
  if (!byKey) plans.set(def, byKey = new Map())
  const key = `${callerKey(req.caller)}|${limit}|${JSON.stringify(Object.entries(query).sort())}`
  let plan = byKey.get(key)
  if (plan === undefined) {
    if (byKey.size >= MAX_PLANS) return null
    byKey.set(key, plan = planStatement(standIns(req.caller, query), slots, (s) => jsonPage(listPageJson(compiler, def, s), def, s,
      countedPage(listQueries(compiler, def, base(compiler, s.caller), s), limit, s.offset), ['__count']).compile()))
  }
  return plan && bind(plan, [req.caller.id, req.origin, req.now, offset])
}
