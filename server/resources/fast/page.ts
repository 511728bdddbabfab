import type { CompiledQuery } from 'kysely'
import type { AnyRow, TableName } from '../../db/schema.js'
import { Coalescers } from '../../db/coalesce.js'
import type { Result } from '../../http/endpoint.js'
import { applyOrdering, type Query } from '../../http/list.js'
import type { Db, ListRequest, ResourceDef } from '../core/define.js'
import { countedPage, listQueries, unfiltered, type CallerBase } from '../core/listStatements.js'
import { listPageJson } from './jsonRecord.js'
import { bind, planStatement, type Plan, type StatementCache } from './statements.js'
import { compiler, standInCaller, standInNumber, standInText, type CallerKind } from '../core/standIns.js'

// A page of a list as the database writes its records (jsonRecord.ts), and the most frequent page, an
// unfiltered page of a top-level list read with the list's count, compiled once per shape (statements.ts,
// docs/decisions.md §14); and the same list asked again by its caller while it is being read, read once more for
// every request that waited (docs/decisions.md §13).

/** The lists being read: one read of a key at once, the requests of the key that arrive meanwhile waiting for it
 * to end and then answered by one read, started after each of them arrived. */
export const listReads = () => new Coalescers<null, Result>(1, 1000)
export type ListReads = ReturnType<typeof listReads>

/** The answer of `read`, made alone or once for every request of `key` that waited: each answer is then of a
 * moment after its request arrived and before it is answered, as alone. */
export function sameList(reads: ListReads, db: Db, def: object, key: string, read: () => Promise<Result>) {
  return reads.of(db, def).submit(key, null, (waited) => {
    const answer = read()
    return waited.map(() => answer)
  })
}

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

/** The JSON page with its count (countedPage, jsonPage) of an unfiltered request for a top-level list whose
 * records the database writes, from a statement compiled once per shape; null when the request has filters,
 * the records are rendered by the server, or the statement uses more of the request than the slots (then it
 * is built for every request). */
export function plannedCountedPage<T extends TableName>(
  plans: StatementCache<Plan>,
  def: ResourceDef<T>,
  base: CallerBase,
  req: ListRequest,
  limit: number,
  offset: number,
): CompiledQuery<AnyRow> | null {
  if (!unfiltered(req.query) || !def.compiled.json.record) return null
  // the page is the offset; the rest of the query is the shape (a query's ordering may be any text: the cache's
  // bound keeps their number finite)
  const { page: _page, ...query } = req.query
  const plan = plans.get(def, req.caller, `page|${limit}|${JSON.stringify(Object.entries(query).sort())}`, () =>
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
  return plan && bind(plan, [req.caller.id, req.origin, req.now, offset])
}
