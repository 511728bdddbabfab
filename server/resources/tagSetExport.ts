import { Readable } from 'node:stream'
import { sql, type RawBuilder } from 'kysely'
import type { Permits } from '../db/permits.js'
import type { Endpoint } from '../http/endpoint.js'
import { recordText } from './recordText.js'
import { answerFieldsOf, API, type Db } from './resource.js'
import { tags } from './tag.js'
import { tagSets } from './tagSet.js'
import { tagSetTagCount } from './tagSetCount.js'

// GET tagSet/{id}/tags.ndjson (extension, docs/decisions.md "Lists at scale"): every tag of a readable tag set,
// one JSON record a line (the records of tag/), in id order, in one answer. It is read in batches of consecutive
// ids, each the text of its records joined by the database (recordText.ts); the ids that end the batches are
// found first (an index-only walk of (tag_set_id, id)), so that two batches are read at once, on two
// connections, while the client takes the one before: the server holds three batches at most whatever the size
// of the set, and reads on only as the client takes them (a pull stream). The batches are separate
// statements: tags written meanwhile may or may not be in the answer, as with paging. X-Total-Count is the
// number of tags when the answer began. `?fields=` (as on a bulk create, docs/decisions.md §9) keeps only the fields
// named in each line: a CSV export asks for its columns, a third of a record's text. `mas tag export` reads this
// answer when the server offers it. The statements of
// all exports at once are bounded (EXPORT_STATEMENTS): more exports share those connections and are slower,
// none is refused, and other requests keep the rest of the pool.

const BATCH = 5_000
/** batches read at once */
const AHEAD = 2
/** statements of every export at once, on one database: two exports read ahead at full speed, more share
 * these connections, and the rest of the pool (10 by default) stays for every other request */
export const EXPORT_STATEMENTS = 4

/** a whole tag record's text, made once */
const TAG_TEXT = recordText(tags.fields, 'r')

export const tagSetExportEndpoint: Endpoint = {
  path: `${API}/tagSet/:id/tags.ndjson`,
  name: 'Tag Set Tags (NDJSON)',
  description:
    'Every tag of the tag set as newline-delimited JSON, one tag record a line, ordered by id; X-Total-Count gives their number.',
  methods: {
    GET: async (ctx) => {
      const asked = answerFieldsOf(ctx, tags)
      const { row: tagSet } = await ctx.services.records.fetch(ctx, tagSets, ctx.params.id, ['read'])
      const total = (await tagSetTagCount(ctx.db, tagSet.id)).count
      const text = asked
        ? recordText(Object.fromEntries(asked.map((name) => [name, tags.fields[name]])), 'r')
        : TAG_TEXT
      if (!text) throw new Error('every field of a tag has a column of a type recordText writes')
      return {
        headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'x-total-count': String(total) },
        body: Readable.from(batches(ctx.services.exportPermits, ctx.db, tagSet.id, text), { objectMode: false }),
      }
    },
  },
  doc: {
    keys: ['tagSet'],
    actions: { GET: 'tags.ndjson' },
    filters: {
      fields: {
        type: 'string',
        description: 'comma-separated: each line holds only these fields of the tag record (e.g. id,startTime,endTime)',
      },
    },
    list: false,
    success: {
      GET: [
        {
          status: 200,
          description: "The tag set's tags, one JSON tag record a line (application/x-ndjson)",
          also: ['application/x-ndjson'],
        },
      ],
    },
  },
}

interface Batch {
  text: string | null
  rows: number
  last: number | null
}

/** The id of the BATCH-th tag of the set after `after`, or null when fewer follow it. */
async function batchEnd(db: Db, tagSetId: number, after: number): Promise<number | null> {
  const row = await db
    .selectFrom('tags')
    .select('id')
    .where('tag_set_id', '=', tagSetId)
    .where('id', '>', after)
    .orderBy('id')
    .offset(BATCH - 1)
    .limit(1)
    .executeTakeFirst()
  return row?.id ?? null
}

/** The NDJSON text of the set's tags after `after` up to `upto` (or BATCH of them when null), each record's text
 * `text`, with their number and the last id. */
async function batch(
  db: Db,
  tagSetId: number,
  after: number,
  upto: number | null,
  text: RawBuilder<string>,
): Promise<Batch> {
  let page = db.selectFrom('tags as r').selectAll('r').where('r.tag_set_id', '=', tagSetId).where('r.id', '>', after)
  if (upto !== null) page = page.where('r.id', '<=', upto)
  return db
    .selectFrom(page.orderBy('r.id').limit(BATCH).as('r'))
    .select([
      sql<string | null>`string_agg(${text}, E'\n' order by r.id)`.as('text'),
      sql<number>`count(*)::integer`.as('rows'),
      sql<number | null>`max(r.id)`.as('last'),
    ])
    .executeTakeFirstOrThrow()
}

/** The NDJSON text of the tag set's tags, a batch at a time, AHEAD batches being read. */
async function* batches(
  permits: Permits,
  db: Db,
  tagSetId: number,
  record: RawBuilder<string>,
): AsyncGenerator<string> {
  const reading: Array<{ open: boolean; batch: Promise<Batch> }> = []
  let after = 0
  let ended = false
  try {
    for (;;) {
      while (!ended && reading.length < AHEAD) {
        const from = after
        const upto = await permits.run(() => batchEnd(db, tagSetId, from))
        // the last batch has no end: it reads to the end of the set, or BATCH tags when more were added since
        reading.push({ open: upto === null, batch: permits.run(() => batch(db, tagSetId, from, upto, record)) })
        if (upto === null) ended = true
        else after = upto
      }
      const next = reading.shift()
      if (!next) return
      const { text, rows, last } = await next.batch
      if (text !== null) yield `${text}\n`
      if (next.open) {
        if (rows < BATCH || last === null) return
        after = last
        ended = false
      }
    }
  } finally {
    // a client gone mid-answer leaves batches read for nobody: their failures (a connection lost) are no one's to hear
    for (const r of reading) r.batch.catch(() => {})
  }
}
