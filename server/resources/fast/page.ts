import type { AnyRow, TableName } from '../../db/schema.js'
import { Coalescers } from '../../db/coalesce.js'
import { applyOrdering, type Query } from '../../http/list.js'
import type { Db, ListRequest, ResourceDef } from '../core/define.js'
import { countedPage, listQueries, unfiltered, type CallerBase } from '../core/listStatements.js'
import { listPageJson } from './jsonRecord.js'
import { bind, planStatement, type Plan, type StatementCache } from './statements.js'
import { callerKey, compiler, standInCaller, standInNumber, standInText, type CallerKind } from '../core/standIns.js'

// A page of a list as the database writes its records (jsonRecord.ts), and the most frequent page, an
// unfiltered page of a top-level list read with the list's count, compiled once per shape (statements.ts,
// docs/decisions.md §14); the same page asked again by its caller while it is being read is read once more
// for every request that waited (docs/decisions.md §13).

/** The pages being read: one of a caller's same page at once; those asked meanwhile wait and are read together
 * (the key is the caller's and the page's; the clock the one value left out). */
export const pageReads = () => new Coalescers<Date, AnyRow[]>(1, 1000)
export type PageReads = ReturnType<typeof pageReads>

/** The statement whose rows carry the JSON records (`__json`, jsonRecord.ts) of `page` (a query of records as
 * `r`) with its `extras`, in the list's order. */
export const jsonPage = <T extends TableName>(
  json: (page: Query, extras: string[]) => Query,
  def: ResourceDef<T>,
  req: Pick<ListRequest, 'query'>,
  page: Query,
  extras: string[],
): Query => applyOrdering(json(page, extras), def.fields, req.query)

interface StandIn extends ListRequest {
  offset: number
}

/** The slots of a planned page: the caller's id, the origin, the clock, the offset. */
const slots = (s: StandIn): unknown[] => [s.caller.id, s.origin, s.now, s.offset]

/** Two sets of stand-ins (statements.ts): a new clock for each, found by identity as the parameter it becomes. */
const standIns = (kind: CallerKind, query: Record<string, string>): [StandIn, StandIn] =>
  ([0, 1] as const).map((set) => ({
    caller: standInCaller(set, kind),
    query,
    origin: standInText(set, 1),
    now: new Date(standInNumber(set, 2)),
    offset: standInNumber(set, 3),
  })) as [StandIn, StandIn]

/** The statement of the JSON page with its count (countedPage, jsonPage) of an unfiltered request for a
 * top-level list whose records the database writes, compiled once per shape, with the shape it was planned for;
 * null when the request has filters, the records are rendered by the server, or the statement uses more of the
 * request than the slots (then it is built for every request). */
export function countedPagePlan<T extends TableName>(
  plans: StatementCache<Plan>,
  def: ResourceDef<T>,
  base: CallerBase,
  req: ListRequest,
  limit: number,
): { plan: Plan; shape: string } | null {
  if (!unfiltered(req.query) || !def.compiled.json.record) return null
  // the page is the offset; the rest of the query is the shape (a query's ordering may be any text: the cache's
  // bound keeps their number finite)
  const { page: _page, ...query } = req.query
  const shape = `page|${limit}|${JSON.stringify(Object.entries(query).sort())}`
  const plan = plans.get(def, req.caller, shape, () =>
    planStatement(standIns(req.caller, query), slots, (s) =>
      jsonPage(
        listPageJson(compiler, def, s),
        def,
        s,
        countedPage(listQueries(compiler, def, base(compiler, s.caller), s), limit, s.offset),
        ['__count'],
      ).compile(),
    ),
  )
  return plan && { plan, shape }
}

/** The rows of that page (countedPagePlan), or null when it is not planned. The same page of the same caller
 * asked while it is read waits, and is read with every other that waited, at the clock of the latest of them:
 * each request's answer is then of a moment after it arrived and before it is answered, as alone. */
export function plannedCountedPage<T extends TableName>(
  plans: StatementCache<Plan>,
  reads: PageReads,
  db: Db,
  def: ResourceDef<T>,
  base: CallerBase,
  req: ListRequest,
  limit: number,
  offset: number,
): Promise<AnyRow[]> | null {
  const planned = countedPagePlan(plans, def, base, req, limit)
  if (!planned) return null
  const { plan, shape } = planned
  const key = `${req.caller.id}|${callerKey(req.caller)}|${shape}|${offset}|${req.origin}`
  return reads.of(db, def).submit(key, req.now, (clocks) => {
    const now = new Date(Math.max(...clocks.map((c) => c.getTime())))
    const rows = db.executeQuery(bind(plan, [req.caller.id, req.origin, now, offset])).then((r) => r.rows)
    return clocks.map(() => rows.then((r) => r.slice()))
  })
}
