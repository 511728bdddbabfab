import type { CompiledQuery } from 'kysely'
import type { AnyRow, TableName } from '../../db/schema.js'
import type { Context, Result } from '../../http/endpoint.js'
import { ApiError } from '../../http/errors.js'
import { envelopeText } from '../../http/jsonText.js'
import type { Envelope } from '../../http/jsonText.js'
import { pageIfAny, paginate, pageOf, type ListReads, type Query } from '../../http/list.js'
import { recs, type ListOptions, type ListRequest, type PageRows, type PageRun, type ResourceDef } from './define.js'
import { countedPage, listQueries, unfiltered, type CallerBase, type ListQueries } from './listStatements.js'
import { renderSelected, selectComputed } from './read.js'

// A list of a resource's records: the one implementation behind every list endpoint, top-level
// (tag/) and sub-list (tagSet/{Id}/tags/).

/** What a sub-list checks of its parent: the parent's read rule as a condition of the list's own statement,
 * and the parent fetched on its own (404 when it cannot be read). */
export interface ParentCheck {
  readable: (qb: Query<{}>) => Query<{}>
  fetch: () => Promise<unknown>
}

/** A paginated list of `def` records from a query over `r` (already limited to what the caller may read, or
 * built for the caller: CallerBase). The page and the count are read together: in one statement (the count
 * as a subquery), or side by side when the count is a cheaper one. A sub-list (`parent`) reads its page first
 * under the parent's read rule in the same statement: a page with records proves the parent readable. Only an
 * empty page, or a bad filter or page, has the parent fetched first (404 before 400, an empty page of a
 * readable parent) and the list read again. The records are rendered here (toJson, their computed fields selected
 * by the page's statement), or written as JSON by the database when the accelerators take the list (fast/, `pages`).
 * The same list asked by the same caller while it is read is read once more for every such request
 * (`records.list`, docs/decisions.md §13). */
export function listOf<T extends TableName>(
  ctx: Context,
  def: ResourceDef<T>,
  base: Query<{}> | CallerBase,
  opts: ListOptions = {},
  parent?: ParentCheck,
): Promise<Result> {
  return ctx.services.records.list(ctx, def, () => readList(ctx, def, base, opts, parent))
}

async function readList<T extends TableName>(
  ctx: Context,
  def: ResourceDef<T>,
  base: Query<{}> | CallerBase,
  opts: ListOptions,
  parent?: ParentCheck,
): Promise<Result> {
  const req: ListRequest = { caller: ctx.caller, query: ctx.query, origin: ctx.origin, now: new Date() }
  const built = typeof base === 'function' ? () => base(ctx.db, ctx.caller) : () => base
  const compilable = typeof base === 'function' && !parent && !opts.count && !opts.page && unfiltered(req.query)
  const json = ctx.services.records.pages(ctx.db, def, req, compilable ? base : undefined)
  if (json)
    return {
      body: envelopeText(
        await listPage(ctx, parent, built, (b) =>
          listReads(ctx, def, b, req, opts, json.run, json.texts, json.planned),
        ),
      ),
    }
  // a page read with its count carries it in every row (listReads): not a column of the record
  const rendered = async (rows: AnyRow[]) => renderSelected(ctx, def, recs<T>(rows.map(({ __count, ...row }) => row)))
  const run: PageRun = (page) => selectComputed(page, def, req).execute()
  return { body: await listPage(ctx, parent, built, (b) => listReads(ctx, def, b, req, opts, run, rendered)) }
}

async function listPage<R>(
  ctx: Context,
  parent: ParentCheck | undefined,
  base: () => Query<{}>,
  readsOf: (base: () => Query<{}>) => ListReads<R>,
): Promise<Envelope<R>> {
  if (parent) {
    try {
      const found = await pageIfAny(ctx, readsOf(() => parent.readable(base())).countedRows)
      if (found) return found
    } catch (e) {
      if (!(e instanceof ApiError)) throw e
    }
    await parent.fetch()
  }
  return paginate(ctx, readsOf(base))
}

/** The reads of a list whose pages `run` reads and `out` turns into records; `planned`, where given, is the
 * compiled statement of a page with its count (or null: build it). */
function listReads<T extends TableName, R>(
  ctx: Context,
  def: ResourceDef<T>,
  base: () => Query<{}>,
  req: ListRequest,
  opts: ListOptions,
  run: PageRun,
  out: (rows: AnyRow[]) => Promise<R[]>,
  planned?: (limit: number, offset: number) => CompiledQuery<AnyRow> | null,
): ListReads<R> {
  let built: ListQueries | null = null
  const queries = (): ListQueries => (built ??= listQueries(ctx.db, def, base(), req))
  // a bad filter is answered before the page is looked at; a planned list has none, and is built only when
  // its statement is not planned
  if (!planned) queries()
  const served = opts.filtered || unfiltered(req.query)
  const byId = served && (req.query.ordering ?? 'id') === 'id'
  const cheapCount = opts.count && served ? opts.count : null
  const ownPage = opts.page && byId ? opts.page : null
  const page =
    ownPage ??
    (async (q: Query, limit: number, offset: number): Promise<PageRows> => ({
      rows: await run(pageOf(q, limit, offset)),
    }))
  const count = async () =>
    cheapCount ? cheapCount() : Number((await queries().counter.executeTakeFirst())?.count ?? 0)
  const rows = async (limit: number, offset: number) => out((await page(queries().ordered, limit, offset, run)).rows)
  return {
    count,
    rows,
    countedRows: cheapCount
      ? async (limit, offset) => {
          if (!ownPage) {
            const [total, results] = await Promise.all([count(), rows(limit, offset)])
            return { rows: results, count: total }
          }
          // the resource's own page may read the count in its statement
          const found = await ownPage(queries().ordered, limit, offset, run)
          return { rows: await out(found.rows), count: found.count ?? (await count()) }
        }
      : async (limit, offset) => {
          const compiled = planned?.(limit, offset)
          const found = compiled
            ? (await ctx.db.executeQuery(compiled)).rows
            : await run(countedPage(queries(), limit, offset), ['__count'])
          const total = found.length ? Number(found[0].__count) : null
          return { rows: await out(found), count: total }
        },
  }
}
