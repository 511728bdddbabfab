import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { sql } from 'kysely'
import { duplicatesQuery } from '../../../server/resources/core/duplicates.js'
import { tags } from '../../../server/resources/tag.js'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeMediaFile, makeTagClass, makeTagSet } from '../../helpers/records.js'
import { makeRecords } from '../../helpers/world.js'

// POST tag/?onDuplicate=skip: a tag identical to one stored in its tag set (same media file, class,
// times and frequencies) is not created again, and the answer says which items were skipped.

const API = '/api/v0'
const t = suiteApp(test)
let alice: TestUser
let refs: { mediaFile: number; tagClass: number }
let library: number

test.before(async () => {
  const r = await makeRecords(t, 'alice')
  ;({ owner: alice, library } = r)
  refs = { mediaFile: r.mediaFile, tagClass: r.tagClass }
})

const tag = (tagSet: number, startTime: number, extra: Record<string, unknown> = {}) => ({
  ...refs,
  tagSet,
  startTime,
  endTime: startTime + 0.25,
  minFrequency: 1000,
  maxFrequency: 4000.5,
  ...extra,
})
const count = async (tagSet: number) =>
  Number(
    (
      await t.db
        .selectFrom('tags')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tag_set_id', '=', tagSet)
        .executeTakeFirstOrThrow()
    ).n,
  )

test('a re-run of a bulk create with onDuplicate=skip creates nothing and names every item skipped', async () => {
  const set = await makeTagSet(t.db, alice, library)
  const items = [tag(set, 0.1), tag(set, 1.7), tag(set, 2.3)]
  const first = await t.call('POST', `${API}/tag/?onDuplicate=skip`, { as: alice, body: items })
  assert.is(first.statusCode, 201, first.body)
  assert.equal(first.data.skipped, [])
  assert.equal(
    first.data.results.map((r: any) => r.startTime),
    [0.1, 1.7, 2.3],
  )
  const again = await t.call('POST', `${API}/tag/?onDuplicate=skip`, { as: alice, body: items })
  assert.is(again.statusCode, 201)
  assert.equal(again.data.skipped, [0, 1, 2])
  assert.equal(again.data.results, first.data.results)
  assert.is(await count(set), 3)
})

test('only identical items are skipped: another class, time, frequency or tag set is created; the answer keeps input order', async () => {
  const set = await makeTagSet(t.db, alice, library)
  const other = await makeTagSet(t.db, alice, library)
  const otherClass = await makeTagClass(t.db, alice, library)
  const stored = (await t.call('POST', `${API}/tag/`, { as: alice, body: tag(set, 5) })).data
  const items = [
    tag(set, 4),
    tag(set, 5),
    tag(set, 5, { tagClass: otherClass }),
    tag(set, 5, { endTime: 5.5 }),
    tag(set, 5, { maxFrequency: 4000 }),
    tag(other, 5),
    tag(set, 5, { strength: 0.5, machineTagged: true }),
  ]
  const res = await t.call('POST', `${API}/tag/?onDuplicate=skip`, { as: alice, body: items })
  assert.is(res.statusCode, 201, res.body)
  // strength and flags are not what makes a tag the same one
  assert.equal(res.data.skipped, [1, 6])
  assert.equal([res.data.results[1].id, res.data.results[6].id], [stored.id, stored.id])
  assert.equal(
    res.data.results.map((r: any) => r.tagSet),
    [set, set, set, set, set, other, set],
  )
  assert.is(await count(set), 5)
  assert.is(await count(other), 1)
})

test('a single tag with onDuplicate=skip answers the same shape; without it a duplicate is created as before', async () => {
  const set = await makeTagSet(t.db, alice, library)
  const one = await t.call('POST', `${API}/tag/?onDuplicate=skip`, { as: alice, body: tag(set, 3) })
  assert.equal([one.statusCode, one.data.skipped, one.data.results.length], [201, [], 1])
  const skipped = await t.call('POST', `${API}/tag/?onDuplicate=skip`, { as: alice, body: tag(set, 3) })
  assert.equal([skipped.data.skipped, skipped.data.results[0].id], [[0], one.data.results[0].id])
  const plain = await t.call('POST', `${API}/tag/`, { as: alice, body: [tag(set, 3)] })
  assert.is(plain.statusCode, 201)
  assert.ok(Array.isArray(plain.data))
  assert.is(await count(set), 2)
})

test('a bad onDuplicate is 400 naming it; errors in items are answered as without it, nothing written', async () => {
  const set = await makeTagSet(t.db, alice, library)
  const bad = await t.call('POST', `${API}/tag/?onDuplicate=merge`, { as: alice, body: [tag(set, 1)] })
  assert.equal([bad.statusCode, Object.keys(bad.data)], [400, ['onDuplicate']])
  const invalid = await t.call('POST', `${API}/tag/?onDuplicate=skip`, {
    as: alice,
    body: [tag(set, 1), tag(set, 2, { endTime: 1 })],
  })
  assert.is(invalid.statusCode, 400)
  assert.equal(invalid.data[0], {})
  assert.ok(invalid.data[1].endTime)
  assert.is(await count(set), 0)
})

test('the OpenAPI document declares onDuplicate on POST tag/ and the answer with skipped items', async () => {
  const doc = (await t.call('GET', '/api/openapi.json')).data
  const post = doc.paths['/api/v0/tag/'].post
  assert.ok(post.parameters.some((p: any) => p.name === 'onDuplicate'))
  assert.ok(post.responses['201'].content['application/json'].schema.anyOf.some((s: any) => s.properties?.skipped))
})

test("an item identical to an earlier item of the same request is skipped as that item's tag", async () => {
  const set = await makeTagSet(t.db, alice, library)
  const items = [
    tag(set, 1),
    tag(set, 2),
    tag(set, 1),
    tag(set, 1, { strength: 0.7, machineTagged: true }),
    tag(set, 3),
  ]
  const res = await t.call('POST', `${API}/tag/?onDuplicate=skip`, { as: alice, body: items })
  assert.is(res.statusCode, 201, res.body)
  assert.equal(res.data.skipped, [2, 3])
  assert.equal(
    res.data.results.map((r: any) => r.id),
    [
      res.data.results[0].id,
      res.data.results[1].id,
      res.data.results[0].id,
      res.data.results[0].id,
      res.data.results[4].id,
    ],
  )
  assert.is(await count(set), 3)
  // without onDuplicate=skip every item is created, as before
  const plain = await t.call('POST', `${API}/tag/`, { as: alice, body: [tag(set, 9), tag(set, 9)] })
  assert.is(plain.statusCode, 201)
  assert.is(await count(set), 5)
})

/** a statement parameter of numbers' arrays as a literal (EXECUTE, a utility statement, takes no parameters) */
const arrayLiteral = (p: unknown) => sql.lit(typeof p === 'string' ? p : `{${(p as number[]).join(',')}}`)

test('looking for duplicates reads a few index pages a row, however many tags of the class the set holds', async () => {
  const set = await makeTagSet(t.db, alice, library)
  /** buffers PostgreSQL reads to look up 100 new tags (none stored), from EXPLAIN (ANALYZE, BUFFERS) of the statement
   * prepared and planned for any values, as the server's prepared statements are after their first runs */
  const buffersFor100 = (offset: number) =>
    t.db.connection().execute(async (db) => {
      const rows = Array.from({ length: 100 }, (_, i) => ({
        tag_set_id: set,
        media_file_id: refs.mediaFile,
        tag_class_id: refs.tagClass,
        start_time: offset + i + 0.5,
        end_time: offset + i + 0.75,
        min_frequency: 1000,
        max_frequency: 4000.5,
      }))
      const query = duplicatesQuery(tags, rows).compile(db)
      await sql`set plan_cache_mode = force_generic_plan`.execute(db)
      await sql.raw(`prepare duplicates as ${query.sql}`).execute(db)
      try {
        const plan = await sql<{
          'QUERY PLAN': Array<{ Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }>
        }>`explain (analyze, buffers, format json)
        execute duplicates(${sql.join(query.parameters.map(arrayLiteral))})`.execute(db)
        const top = plan.rows[0]['QUERY PLAN'][0].Plan
        return top['Shared Hit Blocks'] + top['Shared Read Blocks']
      } finally {
        await sql`deallocate duplicates`.execute(db)
        await sql`reset plan_cache_mode`.execute(db)
      }
    })
  const before = await buffersFor100(100_000)
  // a season's detections, as a detector's table gives them: 6,000 tags over 60 recordings and 10 classes, none
  // like the rows looked up
  const files = [
    refs.mediaFile,
    ...(await Promise.all(Array.from({ length: 59 }, () => makeMediaFile(t.db, alice, library)))),
  ]
  const classes = [
    refs.tagClass,
    ...(await Promise.all(Array.from({ length: 9 }, () => makeTagClass(t.db, alice, library)))),
  ]
  for (let n = 0; n < 6; n++) {
    const body = Array.from({ length: 1000 }, (_, j) => {
      const i = n * 1000 + j
      return tag(set, Math.floor(i / 60) * 3, {
        mediaFile: files[i % 60],
        tagClass: classes[(i * 7) % 10],
        endTime: Math.floor(i / 60) * 3 + 3,
      })
    })
    const res = await t.call('POST', `${API}/tag/`, { as: alice, body })
    assert.is(res.statusCode, 201, res.body)
  }
  // no ANALYZE: right after an import, PostgreSQL's statistics of the table are those of before it
  const after = await buffersFor100(100_000)
  // an index lookup a row (a few pages each); walking the class's tags in id order read tens of thousands
  assert.ok(after <= 10 * 100, `${after} buffers for 100 rows with 6,000 tags stored (${before} with none)`)
})

test.run()
