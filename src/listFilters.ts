import type { Query } from './query.js'

// The CLI never acts on a list the server did not filter. A server may ignore a filter it does not know (the
// original ignores `alias__startswith`, `realStartTime__gte`, `?library=` on tag classes, …, and answers
// every record): each filter sent is checked on the records that come back, in django-filter's meaning, and
// the records that do not match are dropped. A filter whose field the records do not carry cannot be
// checked: that list is refused, naming the filter (or the flag that asked for it).

/** Query parameters that shape a list without filtering it. */
const NOT_FILTERS = new Set(['page', 'page_size', 'ordering', 'format', 'search'])

export class UncheckedFilter extends Error {
  constructor(
    readonly param: string,
    flag?: string,
  ) {
    super(
      `${flag ?? `?${param}=`}: the server did not filter by ${param.replace(/__.*$/, '')}, and its records do not ` +
        'carry it, so the answer cannot be checked; leave it out',
    )
    this.name = 'UncheckedFilter'
  }
}

type Test = (record: Record<string, unknown>) => boolean

/** A timestamp as the API writes it ('YYYY-MM-DDThh:mm:ss'), from what a filter may be given. */
function timestamp(v: string): string {
  const s = v.trim().replace(' ', 'T')
  return /^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00` : s
}

/** The same value as a record holds it and as a query sends it. */
function sameValue(held: unknown, sent: string): boolean {
  if (held === null || held === undefined) return sent === '' || sent.toLowerCase() === 'null'
  if (typeof held === 'boolean') return String(held) === sent.toLowerCase()
  if (typeof held === 'number') return sent.trim() !== '' && held === Number(sent)
  return String(held) === sent
}

function compare(held: unknown, sent: string): number | null {
  if (held === null || held === undefined) return null
  if (typeof held === 'number') return held - Number(sent)
  const a = timestamp(String(held))
  const b = timestamp(sent)
  return a < b ? -1 : a > b ? 1 : 0
}

function testOf(param: string, sent: string): { field: string; test: Test } {
  const [field, lookup] = param.split('__', 2)
  const value = (r: Record<string, unknown>) => r[field]
  switch (lookup) {
    case 'startswith':
      return { field, test: (r) => typeof value(r) === 'string' && (value(r) as string).startsWith(sent) }
    case 'gte':
      return { field, test: (r) => (compare(value(r), sent) ?? -1) >= 0 }
    case 'lte':
      return { field, test: (r) => (compare(value(r), sent) ?? 1) <= 0 }
    case 'gt':
      return { field, test: (r) => (compare(value(r), sent) ?? -1) > 0 }
    case 'lt':
      return { field, test: (r) => (compare(value(r), sent) ?? 1) < 0 }
    default:
      return { field, test: (r) => sameValue(value(r), sent) }
  }
}

/** A checker of the filters of `query`; `flags` names the flag that sent each parameter, for the refusal;
 * `ownFilters` are filters of a path only mas has (an extension), which a server that answers it applies. */
export function filterCheck(query: Query, flags: Record<string, string> = {}, ownFilters: readonly string[] = []) {
  const tests = Object.entries(query)
    .filter(([k, v]) => v !== undefined && !NOT_FILTERS.has(k) && !ownFilters.includes(k))
    .map(([k, v]) => ({ param: k, ...testOf(k, String(v)) }))
  return {
    /** does this query filter at all? */
    filters: tests.length > 0,
    /** the records that match every filter; throws UncheckedFilter for a field the records lack */
    keep<T>(records: T[]): T[] {
      if (!tests.length) return records
      return records.filter((record) => {
        const r = record as Record<string, unknown>
        return tests.every((t) => {
          if (r === null || typeof r !== 'object' || !(t.field in r)) throw new UncheckedFilter(t.param, flags[t.param])
          return t.test(r)
        })
      })
    },
  }
}
