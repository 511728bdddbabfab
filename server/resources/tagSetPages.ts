import { sql } from 'kysely'
import type { AnyRow } from '../db/schema.js'
import { pageOf, type Query } from '../http/list.js'
import type { Db, PageRows, PageRun } from './resource.js'
import { foldKeyIfCrowded, keptCountSql, parseKeptCount, type KeptKey } from './tagSetCount.js'

// Deep pages of a tag set's tags (all of them, or those of one class, media file or flag: a KeptKey), ordered by id,
// without reading every tag before them each time (docs/decisions.md, "Lists at scale"):
// - the id at a page's first position is remembered with the tag set's version, and so is the id after its
//   last row (the next page's first position): the next request for either page seeks to it through an index
//   on (tag_set_id, id), (tag_class_id, tag_set_id, id) (docs/decisions.md §42) or (tag_set_id, id) over the tags not
//   machine-made (§41)
//   instead of skipping `offset` entries, so a script paging through a tag set reads every page at the cost of
//   its first;
// - a page in the second half of the list, not remembered, is read from the end (id descending, skipping
//   count - offset - limit entries), so the last page costs what the first does;
// - a page in the first half, not remembered, seeks to the id at its offset, found by skipping `offset` entries
//   of that index alone (an index-only scan: no row of the table is read for the entries skipped), where OFFSET
//   read every row before the page: still linear in the offset, at a thirtieth of the cost (BENCHMARKS.md).
//
// The version is the count (and the largest id) of the tag set's rows in tag_set_tag_counts (migration
// 2026_11_22_0003): every statement that adds, removes, moves or changes tags of the set appends a row there
// (2026_11_27_3501), and the only rows ever removed are folded into a new, larger id. So an unchanged version
// means unchanged lists of ids. A seek reads the version in the same statement as its rows and is used only
// when it is the remembered one; otherwise the page is read with OFFSET. Answers are exactly OFFSET's.

type Row = AnyRow

/** pages before this offset are cheap enough with OFFSET */
const SEEK_FROM = 1000
const MAX_REMEMBERED = 10_000

interface Boundary {
  version: string
  id: number
}

/** The boundaries an app remembers (server/services.ts), by key and position: the newest MAX_REMEMBERED. */
export class PageBoundaries {
  readonly #at = new Map<string, Boundary>()

  get(at: string): Boundary | undefined {
    return this.#at.get(at)
  }

  delete(at: string): void {
    this.#at.delete(at)
  }

  set(at: string, boundary: Boundary): void {
    if (!this.#at.has(at) && this.#at.size >= MAX_REMEMBERED) this.#at.delete(this.#at.keys().next().value!)
    this.#at.set(at, boundary)
  }

  clear(): void {
    this.#at.clear()
  }
}

const keyText = (key: KeptKey) =>
  key.by
    ? `${key.tagSetId}:${key.by.column}=${key.by.id}`
    : key.flag
      ? `${key.tagSetId}:${key.flag.column}=${key.flag.value}`
      : String(key.tagSetId)

/** `ordered` (the key's tags over `r`, by id) from `offset`: the same rows as LIMIT/OFFSET, with the key's kept
 * count, read in the same statement (unknown when the page is empty). */
export async function tagSetPage(
  boundaries: PageBoundaries,
  db: Db,
  key: KeptKey,
  ordered: Query,
  limit: number,
  offset: number,
  run: PageRun,
): Promise<PageRows> {
  const remember = (rows: Row[]) => rememberPage(boundaries, db, key, offset, limit, rows)
  const counted = ordered.select(keptCountSql(key).as('__tags'))
  if (offset < SEEK_FROM) return remember(await run(pageOf(counted, limit, offset), ['__tags']))
  const at = `${keyText(key)}@${offset}`
  const known = boundaries.get(at)
  if (known) {
    const rows = await run(pageOf(counted.where('r.id', '>=', known.id), limit), ['__tags'])
    if (rows.length && parseKeptCount(key, rows[0].__tags).version === known.version) return remember(rows)
    boundaries.delete(at)
  }
  const fromEnd = await pageFromEnd(db, key, counted, limit, offset, run)
  if (fromEnd) return remember(fromEnd)
  const first = await idAt(db, key, offset)
  if (first) {
    const rows = await run(pageOf(counted.where('r.id', '>=', first.id), limit), ['__tags'])
    if (rows.length && parseKeptCount(key, rows[0].__tags).version === first.version) return remember(rows)
  }
  return remember(await run(pageOf(counted, limit, offset), ['__tags']))
}

/** The page read from the end of the list when it lies in its second half: null when it does not, or the
 * list changed between its count and its rows. */
async function pageFromEnd(
  db: Db,
  key: KeptKey,
  counted: Query,
  limit: number,
  offset: number,
  run: PageRun,
): Promise<Row[] | null> {
  const now = parseKeptCount(key, (await db.selectNoFrom(keptCountSql(key).as('kept')).executeTakeFirstOrThrow()).kept)
  if (offset >= now.count || offset < now.count / 2) return null
  const size = Math.min(limit, now.count - offset)
  const rows = await run(pageOf(counted.clearOrderBy().orderBy('r.id', 'desc'), size, now.count - offset - size), [
    '__tags',
  ])
  if (rows.length !== size || parseKeptCount(key, rows[0].__tags).version !== now.version) return null
  // in the list's order (the JSON statement orders its rows itself; rendered rows come as the seek read them)
  return rows.sort((a, b) => Number(a.id) - Number(b.id))
}

/** The id at `offset` among the key's tags (whatever the caller may read: the page read from it applies the rule),
 * with the version of the list it was read in; null past the end, and for a media file's tags, which no index
 * holds in id order (a file has few). */
async function idAt(db: Db, key: KeptKey, offset: number): Promise<{ id: number; version: string } | null> {
  if (key.by?.column === 'media_file_id') return null
  let ids = db
    .selectFrom('tags as r')
    .select(['r.id', keptCountSql(key).as('__tags')])
    .where('r.tag_set_id', '=', key.tagSetId)
  if (key.by) ids = ids.where(sql.ref(`r.${key.by.column}`), '=', key.by.id)
  if (key.flag) ids = ids.where(sql.ref(`r.${key.flag.column}`), '=', key.flag.value)
  const row = await ids.orderBy('r.id').offset(offset).limit(1).executeTakeFirst()
  return row ? { id: row.id, version: parseKeptCount(key, row.__tags).version } : null
}

/** Remembers where the page and the next one begin, and answers the page with the count its rows carry
 * (folded when crowded). The rows keep `__tags`, which no record is made of: deleting it from each row cost
 * more than the rest of this module. */
async function rememberPage(
  boundaries: PageBoundaries,
  db: Db,
  key: KeptKey,
  offset: number,
  limit: number,
  rows: Row[],
): Promise<PageRows> {
  if (!rows.length) return { rows }
  const count = parseKeptCount(key, rows[0].__tags)
  const mark = (position: number, id: number) => {
    if (position >= SEEK_FROM) boundaries.set(`${keyText(key)}@${position}`, { version: count.version, id })
  }
  mark(offset, Number(rows[0].id))
  if (rows.length === limit) mark(offset + limit, Number(rows[rows.length - 1].id) + 1)
  await foldKeyIfCrowded(db, key, count.rows)
  return { rows, count: count.count }
}
