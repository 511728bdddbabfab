import type { AnyRow } from '../db/schema.js'
import { pageOf, type Query } from '../http/list.js'
import type { Db, PageRows, PageRun } from './resource.js'
import { foldIfCrowded, parseTagSetCount, tagSetCountSql } from './tagSetCount.js'

// Deep pages of a tag set (no filters, ordered by id) without reading every
// tag before them each time: the id at a page's first position is remembered
// with the tag set's version, and the next request for that page seeks to it
// through the (tag_set_id, id) index instead of skipping `offset` entries.
//
// The version is the count (and the largest id) of the tag set's rows in
// tag_set_tag_counts (migration 2026_11_22_0003): every statement that adds,
// removes or moves tags of the set appends a row there, and the only rows ever
// removed are folded into a new, larger id. So an unchanged version means an
// unchanged set of ids. A seek reads the version in the same statement as its
// rows (with the count: tagSetCountSql) and is used only when it is the remembered one; otherwise the page is
// read with OFFSET (remembering its first id anew). Answers are exactly OFFSET's.

type Row = AnyRow


/** pages before this offset are cheap enough with OFFSET */
const SEEK_FROM = 1000
const MAX_REMEMBERED = 10_000

interface Boundary { version: string; id: number }
const remembered = new WeakMap<object, Map<string, Boundary>>()

/** `ordered` (the tag set's tags over `r`, by id) from `offset`: the same rows as LIMIT/OFFSET, with the number
 * of the tag set's tags, read in the same statement (unknown when the page is empty). */
export async function tagSetPage(db: Db, tagSetId: number, ordered: Query, limit: number, offset: number, run: PageRun): Promise<PageRows> {
  const counted = ordered.select(tagSetCountSql(tagSetId).as('__tags'))
  if (offset < SEEK_FROM) return withCount(db, tagSetId, await run(pageOf(counted, limit, offset), ['__tags']))
  let boundaries = remembered.get(db)
  if (!boundaries) remembered.set(db, boundaries = new Map())
  const key = `${tagSetId}:${offset}`
  const known = boundaries.get(key)
  if (known) {
    const rows = await run(pageOf(counted.where('r.id', '>=', known.id), limit), ['__tags'])
    if (rows.length && parseTagSetCount(rows[0].__tags).version === known.version) return withCount(db, tagSetId, rows)
    boundaries.delete(key)
  }
  const rows = await run(pageOf(counted, limit, offset), ['__tags'])
  if (rows.length) {
    if (boundaries.size >= MAX_REMEMBERED) boundaries.delete(boundaries.keys().next().value!)
    boundaries.set(key, { version: parseTagSetCount(rows[0].__tags).version, id: Number(rows[0].id) })
  }
  return withCount(db, tagSetId, rows)
}

/** The page, and the tag set's count its rows carry (folded when crowded). The rows keep `__tags`, which no
 * record is made of: deleting it from each row cost more than the rest of this module. */
async function withCount(db: Db, tagSetId: number, rows: Row[]): Promise<PageRows> {
  if (!rows.length) return { rows }
  const count = parseTagSetCount(rows[0].__tags)
  await foldIfCrowded(db, tagSetId, count.rows)
  return { rows, count: count.count }
}
