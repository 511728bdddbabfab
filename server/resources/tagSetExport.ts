import { Readable } from 'node:stream'
import { sql, type RawBuilder } from 'kysely'
import type { CopyOut } from '../db/copyOut.js'
import type { Permits } from '../db/permits.js'
import type { Endpoint } from '../http/endpoint.js'
import { recordText } from './recordText.js'
import { answerFieldsOf, API, type Db } from './resource.js'
import { tags } from './tag.js'
import { tagSets } from './tagSet.js'
import { tagSetTagCount } from './tagSetCount.js'

// GET tagSet/{id}/tags.ndjson (extension, docs/decisions.md "Lists at scale"): every tag of a readable tag set,
// one JSON record a line (the records of tag/), in id order, in one answer. It is read in batches of consecutive
// ids, each the text of its records written by the database (recordText.ts) as the lines of a COPY, whose bytes are
// answered as they came (db/copyOut.ts); each batch's last id is found first (an index-only walk of (tag_set_id,
// id)), so that two batches are read at once, on two connections, while the client takes the one before: the
// server holds three batches at most whatever the size of the set, and reads on only as the client takes them (a
// pull stream). The batches are separate statements: tags written meanwhile may or may not be in the answer, as
// with paging. X-Total-Count is the number of tags when the answer began. `?fields=` (as on a bulk create,
// docs/decisions.md §9) keeps only the fields named in each line: a CSV export asks for its columns, a third of a
// record's text. `mas tag export` reads this answer when the server offers it. The statements of all exports at
// once are bounded (EXPORT_STATEMENTS): more exports share those connections and are slower, none is refused, and
// other requests keep the rest of the pool.

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
        body: Readable.from(batches(ctx.services.exportPermits, ctx.services.copyOut, ctx.db, tagSet.id, text), {
          objectMode: false,
        }),
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

/** The last id of the next batch of the set's tags after `after`, and whether it is the set's last batch (fewer
 * than BATCH follow); null when no tag follows. */
async function nextBatch(db: Db, tagSetId: number, after: number): Promise<{ upto: number; last: boolean } | null> {
  const ids = db
    .selectFrom('tags')
    .select('id')
    .where('tag_set_id', '=', tagSetId)
    .where('id', '>', after)
    .orderBy('id')
    .limit(BATCH)
  const row = await db
    .selectFrom(ids.as('b'))
    .select([sql<number | null>`max(b.id)`.as('upto'), sql<number>`count(*)::integer`.as('rows')])
    .executeTakeFirstOrThrow()
  return row.upto === null ? null : { upto: row.upto, last: row.rows < BATCH }
}

/** The NDJSON bytes of the set's tags after `after` up to `upto`, each record's text `text`: the lines of a COPY,
 * written as they are (CSV with a delimiter and a quote that a JSON text never holds raw, so no line is quoted). */
function batch(copyOut: CopyOut, db: Db, tagSetId: number, after: number, upto: number, text: RawBuilder<string>) {
  const lines = db
    .selectFrom('tags as r')
    .select(text.as('line'))
    .where('r.tag_set_id', '=', sql.lit(tagSetId))
    .where('r.id', '>', sql.lit(after))
    .where('r.id', '<=', sql.lit(upto))
    .orderBy('r.id')
  return copyOut(sql`copy (${lines}) to stdout (format csv, delimiter e'\\x02', quote e'\\x01')`.compile(db))
}

/** The NDJSON text of the tag set's tags, a batch at a time, AHEAD batches being read. */
async function* batches(
  permits: Permits,
  copyOut: CopyOut,
  db: Db,
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
        const next = await permits.run(() => nextBatch(db, tagSetId, from))
        if (next === null) {
          ended = true
          break
        }
        reading.push(permits.run(() => batch(copyOut, db, tagSetId, from, next.upto, record)))
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
