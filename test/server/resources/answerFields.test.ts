import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeTagSet } from '../../helpers/records.js'
import { makeRecords } from '../../helpers/world.js'

// POST tag/?fields=…: the answer of a create holds only the fields named (an import keeps the ids alone); what is
// stored is the same as without it, and an unknown name is a 400 that names it, with nothing created.

const API = '/api/v0'
const t = suiteApp(test)
/** alice's library, with a media file and a class to tag */
let world: Awaited<ReturnType<typeof makeRecords>>
let alice: TestUser
let library: number

test.before(async () => {
  world = await makeRecords(t, 'alice')
  alice = world.owner
  library = world.library
})

const tag = (tagSet: number, startTime: number) => ({
  mediaFile: world.mediaFile,
  tagClass: world.tagClass,
  tagSet,
  startTime,
  endTime: startTime + 0.5,
  minFrequency: 500,
  maxFrequency: 2000,
  strength: 0.75,
})
const stored = async (tagSet: number) =>
  (await t.call('GET', `${API}/tag/?tagSet=${tagSet}&ordering=id`, { as: alice })).data.results

test('fields=id: an array is answered with each new tag as {id}, in input order; the tags are stored whole', async () => {
  const set = await makeTagSet(t.db, alice, library)
  const res = await t.call('POST', `${API}/tag/?fields=id`, {
    as: alice,
    body: [tag(set, 1), tag(set, 2), tag(set, 3)],
  })
  assert.is(res.statusCode, 201, res.body)
  const held = await stored(set)
  assert.equal(
    res.data,
    held.map((r: any) => ({ id: r.id })),
  )
  assert.equal(
    held.map((r: any) => [r.startTime, r.endTime, r.strength]),
    [
      [1, 1.5, 0.75],
      [2, 2.5, 0.75],
      [3, 3.5, 0.75],
    ],
  )
})

test('fields names several fields, computed ones too: each record holds those, in the record order, and only those', async () => {
  const set = await makeTagSet(t.db, alice, library)
  const whole = await t.call('POST', `${API}/tag/`, { as: alice, body: tag(set, 9) })
  const res = await t.call('POST', `${API}/tag/?fields=startTime,id,tagSet`, { as: alice, body: tag(set, 4) })
  assert.is(res.statusCode, 201, res.body)
  assert.equal(
    Object.keys(res.data),
    ['id', 'tagSet', 'startTime'].sort(
      (a, b) => Object.keys(whole.data).indexOf(a) - Object.keys(whole.data).indexOf(b),
    ),
  )
  assert.is(res.data.startTime, 4)
  assert.is(res.data.tagSet, set)
  const computed = Object.keys(whole.data).find(
    (k) =>
      !['id', 'tagSet', 'startTime'].includes(k) && typeof whole.data[k] === 'string' && /^https?:/.test(whole.data[k]),
  )
  if (computed) {
    const one = await t.call('POST', `${API}/tag/?fields=${computed}`, { as: alice, body: tag(set, 5) })
    assert.is(one.statusCode, 201, one.body)
    assert.equal(Object.keys(one.data), [computed])
  }
})

test("fields=id with onDuplicate=skip: {results, skipped}, a skipped item as the stored tag's {id}", async () => {
  const set = await makeTagSet(t.db, alice, library)
  const first = await t.call('POST', `${API}/tag/?onDuplicate=skip&fields=id`, {
    as: alice,
    body: [tag(set, 1), tag(set, 2)],
  })
  assert.is(first.statusCode, 201, first.body)
  const again = await t.call('POST', `${API}/tag/?onDuplicate=skip&fields=id`, {
    as: alice,
    body: [tag(set, 2), tag(set, 7), tag(set, 7)],
  })
  assert.is(again.statusCode, 201, again.body)
  const held = await stored(set)
  assert.is(held.length, 3)
  assert.equal(again.data, {
    results: [{ id: first.data.results[1].id }, { id: held[2].id }, { id: held[2].id }],
    skipped: [0, 2],
  })
})

test('an unknown field is a 400 naming it, and nothing is created', async () => {
  const set = await makeTagSet(t.db, alice, library)
  const res = await t.call('POST', `${API}/tag/?fields=id,colour`, { as: alice, body: [tag(set, 1)] })
  assert.is(res.statusCode, 400)
  assert.equal(res.data, { fields: ['"colour" is not a field of Tag records.'] })
  const blank = await t.call('POST', `${API}/tag/?fields=`, { as: alice, body: [tag(set, 1)] })
  assert.is(blank.statusCode, 400)
  assert.equal(blank.data, { fields: ['This field may not be blank.'] })
  assert.equal(await stored(set), [])
})

test('without fields the answer is the whole record, as the original answers', async () => {
  const set = await makeTagSet(t.db, alice, library)
  const res = await t.call('POST', `${API}/tag/`, { as: alice, body: [tag(set, 1)] })
  assert.is(res.statusCode, 201)
  assert.equal(res.data, await stored(set))
})

test.run()
