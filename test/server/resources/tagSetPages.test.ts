import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { localTimestamp } from '../../../server/db/time.js'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeMediaFile, makeTagClass, makeTagSet } from '../../helpers/records.js'
import { makeRecords } from '../../helpers/world.js'

// Deep pages of tagSet/{id}/tags/ seek to a remembered first id: every answer
// must equal LIMIT/OFFSET over the tags as they are, after every kind of write.

const API = '/api/v0'
const t = suiteApp(test)
let owner: TestUser
let file: number, cls: number, other: number, otherClass: number
let set: number, neighbour: number

const TAGS = 1250

test.before(async () => {
  let lib: number
  ;({ owner, library: lib, tagSet: set, tagClass: cls, mediaFile: file } = await makeRecords(t, 'pager'))
  other = await makeMediaFile(t.db, owner, lib)
  otherClass = await makeTagClass(t.db, owner, lib)
  neighbour = await makeTagSet(t.db, owner, lib)
  // the two sets' tags interleaved, so a set's ids are not one run of numbers
  await insertTags(Array.from({ length: TAGS * 2 }, (_, i) => (i % 2 ? neighbour : set)))
})

async function insertTags(sets: number[]) {
  const now = localTimestamp()
  await t.db
    .insertInto('tags')
    .values(
      sets.map((tagSet, i) => ({
        user_id: owner.id,
        creation_date: now,
        tag_class_id: i % 3 ? cls : otherClass,
        tag_set_id: tagSet,
        media_file_id: i % 5 ? file : other,
        start_time: 1,
        end_time: 2,
        min_frequency: 100,
        max_frequency: 2000,
        strength: 0,
      })),
    )
    .execute()
}

/** The ids LIMIT/OFFSET gives, straight from the table. */
async function expected(offset: number, limit = 100): Promise<number[]> {
  const rows = await t.db
    .selectFrom('tags')
    .select('id')
    .where('tag_set_id', '=', set)
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute()
  return rows.map((r) => r.id)
}

async function total(): Promise<number> {
  const r = await t.db
    .selectFrom('tags')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tag_set_id', '=', set)
    .executeTakeFirstOrThrow()
  return Number(r.n)
}

async function page(query: string) {
  const res = await t.call('GET', `${API}/tagSet/${set}/tags/?${query}`, { as: owner })
  assert.is(res.statusCode, 200, `${query}: ${JSON.stringify(res.data)}`)
  return res.data
}

/** Pages at and past the seek threshold (offsets 1000, 1100, 1200) equal OFFSET's, asked twice (the second seeks). */
async function assertDeepPages() {
  const count = await total()
  for (let round = 0; round < 2; round++) {
    for (const n of [11, 12, 13]) {
      const data = await page(`page=${n}`)
      assert.equal(
        data.results.map((r: any) => r.id),
        await expected((n - 1) * 100),
        `page ${n}, round ${round}`,
      )
      assert.is(data.count, count)
    }
  }
}

test('deep pages equal OFFSET, asked again', async () => {
  await assertDeepPages()
  const data = await page('page=11&page_size=50')
  assert.equal(
    data.results.map((r: any) => r.id),
    await expected(500, 50),
  )
})

test('deep pages follow tags deleted before the boundary', async () => {
  await assertDeepPages()
  const [early] = await expected(10, 1)
  const gone = await t.call('DELETE', `${API}/tag/${early}/`, { as: owner })
  assert.is(gone.statusCode, 204)
  await assertDeepPages()
  const [another] = await expected(1050, 1)
  await t.db.deleteFrom('tags').where('id', '=', another).execute()
  await assertDeepPages()
})

test('deep pages follow tags added and tags moved to another set', async () => {
  await assertDeepPages()
  const created = await t.call('POST', `${API}/tag/`, {
    as: owner,
    body: {
      tagSet: set,
      mediaFile: file,
      tagClass: cls,
      startTime: 1,
      endTime: 2,
      minFrequency: 100,
      maxFrequency: 2000,
    },
  })
  assert.is(created.statusCode, 201)
  await assertDeepPages()
  const [moved] = await expected(3, 1)
  const patched = await t.call('PATCH', `${API}/tag/${moved}/`, { as: owner, body: { tagSet: neighbour } })
  assert.is(patched.statusCode, 200)
  await assertDeepPages()
  // tags moved into the set from its neighbour land before the boundary
  const back = await t.db
    .selectFrom('tags')
    .select('id')
    .where('tag_set_id', '=', neighbour)
    .orderBy('id')
    .limit(5)
    .execute()
  await t.db
    .updateTable('tags')
    .set({ tag_set_id: set })
    .where(
      'id',
      'in',
      back.map((r) => r.id),
    )
    .execute()
  await assertDeepPages()
})

test('deep pages stay exact when the neighbour changes and when the count rows are folded', async () => {
  await assertDeepPages()
  await insertTags([neighbour, neighbour])
  await assertDeepPages()
  // one statement per tag: more count rows than are kept before folding them into one
  for (let i = 0; i < 70; i++) await insertTags([i % 2 ? set : neighbour])
  await assertDeepPages()
  await assertDeepPages()
})

test('filtered and reordered deep pages are plain OFFSET', async () => {
  const byClass = await page(`tagClass=${cls}&page=8`)
  const rows = await t.db
    .selectFrom('tags')
    .select('id')
    .where('tag_set_id', '=', set)
    .where('tag_class_id', '=', cls)
    .orderBy('id')
    .limit(100)
    .offset(700)
    .execute()
  assert.equal(
    byClass.results.map((r: any) => r.id),
    rows.map((r) => r.id),
  )
  const descending = await page('ordering=-id&page=11')
  const desc = await t.db
    .selectFrom('tags')
    .select('id')
    .where('tag_set_id', '=', set)
    .orderBy('id', 'desc')
    .limit(100)
    .offset(1000)
    .execute()
  assert.equal(
    descending.results.map((r: any) => r.id),
    desc.map((r) => r.id),
  )
  const last = await page('page=last')
  const count = await total()
  assert.equal(
    last.results.map((r: any) => r.id),
    await expected(Math.floor((count - 1) / 100) * 100),
  )
  const past = await t.call('GET', `${API}/tagSet/${set}/tags/?page=${Math.ceil(count / 100) + 1}`, { as: owner })
  assert.is(past.statusCode, 404)
  assert.equal(past.data, { detail: 'Invalid page.' })
})

test.run()
