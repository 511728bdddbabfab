import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeTag, makeTagSet } from '../../helpers/records.js'
import { makeRecords } from '../../helpers/world.js'

// Lists read a page together with its count, and sub-lists read it together with
// their parent's access check: the answers must be those of checking first.

const API = '/api/v0'
const t = suiteApp(test)
let owner: TestUser, stranger: TestUser
let lib: number, set: number, emptySet: number

test.before(async () => {
  const r = await makeRecords(t, 'reads-owner')
  ;({ owner, library: lib, tagSet: set } = r)
  stranger = await t.user('reads-stranger')
  emptySet = await makeTagSet(t.db, owner, lib)
  for (let i = 0; i < 3; i++) await makeTag(t.db, owner, r)
})

const get = (url: string, as: TestUser) => t.call('GET', `${API}/${url}`, { as })

test('a sub-list of an unreadable parent is 404 whatever the query, before any 400', async () => {
  for (const query of ['', '?page=2', '?page=last', '?page=0', '?tagClass=abc', '?page_size=1&page=2']) {
    const res = await get(`tagSet/${set}/tags/${query}`, stranger)
    assert.is(res.statusCode, 404, query)
    assert.equal(res.data, { detail: 'Not found.' }, query)
  }
  assert.is((await get('tagSet/999999/tags/', owner)).statusCode, 404)
  assert.is((await get('tagSet/abc/tags/', owner)).statusCode, 404)
})

test('a readable parent: pages, an empty list, a bad filter, pages past the end', async () => {
  const all = await get(`tagSet/${set}/tags/?page_size=2`, owner)
  assert.is(all.statusCode, 200)
  assert.is(all.data.count, 3)
  assert.is(all.data.results.length, 2)
  assert.match(all.data.next, /page=2/)
  const second = await get(`tagSet/${set}/tags/?page_size=2&page=2`, owner)
  assert.is(second.data.results.length, 1)
  assert.is(second.data.next, null)
  const empty = await get(`tagSet/${emptySet}/tags/`, owner)
  assert.is(empty.statusCode, 200)
  assert.equal(empty.data, { count: 0, next: null, previous: null, results: [] })
  const badFilter = await get(`tagSet/${set}/tags/?tagClass=abc`, owner)
  assert.is(badFilter.statusCode, 400)
  assert.equal(badFilter.data, { tagClass: ['Enter a whole number.'] })
  for (const page of ['3', '99999999999999999999']) {
    const past = await get(`tagSet/${set}/tags/?page_size=2&page=${page}`, owner)
    assert.is(past.statusCode, 404, page)
    assert.equal(past.data, { detail: 'Invalid page.' })
  }
  const last = await get(`tagSet/${set}/tags/?page_size=2&page=last`, owner)
  assert.is(last.data.results.length, 1)
})

test('top-level lists: a page number of 20 digits is an invalid page, an empty list a page of nothing', async () => {
  const huge = await get('tagSet/?page=99999999999999999999', owner)
  assert.is(huge.statusCode, 404)
  assert.equal(huge.data, { detail: 'Invalid page.' })
  const none = await get('tagSet/', stranger)
  assert.is(none.statusCode, 200)
  assert.equal(none.data, { count: 0, next: null, previous: null, results: [] })
  const filteredEmpty = await get(`tag/?tagSet=${emptySet}`, owner)
  assert.equal(filteredEmpty.data, { count: 0, next: null, previous: null, results: [] })
})

test.run()
