import { sql } from 'kysely'
import { crowded, foldCrowded, foldKept, type KeptDeltas } from '../db/keptDeltas.js'
import type { Db } from './resource.js'

// The exact number of tags in a tag set, from the per-statement rows the tags
// table's triggers keep (migration 2026_11_22_0003): a sum over a few rows
// instead of a count over up to millions. When a tag set has gathered many
// rows they are folded into one (server/db/keptDeltas.ts). The same
// for the tags of a tag set in one class or one media file (migration
// 2026_11_27_3501): a KeptKey names which.

/** how often a server folds the rows of tag sets written to without being listed */
export const FOLD_EVERY_MS = 30_000

export interface TagSetCount {
  count: number
  rows: number
}

export async function tagSetTagCount(db: Db, tagSetId: number): Promise<TagSetCount> {
  const r = await db
    .selectFrom('tag_set_tag_counts')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<string>('delta'), sql<string>`0`).as('count'),
      eb.fn.countAll<string>().as('rows'),
    ])
    .where('tag_set_id', '=', tagSetId)
    .executeTakeFirstOrThrow()
  const result = { count: Number(r.count), rows: Number(r.rows) }
  await foldIfCrowded(db, tagSetId, result.rows)
  return result
}

/** The number of a tag set's tags as an SQL expression, for a statement that reads it beside other things. */
export const tagSetTagCountSql = (tagSetId: number) =>
  sql<string>`(select coalesce(sum(c.delta), 0) from tag_set_tag_counts c where c.tag_set_id = ${tagSetId})`

/** The count, the number of its rows and their largest id as one text, for a statement that reads it beside
 * other things (a page of the tag set); read it back with parseTagSetCount. The rows and their largest id
 * change with every write of the set's tags, so they are a version of its ids (tagSetPages.ts). */
export const tagSetCountSql = (tagSetId: number) => sql<string>`(select coalesce(sum(c.delta), 0) || ':' || count(*)
  || ':' || coalesce(max(c.id), 0) from tag_set_tag_counts c where c.tag_set_id = ${tagSetId})`

export function parseTagSetCount(text: unknown): TagSetCount & { version: string } {
  const [count, rows, last] = String(text).split(':')
  return { count: Number(count), rows: Number(rows), version: `${rows}:${last}` }
}

/** A list whose count is kept: a tag set's tags, or those of one class or one media file in it (`by`), or those
 * with machineTagged or userTagged true or false (`flag`). */
export interface KeptKey {
  tagSetId: number
  by?: { column: 'tag_class_id' | 'media_file_id'; id: number }
  flag?: { column: 'machine_tagged' | 'user_tagged'; value: boolean }
}

const FLAG_DELTAS = { machine_tagged: 'machine_delta', user_tagged: 'user_delta' } as const

const KEPT_TABLES = { tag_class_id: 'tag_class_counts', media_file_id: 'tag_file_counts' } as const

/** The kept count of `key` with its tag set's version (tagSetCountSql), as one text; read it back with
 * parseKeptCount. */
export function keptCountSql(key: KeptKey) {
  if (key.flag) {
    // the flagged of the set's tags, or the others: its version with the count of those
    const flagged = sql`coalesce(sum(${sql.ref(`c.${FLAG_DELTAS[key.flag.column]}`)}), 0)`
    const count = key.flag.value ? flagged : sql`coalesce(sum(c.delta), 0) - ${flagged}`
    return sql<string>`(select ${count} || ':' || count(*) || ':' || coalesce(max(c.id), 0)
      from tag_set_tag_counts c where c.tag_set_id = ${key.tagSetId})`
  }
  if (!key.by) return tagSetCountSql(key.tagSetId)
  const table = sql.table(KEPT_TABLES[key.by.column])
  return sql<string>`(select coalesce(sum(k.delta), 0) || ':' || count(*) || ':' || ${tagSetCountSql(key.tagSetId)}
    from ${table} k where k.tag_set_id = ${key.tagSetId} and ${sql.ref(`k.${key.by.column}`)} = ${key.by.id})`
}

/** The kept count and version of keptCountSql's text; `rows` the number of rows of the key's own count. */
export function parseKeptCount(key: KeptKey, text: unknown): TagSetCount & { version: string } {
  if (!key.by) return parseTagSetCount(text) // a flag's text has the tag set's form
  const [count, rows, ...set] = String(text).split(':')
  return { count: Number(count), rows: Number(rows), version: parseTagSetCount(set.join(':')).version }
}

// the kept-count tables have no foreign key to the tag set (migration 2026_12_01_4201), to the class
// (2026_12_01_4202) or to the media file (2026_11_29_3501): a fold locks them instead
/** The rows kept per tag set, and per tag set and class or media file (a KeptKey's `by`). */
const TAG_SET_COUNTS: KeptDeltas = {
  table: 'tag_set_tag_counts',
  scope: ['tag_set_id'],
  keys: [],
  deltas: ['delta', 'machine_delta', 'user_delta'],
  parents: { tag_set_id: 'tag_sets' },
}
/** `column`'s kept counts, whose fold locks the tag set and the record of `parent` each names */
const keyCounts = (column: keyof typeof KEPT_TABLES, parent: string): KeptDeltas => ({
  table: KEPT_TABLES[column],
  scope: ['tag_set_id', column],
  keys: [],
  deltas: ['delta'],
  parents: { tag_set_id: 'tag_sets', [column]: parent },
})
const KEY_COUNTS = {
  tag_class_id: keyCounts('tag_class_id', 'tag_classes'),
  media_file_id: keyCounts('media_file_id', 'media_files'),
}

/** Fold the rows of `key` read to have `rows` of them, when they are many. */
export async function foldKeyIfCrowded(db: Db, key: KeptKey, rows: number): Promise<void> {
  if (!crowded(rows)) return
  // a flag's rows are the tag set's
  if (!key.by) return foldKept(db, TAG_SET_COUNTS, [key.tagSetId])
  await foldKept(db, KEY_COUNTS[key.by.column], [key.tagSetId, key.by.id])
}

/** Fold the rows of a tag set read to have `rows` of them, when they are many. */
export async function foldIfCrowded(db: Db, tagSetId: number, rows: number): Promise<void> {
  if (crowded(rows)) await foldKept(db, TAG_SET_COUNTS, [tagSetId])
}

/** Fold the rows of every tag set, and of every tag set's class or media file, that has gathered more than
 * FOLD_AFTER_ROWS of them; answers how many were folded. Reading a count folds its own rows; this keeps sets
 * that are written to but not listed (a script adding tags one by one) from growing the tables, which would
 * slow every count. */
export async function foldCrowdedTagSets(db: Db): Promise<number> {
  let folded = await foldCrowded(db, TAG_SET_COUNTS)
  for (const kept of Object.values(KEY_COUNTS)) folded += await foldCrowded(db, kept)
  return folded
}
