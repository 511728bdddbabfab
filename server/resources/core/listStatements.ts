import { type Kysely, type SelectQueryBuilder } from 'kysely'
import type { Caller } from '../../access.js'
import type { AnyTables, TableName } from '../../db/schema.js'
import { applyFilters, applyOrdering, pageOf, type Query } from '../../http/list.js'
import { type Db, type ListRequest, type ResourceDef } from './define.js'

// The statements of a list, built for a request.

/** Query parameters that never narrow a list. */
const PAGING_PARAMS = new Set(['page', 'page_size', 'ordering', 'format'])

/** Whether a list request has no filters (only paging parameters). */
export const unfiltered = (query: Record<string, string>): boolean =>
  Object.keys(query).every((k) => PAGING_PARAMS.has(k))

/** The names of a list request's parameters other than paging ones (its filters, known or not). */
export const filterNames = (query: Record<string, string>): string[] =>
  Object.keys(query).filter((k) => !PAGING_PARAMS.has(k))

/** The records a top-level list shows before its filters, as `r`, for any caller (the caller's read rule):
 * its page statement may then be compiled once per shape with a stand-in caller (fast/page.ts). It must use nothing of the
 * request but its `caller`; a sub-list's records, which hold its parent's id, are given built instead. */
export type CallerBase = (db: Db | Kysely<AnyTables>, caller: Caller) => Query<{}>

/** The queries of a list: its records in the requested order, and the statement of their number. */
export interface ListQueries {
  ordered: Query
  counter: SelectQueryBuilder<AnyTables, keyof AnyTables, { count: unknown }>
}

/** The queries of a list over `base` for a request. */
export function listQueries<T extends TableName>(
  db: Db | Kysely<AnyTables>,
  def: ResourceDef<T>,
  base: Query<{}>,
  req: Pick<ListRequest, 'caller' | 'query'>,
): ListQueries {
  const filtered = applyFilters(base, def.fields, req.query)
  const narrowed = def.listFilter ? def.listFilter(filtered, req) : filtered
  return {
    ordered: applyOrdering(narrowed.selectAll('r'), def.fields, req.query),
    counter: narrowed.select((eb) => eb.fn.countAll().as('count')),
  }
}

/** A page of the list with the number of its records in each row, as `__count`. */
export const countedPage = (q: ListQueries, limit: number, offset: number): Query =>
  pageOf(
    q.ordered.select(() => q.counter.as('__count')),
    limit,
    offset,
  )
