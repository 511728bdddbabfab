import { sql, type SelectQueryBuilder } from 'kysely'
import type { AnyRow, AnyTables } from '../db/schema.js'
import type { Context } from './endpoint.js'
import type { Envelope } from './jsonText.js'
import { badRequest, invalidPage } from './errors.js'
import { filterFields, orderFields, parseValue, type Fields } from './fields.js'

// The list conventions, once for every list: equality filters, ordering,
// page/page_size/last, and the {count, next, previous, results} envelope with
// absolute links that keep the other query parameters.

export const PAGE_SIZE = 100
export const MAX_PAGE_SIZE = 1000

/** A query over the records of a resource, as `r` (see AnyRow) */
export type Query<O = AnyRow> = SelectQueryBuilder<AnyTables, 'r', O>

/** `?field=value` for every filterable field; a value of the wrong type is a 400 naming the field. */
export function applyFilters<O>(qb: Query<O>, fields: Fields, query: Record<string, string>): Query<O> {
  const errors: Record<string, string[]> = {}
  for (const [name, f] of filterFields(fields)) {
    const raw = query[name]
    if (raw === undefined) continue
    if (raw === '') continue
    if (f.nullable && (raw === 'null' || raw === 'None')) {
      qb = qb.where(`r.${f.column}`, 'is', null)
      continue
    }
    const parsed = f.type === 'pk' ? parseValue({ type: 'integer', min: 0 }, raw) : parseValue(f, raw)
    if (!parsed.ok) {
      errors[name] = [
        f.type === 'boolean'
          ? `Select a valid choice. ${raw} is not one of the available choices.`
          : f.type === 'pk' || f.type === 'integer'
            ? 'Enter a whole number.'
            : f.type === 'float'
              ? 'Enter a number.'
              : parsed.error,
      ]
      continue
    }
    qb = qb.where(`r.${f.column}`, '=', parsed.value)
  }
  if (Object.keys(errors).length) throw badRequest(errors)
  return qb
}

/** `?ordering=a,-b` over scalar fields (unknown names are ignored, as DRF does); id breaks ties. */
export function applyOrdering<O>(qb: Query<O>, fields: Fields, query: Record<string, string>): Query<O> {
  const allowed = orderFields(fields)
  let hasId = false
  for (const term of (query.ordering ?? '').split(',')) {
    const desc = term.trim().startsWith('-')
    const column = allowed.get(term.trim().replace(/^-/, ''))
    if (!column) continue
    qb = qb.orderBy(`r.${column}`, desc ? 'desc' : 'asc')
    if (column === 'id') hasId = true
  }
  return hasId ? qb : qb.orderBy(`r.id`, 'asc')
}

/** `qb` limited to a page: `limit` rows from `offset`. The page size is written into the statement (a number
 * pageSize gave, 1 to MAX_PAGE_SIZE), the offset stays a parameter: with the size known, PostgreSQL's estimate
 * of a generic plan matches its custom plans, so a prepared list statement is planned a few times and then
 * reused, instead of planned again at every request (docs/decisions.md §11). */
export function pageOf<O>(qb: Query<O>, limit: number, offset?: number): Query<O> {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) throw new Error(`pageOf: page size ${limit}`)
  const limited = qb.limit(sql.lit(limit))
  return offset === undefined ? limited : limited.offset(offset)
}

export function pageSize(query: Record<string, string>): number {
  // as DRF's int(): digits only ('1e3', '0x10' or '1.0' are no page size), else the default
  if (!/^\s*\+?\d+\s*$/.test(query.page_size ?? '')) return PAGE_SIZE
  const n = Number(query.page_size)
  if (n < 1) return PAGE_SIZE
  return Math.min(n, MAX_PAGE_SIZE)
}

/** A page's rows with the number of records of the whole list, read in one statement (null: not known). */
export interface CountedPage<T> {
  rows: T[]
  count: number | null
}

/** How a list reads its records: the number of them, a page, and a page with the number (in one statement,
 * or side by side; `count` null when the page is empty and the number was not read). All three run the same
 * filtered query. */
export interface ListReads<T> {
  count: () => Promise<number>
  rows: (limit: number, offset: number) => Promise<T[]>
  countedRows: (limit: number, offset: number) => Promise<CountedPage<T>>
}

/** One page of a list: the page with the count first (pageIfAny); `count`, then the page, only when that
 * found nothing (past the end, no records, or the page is `last`). */
export async function paginate<T>(ctx: Context, reads: ListReads<T>): Promise<Envelope<T>> {
  const size = pageSize(ctx.query)
  const page = requestedPage(ctx)
  if (page === null) throw invalidPage()
  const found = await pageIfAny(ctx, reads.countedRows)
  if (found) return found
  const tried = page !== 'last' && readableOffset(page, size)
  const total = await reads.count()
  const number = page === 'last' ? pageCount(total, size) : page
  if (number > pageCount(total, size)) throw invalidPage()
  // an empty list needs no second look; otherwise the records changed meanwhile, or the page was `last`
  const results = tried && total === 0 ? [] : await reads.rows(size, (number - 1) * size)
  return envelope(ctx, total, number, size, results)
}

/** The `page` parameter: a number from 1, 'last', or null when it is neither. Absent: 1. */
function requestedPage(ctx: Context): number | 'last' | null {
  const raw = ctx.query.page
  if (raw === undefined) return 1
  if (raw === 'last') return 'last'
  return /^\d+$/.test(raw) && Number(raw) >= 1 ? Number(raw) : null
}

const pageCount = (total: number, size: number) => Math.max(1, Math.ceil(total / size))

function envelope<T>(ctx: Context, count: number, number: number, size: number, results: T[]): Envelope<T> {
  const pages = pageCount(count, size)
  return {
    count,
    next: number < pages ? pageLink(ctx, number + 1) : null,
    previous: number > 1 ? pageLink(ctx, number - 1) : null,
    results,
  }
}

/** Pages are read before their count is known only where the offset is a plain integer for the database
 * (a page number of 20 digits would otherwise reach it as 1e+22). */
function readableOffset(page: number, size: number): boolean {
  return (page - 1) * size <= 2 ** 31 - 1
}

/** The requested page when it has records, read together with the count; null when it is empty, or the
 * page is `last` or malformed (paginate then takes its longer path). */
export async function pageIfAny<T>(
  ctx: Context,
  countedRows: (limit: number, offset: number) => Promise<CountedPage<T>>,
): Promise<Envelope<T> | null> {
  const size = pageSize(ctx.query)
  const number = requestedPage(ctx)
  if (number === null || number === 'last' || !readableOffset(number, size)) return null
  const { rows, count } = await countedRows(size, (number - 1) * size)
  if (!rows.length || count === null) return null
  // records added meanwhile past a count read beside the page: let the checked path decide
  if (number > pageCount(count, size)) return null
  return envelope(ctx, count, number, size, rows)
}

function pageLink(ctx: Context, page: number): string {
  const path = ctx.req.url.split('?')[0]
  const params = new URLSearchParams(ctx.req.url.includes('?') ? ctx.req.url.slice(ctx.req.url.indexOf('?') + 1) : '')
  params.delete('page')
  if (page > 1) params.set('page', String(page))
  params.sort()
  const qs = params.toString()
  return `${ctx.origin}${path}${qs ? `?${qs}` : ''}`
}
