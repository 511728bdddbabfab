import { Readable } from 'node:stream'
import { sql, type RawBuilder } from 'kysely'
import type { CopyOut } from '../db/copyOut.js'
import type { Permits } from '../db/permits.js'
import type { Endpoint } from '../http/endpoint.js'
import { recordText } from './recordText.js'
import { answerFieldsOf, API, type Db } from './resource.js'
import type { ResourceDef } from './core/define.js'
import type { Fields } from '../http/fields.js'
import { tags } from './tag.js'
import { tagReviews } from './tagReview.js'
import { tagSets } from './tagSet.js'
import { tagSetTagCount } from './tagSetCount.js'

// GET tagSet/{id}/tags.ndjson and GET tagSet/{id}/reviews.ndjson (extensions, docs/decisions.md "Lists at scale"
// and §33): every tag of a readable tag set, one JSON record a line (the records of tag/), in id order; or every
// decision on its tags (the records of tagReview/), a tag's decisions together, in the order of their tags. Each is
// one answer, read in batches of consecutive keys (a tag's id, a decision's tag), each the text of its records
// written by the database (recordText.ts) as the lines of a COPY, whose bytes are answered as they came
// (db/copyOut.ts); each batch's last key is found first (an index-only walk of (tag_set_id, id) or (tag_set_id,
// tag_id)), so that two batches are read at once, on two connections, while the client takes the one before: the
// server holds three batches at most whatever the size of the set, and reads on only as the client takes them (a
// pull stream). The batches are separate statements: rows written meanwhile may or may not be in the answer, as
// with paging. X-Total-Count is the number of rows when the answer began. `?fields=` (as on a bulk create,
// docs/decisions.md §9) keeps only the fields named in each line: a CSV export asks for its columns, a third of a
// record's text. `mas tag export` reads these answers when the server offers them. The statements of all exports
// at once are bounded (EXPORT_STATEMENTS): more exports share those connections and are slower, none is refused,
// and other requests keep the rest of the pool.

const BATCH = 5_000
/** batches read at once */
const AHEAD = 2
/** statements of every export at once, on one database: two exports read ahead at full speed, more share
 * these connections, and the rest of the pool (10 by default) stays for every other request */
export const EXPORT_STATEMENTS = 4

/** What one of these answers reads: the rows of a table that carry their tag set, as the records of `resource`. */
interface SetRows<T extends 'tags' | 'tag_reviews'> {
  resource: ResourceDef<T>
  /** the order of the batches: a tag's id, or the tag a decision is on (its decisions are read in one batch) */
  key: 'id' | 'tag_id'
  /** how many rows the set has now (X-Total-Count) */
  count(db: Db, tagSetId: number): Promise<number>
}

const TAG_ROWS: SetRows<'tags'> = {
  resource: tags,
  key: 'id',
  count: async (db, tagSetId) => (await tagSetTagCount(db, tagSetId)).count,
}

const REVIEW_ROWS: SetRows<'tag_reviews'> = {
  resource: tagReviews,
  key: 'tag_id',
  count: async (db, tagSetId) =>
    Number(
      (
        await db
          .selectFrom('tag_reviews')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('tag_set_id', '=', tagSetId)
          .executeTakeFirstOrThrow()
      ).n,
    ),
}

/** The endpoint answering `rows` of a readable tag set as NDJSON. */
function setRowsEndpoint<T extends 'tags' | 'tag_reviews'>(
  rows: SetRows<T>,
  path: string,
  name: string,
  description: string,
  answer: string,
): Endpoint {
  /** a whole record's text, made once */
  const wholeText = recordText(rows.resource.fields, 'r')
  return {
    path: `${API}/tagSet/:id/${path}`,
    name,
    description,
    methods: {
      GET: async (ctx) => {
        const asked = answerFieldsOf(ctx, rows.resource)
        const { row: tagSet } = await ctx.services.records.fetch(ctx, tagSets, ctx.params.id, ['read'])
        const total = await rows.count(ctx.db, tagSet.id)
        const fields = rows.resource.fields as Fields
        const text = asked ? recordText(Object.fromEntries(asked.map((n) => [n, fields[n]])), 'r') : wholeText
        if (!text) throw new Error(`every field of a ${rows.resource.name} has a column of a type recordText writes`)
        return {
          headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'x-total-count': String(total) },
          body: Readable.from(
            batches(ctx.services.exportPermits, ctx.services.copyOut, ctx.db, rows, tagSet.id, text),
            { objectMode: false },
          ),
        }
      },
    },
    doc: {
      keys: ['tagSet'],
      actions: { GET: path },
      filters: {
        fields: {
          type: 'string',
          description: 'comma-separated: each line holds only these fields of the record (e.g. id,startTime,endTime)',
        },
      },
      list: false,
      success: { GET: [{ status: 200, description: answer, also: ['application/x-ndjson'] }] },
    },
  }
}

export const tagSetExportEndpoint = setRowsEndpoint(
  TAG_ROWS,
  'tags.ndjson',
  'Tag Set Tags (NDJSON)',
  'Every tag of the tag set as newline-delimited JSON, one tag record a line, ordered by id; X-Total-Count gives their number.',
  "The tag set's tags, one JSON tag record a line (application/x-ndjson)",
)

export const tagSetReviewsEndpoint = setRowsEndpoint(
  REVIEW_ROWS,
  'reviews.ndjson',
  'Tag Set Reviews (NDJSON)',
  "Every decision on the tag set's tags as newline-delimited JSON, one tagReview record a line, a tag's decisions together " +
    'in the order of their tags (by id), the tags in id order; X-Total-Count gives their number.',
  "The decisions on the tag set's tags, one JSON tagReview record a line (application/x-ndjson)",
)

/** The columns the batches read of the rows' table: its set, its id and its key (a tag's own id, or a decision's tag). */
interface SetRow {
  tag_set_id: number
  id: number
  tag_id: number
}

const tableOf = <T extends 'tags' | 'tag_reviews', A extends string>(rows: SetRows<T>, alias: A) =>
  sql<SetRow>`${sql.table(rows.resource.table)}`.as(alias)

/** The last key of the next batch of the set's rows after `after`, and whether it is the set's last batch (fewer
 * than BATCH follow); null when no row follows. A batch ends with every row of its last key, so it may hold more
 * than BATCH rows when rows share a key. */
async function nextBatch<T extends 'tags' | 'tag_reviews'>(
  db: Db,
  rows: SetRows<T>,
  tagSetId: number,
  after: number,
): Promise<{ upto: number; last: boolean } | null> {
  const key = `s.${rows.key}` as const
  const keys = db
    .selectFrom(tableOf(rows, 's'))
    .select(`${key} as k`)
    .where('s.tag_set_id', '=', tagSetId)
    .where(key, '>', after)
    .orderBy(key)
    .limit(BATCH)
  const row = await db
    .selectFrom(keys.as('b'))
    .select([sql<number | null>`max(b.k)`.as('upto'), sql<number>`count(*)::integer`.as('rows')])
    .executeTakeFirstOrThrow()
  return row.upto === null ? null : { upto: row.upto, last: row.rows < BATCH }
}

/** The NDJSON bytes of the set's rows of keys after `after` up to `upto`, in key order (then by id), each record's
 * text `text`: the lines of a COPY, written as they are (CSV with a delimiter and a quote that a JSON text never
 * holds raw, so no line is quoted). */
function batch<T extends 'tags' | 'tag_reviews'>(
  copyOut: CopyOut,
  db: Db,
  rows: SetRows<T>,
  tagSetId: number,
  after: number,
  upto: number,
  text: RawBuilder<string>,
) {
  const key = `r.${rows.key}` as const
  let lines = db
    .selectFrom(tableOf(rows, 'r'))
    .select(text.as('line'))
    .where('r.tag_set_id', '=', sql.lit(tagSetId))
    .where(key, '>', sql.lit(after))
    .where(key, '<=', sql.lit(upto))
    .orderBy(key)
  if (rows.key !== 'id') lines = lines.orderBy('r.id')
  return copyOut(sql`copy (${lines}) to stdout (format csv, delimiter e'\\x02', quote e'\\x01')`.compile(db))
}

/** The NDJSON text of the set's rows, a batch at a time, AHEAD batches being read. */
async function* batches<T extends 'tags' | 'tag_reviews'>(
  permits: Permits,
  copyOut: CopyOut,
  db: Db,
  rows: SetRows<T>,
  tagSetId: number,
  record: RawBuilder<string>,
): AsyncGenerator<Buffer> {
  const reading: Array<Promise<Buffer[]>> = []
  let after = 0
  let ended = false
  try {
    for (;;) {
      while (!ended && reading.length < AHEAD) {
        const from = after
        const next = await permits.run(() => nextBatch(db, rows, tagSetId, from))
        if (next === null) {
          ended = true
          break
        }
        reading.push(permits.run(() => batch(copyOut, db, rows, tagSetId, from, next.upto, record)))
        ended = next.last
        after = next.upto
      }
      const next = reading.shift()
      if (!next) return
      yield* await next
    }
  } finally {
    // a client gone mid-answer leaves batches read for nobody: their failures (a connection lost) are no one's to hear
    for (const r of reading) r.catch(() => {})
  }
}
