import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { sql } from 'kysely'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { anyTable } from '../../../server/resources/core/define.js'
import { listPageJson } from '../../../server/resources/fast/jsonRecord.js'
import { recordText } from '../../../server/resources/recordText.js'
import { tags } from '../../../server/resources/tag.js'
import { makeTag, makeTagExample } from '../../helpers/records.js'
import { makeRecords, tagRefs } from '../../helpers/world.js'

// The export of a tag set writes each tag's JSON record as one concatenation of its columns' texts
// (server/resources/recordText.ts), which must be, byte for byte, the text the lists write (row_to_json,
// fast/jsonRecord.ts): on values where the two ways of writing could differ (floats in exponent form, -0,
// NaN and the infinities, nulls, annotations with quotes, escapes and characters beyond ASCII).

const API = '/api/v0'
const t = suiteApp(test)
let owner: TestUser
let tagSet: number
const made: number[] = []

const FLOATS = [
  0,
  -0,
  0.1,
  1e-5,
  1.5e-7,
  123456789012345.6,
  1e15,
  1e20,
  1.7976931348623157e308,
  5e-324,
  2 / 3,
  1234.5,
  0.30000000000000004,
]

test.before(async () => {
  owner = await t.user('record-text-owner')
  const refs = tagRefs(await makeRecords(t, owner))
  tagSet = refs.tagSet
  const example = await makeTagExample(t.db, owner, refs)
  for (const [i, v] of FLOATS.entries()) {
    made.push(
      await makeTag(t.db, owner, refs, {
        startTime: v,
        endTime: FLOATS[(i + 1) % FLOATS.length],
        minFrequency: v,
        maxFrequency: 2 * v,
        strength: -v,
      }),
    )
  }
  made.push(await makeTag(t.db, owner, refs, { tagExample: example, parentTag: made[0] }))
  made.push(await makeTag(t.db, owner, refs, { parentTag: made[1] }))
  // values no request can store, written by hand: NaN and the infinities, which row_to_json quotes
  const odd = [await makeTag(t.db, owner, refs), await makeTag(t.db, owner, refs)]
  await t.db
    .updateTable('tags')
    .set({ start_time: sql`'NaN'::float8`, strength: sql`'-Infinity'::float8`, max_frequency: sql`'Infinity'::float8` })
    .where('id', '=', odd[0])
    .execute()
  await t.db
    .updateTable('tags')
    .set({
      annotations: sql`${JSON.stringify({ Notes: 'a "quoted" note\\ with\ttab\nand line', Species: 'Mésange bleue 🐦', 'Call\u0001type': '\u2028', Empty: '' })}::json`,
      machine_tagged: true,
      user_tagged: true,
      randomly_chosen: true,
    })
    .where('id', '=', odd[1])
    .execute()
  made.push(...odd)
})

test("each tag's text is the JSON record the lists write, byte for byte", async () => {
  const text = recordText(tags.fields, 'r')
  assert.ok(text, 'every field of a tag has a form')
  const page = anyTable(t.db).selectFrom('tags as r').selectAll('r').where('r.id', 'in', made)
  const listed = (await listPageJson(t.db, tags, { origin: 'http://x', now: new Date() })(
    page,
    [],
  ).execute()) as Array<{ id: number; __json: string }>
  const written = await t.db
    .selectFrom('tags as r')
    .select(['r.id', text!.as('text')])
    .where('r.id', 'in', made)
    .execute()
  assert.is(listed.length, made.length)
  const byId = new Map(written.map((w) => [w.id, w.text]))
  for (const { id, __json } of listed) assert.is(byId.get(id), __json, `tag ${id}`)
  assert.ok(
    listed.some((l) => l.__json.includes('"startTime":"NaN"')),
    'NaN is among the values compared',
  )
  assert.ok(
    listed.some((l) => l.__json.includes('e-05')),
    'a float in exponent form is among them',
  )
})

test('tags.ndjson answers those texts, one a line in id order', async () => {
  const res = await t.call('GET', `${API}/tagSet/${tagSet}/tags.ndjson`, { as: owner })
  assert.is(res.statusCode, 200)
  const page = anyTable(t.db).selectFrom('tags as r').selectAll('r').where('r.tag_set_id', '=', tagSet)
  const listed = (await listPageJson(t.db, tags, { origin: 'http://x', now: new Date() })(
    page,
    [],
  ).execute()) as Array<{ id: number; __json: string }>
  listed.sort((a, b) => a.id - b.id)
  assert.is(res.body, listed.map((l) => `${l.__json}\n`).join(''))
})

test.run()
