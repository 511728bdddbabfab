import { Readable } from 'node:stream'
import { sql } from 'kysely'
import type { Endpoint } from '../http/endpoint.js'
import { anyTable } from './core/define.js'
import { listPageJson } from './fast/jsonRecord.js'
import { API, fetchRecord, type Db } from './resource.js'
import { tags } from './tag.js'
import { tagSets } from './tagSet.js'
import { tagSetTagCount } from './tagSetCount.js'

// GET tagSet/{id}/tags.ndjson (extension, docs/decisions.md "Lists at scale"): every tag of a readable tag set,
// one JSON record a line (the records of tag/), in id order, in one answer. It is read in batches that each
// seek past the last id sent (the (tag_set_id, id) index), and the next batch is read only when the client has
// taken the last one: the server holds one batch whatever the size of the set. The batches are separate
// statements: tags written meanwhile may or may not be in the answer, as with paging. X-Total-Count is the
// number of tags when the answer began. `mas tag export` reads it when the server offers it.

const BATCH = 5000

export const tagSetExportEndpoint: Endpoint = {
  path: `${API}/tagSet/:id/tags.ndjson`,
  name: 'Tag Set Tags (NDJSON)',
  description: 'Every tag of the tag set as newline-delimited JSON, one tag record a line, ordered by id; X-Total-Count gives their number.',
  methods: {
    GET: async (ctx) => {
      const { row: tagSet } = await fetchRecord(ctx.db, tagSets, ctx.caller, ctx.params.id, ['read'], ctx.fast)
      const total = (await tagSetTagCount(ctx.db, tagSet.id)).count
      const json = listPageJson(ctx.db, tags, { origin: ctx.origin, now: new Date() })
      return {
        headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'x-total-count': String(total) },
        body: Readable.from(batches(ctx.db, tagSet.id, json), { objectMode: false }),
      }
    },
  },
  doc: {
    keys: ['tagSet'], actions: { GET: 'tags.ndjson' }, list: false,
    success: { GET: [{ status: 200, description: 'The tag set\'s tags, one JSON tag record a line (application/x-ndjson)', also: ['application/x-ndjson'] }] },
  },
}

/** The NDJSON text of the tag set's tags, a batch at a time: each batch one text the database joins, and the
 * last id in it, so no row of it becomes an object here. */
async function* batches(db: Db, tagSetId: number, json: ReturnType<typeof listPageJson>): AsyncGenerator<string> {
  for (let after = 0; ;) {
    const page = anyTable(db).selectFrom('tags as r').selectAll('r').where('r.tag_set_id', '=', tagSetId).where('r.id', '>', after)
      .orderBy('r.id').limit(BATCH)
    const batch = await anyTable(db).selectFrom(json(page, []).as('j'))
      .select([sql<string | null>`string_agg(j.__json, E'\n' order by j.id)`.as('text'), sql<string>`count(*)`.as('rows'), sql<number>`max(j.id)`.as('last')])
      .executeTakeFirstOrThrow()
    if (batch.text === null) return
    yield `${batch.text}\n`
    if (Number(batch.rows) < BATCH) return
    after = Number(batch.last)
  }
}
