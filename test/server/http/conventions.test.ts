import { test } from 'uvu'
import { ALL_JOB_TYPES } from '../../../server/analysis/catalog.js'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { localTimestamp } from '../../../server/db/time.js'
import { makeLibrary, makeMediaFile, makeTag } from '../../helpers/records.js'
import { makeRecords } from '../../helpers/world.js'

const t = suiteApp(test, { maxBodyBytes: 64 * 1024 })
let alice: TestUser
let admin: TestUser

test.before(async () => {
  admin = await t.user('admin', { admin: true })
  alice = await t.user('alice')
  // 250 users in all, for pagination
  await t.db
    .insertInto('users')
    .values(
      Array.from({ length: 248 }, (_, i) => ({
        username: `u${String(i).padStart(3, '0')}`,
        password: '!',
        date_joined: localTimestamp(),
      })),
    )
    .execute()
})

test('lists: 100 per page, absolute next/previous that can be followed, count of all', async () => {
  const first = await t.call('GET', '/api/v0/user/', { as: admin })
  assert.is(first.statusCode, 200)
  assert.is(first.data.count, 250)
  assert.is(first.data.results.length, 100)
  assert.is(first.data.previous, null)
  assert.is(first.data.next, 'http://localhost:80/api/v0/user/?page=2')
  const second = await t.call('GET', first.data.next.replace('http://localhost:80', ''), { as: admin })
  assert.is(second.data.results[0].id, first.data.results[99].id + 1)
  assert.is(second.data.previous, 'http://localhost:80/api/v0/user/')
  assert.is(second.data.next, 'http://localhost:80/api/v0/user/?page=3')
  const third = await t.call('GET', '/api/v0/user/?page=3', { as: admin })
  assert.is(third.data.results.length, 50)
  assert.is(third.data.next, null)
})

test('lists: page=last, page_size bounds, other parameters kept in links', async () => {
  const last = await t.call('GET', '/api/v0/user/?page=last', { as: admin })
  assert.is(last.data.results.length, 50)
  assert.is(last.data.next, null)
  assert.is(last.data.previous, 'http://localhost:80/api/v0/user/?page=2')
  const small = await t.call('GET', '/api/v0/user/?page_size=7&x=1&page=2', { as: admin })
  assert.is(small.data.results.length, 7)
  assert.is(small.data.next, 'http://localhost:80/api/v0/user/?page=3&page_size=7&x=1')
  assert.is(small.data.previous, 'http://localhost:80/api/v0/user/?page_size=7&x=1')
  const huge = await t.call('GET', '/api/v0/user/?page_size=100000', { as: admin })
  assert.is(huge.data.results.length, 250)
  const bad = await t.call('GET', '/api/v0/user/?page_size=abc', { as: admin })
  assert.is(bad.data.results.length, 100)
})

test('lists: a page past the end, zero or not a number is 404 Invalid page', async () => {
  for (const page of ['4', '999999', '0', 'abc', '-1', '1.5']) {
    const res = await t.call('GET', `/api/v0/user/?page=${page}`, { as: admin })
    assert.is(res.statusCode, 404, page)
    assert.equal(res.data, { detail: 'Invalid page.' })
    assert.is(res.headers.allow, 'GET, POST, HEAD, OPTIONS')
  }
})

test('lists: ordering by a field, descending, and unknown ordering ignored', async () => {
  const desc = await t.call('GET', '/api/v0/user/?ordering=-username&page_size=3', { as: admin })
  assert.equal(
    desc.data.results.map((u: any) => u.username),
    ['u247', 'u246', 'u245'],
  )
  const asc = await t.call('GET', '/api/v0/user/?ordering=username&page_size=2', { as: admin })
  assert.equal(
    asc.data.results.map((u: any) => u.username),
    ['admin', 'alice'],
  )
  const unknown = await t.call('GET', '/api/v0/user/?ordering=password,nothing&page_size=2', { as: admin })
  assert.equal(
    unknown.data.results.map((u: any) => u.id),
    [admin.id, alice.id],
  )
})

test('lists: equality filters on references and booleans, combined; a bad value is a 400 naming the filter', async () => {
  const { library: lib, mediaFile: m1, tagSet: set, tagClass: cls } = await makeRecords(t, alice)
  const m2 = await makeMediaFile(t.db, alice, lib)
  const a = await makeTag(t.db, alice, { tagSet: set, mediaFile: m1, tagClass: cls })
  const b = await makeTag(t.db, alice, { tagSet: set, mediaFile: m2, tagClass: cls })
  await t.db.updateTable('tags').set({ machine_tagged: true }).where('id', '=', b).execute()
  const ids = async (qs: string) =>
    (await t.call('GET', `/api/v0/tag/?${qs}`, { as: alice })).data.results.map((r: any) => r.id)
  assert.equal(await ids(`tagSet=${set}`), [a, b])
  assert.equal(await ids(`mediaFile=${m2}`), [b])
  assert.equal(await ids(`tagSet=${set}&machineTagged=true`), [b])
  assert.equal(await ids(`tagSet=${set}&machineTagged=false&mediaFile=${m1}`), [a])
  assert.equal(await ids(`tagSet=${set}&ordering=-id`), [b, a])
  assert.equal(await ids(`tagSet=${set}&unknownFilter=1`), [a, b])
  const badRef = await t.call('GET', '/api/v0/tag/?tagSet=abc', { as: alice })
  assert.is(badRef.statusCode, 400)
  assert.equal(badRef.data, { tagSet: ['Enter a whole number.'] })
  const badBool = await t.call('GET', '/api/v0/tag/?machineTagged=maybe', { as: alice })
  assert.is(badBool.statusCode, 400)
  assert.equal(Object.keys(badBool.data), ['machineTagged'])
  const badOrdering = await t.call('GET', `/api/v0/tag/?ordering=;drop table tags`, { as: alice })
  assert.is(badOrdering.statusCode, 200)
})

test('timestamps are YYYY-MM-DDThh:mm:ss without a zone', async () => {
  const res = await t.call('POST', '/api/v0/library/', { as: alice, body: { name: 'stamped' } })
  assert.is(res.statusCode, 201)
  assert.match(res.data.creationDate, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/)
})

test('paths without the trailing slash answer as with it, bodies included', async () => {
  const get = await t.call('GET', '/api/v0/jobTypes', { as: alice })
  assert.is(get.statusCode, 200)
  assert.is(get.data.count, ALL_JOB_TYPES.length)
  const post = await t.call('POST', '/api/v0/user', {
    as: admin,
    body: { username: 'noslash', password: 'pw-noslash' },
  })
  assert.is(post.statusCode, 201)
  assert.is(post.data.username, 'noslash')
})

test("format suffixes and ?format=json|api answer as the path does (DRF's format_suffix_patterns)", async () => {
  const library = await makeLibrary(t.db, alice)
  const path = `/api/v0/library/${library}/`
  const plain = await t.call('GET', path, { as: alice })
  assert.is(plain.statusCode, 200)
  for (const url of [
    `/api/v0/library/${library}.json`,
    `/api/v0/library/${library}.json/`,
    `/api/v0/library/${library}.api`,
    `${path}?format=json`,
    `${path}?format=api`,
  ]) {
    const res = await t.call('GET', url, { as: alice })
    assert.is(res.statusCode, 200, url)
    assert.match(String(res.headers['content-type']), /^application\/json/, url)
    assert.equal(res.data, plain.data, url)
  }
  const list = await t.call('GET', '/api/v0/library.json?page_size=1', { as: alice })
  assert.equal(list.data, (await t.call('GET', '/api/v0/library/?page_size=1', { as: alice })).data)
  assert.ok((await t.call('GET', '/api/v0/.json', { as: alice })).data.library)
  const renamed = await t.call('PATCH', `/api/v0/library/${library}.json`, { as: alice, body: { name: 'suffixed' } })
  assert.equal([renamed.statusCode, renamed.data.name], [200, 'suffixed'])
  assert.is((await t.call('GET', `/api/v0/library/${library}.xml`, { as: alice })).statusCode, 404)
})

test('string lengths are counted in characters (code points), as the original and JSON Schema count them', async () => {
  const emoji = '\u{1F426}'
  for (const [n, status] of [
    [128, 201],
    [255, 201],
    [256, 400],
  ] as const) {
    const res = await t.call('POST', '/api/v0/library/', { as: alice, body: { name: emoji.repeat(n) } })
    assert.is(res.statusCode, status, `${n} emoji`)
    if (status === 201) assert.is([...res.data.name].length, n)
    else assert.equal(res.data, { name: ['Ensure this field has no more than 255 characters.'] })
  }
})

test("answers carry the original's headers: application/json without a charset, Vary: Accept, Cookie", async () => {
  for (const [url, as] of [
    ['/api/v0/library/', alice],
    ['/api/v0/jobTypes/', undefined],
    ['/api/v0/library/?page=99', alice],
  ] as const) {
    const res = await t.call('GET', url, { as })
    assert.is(res.headers['content-type'], 'application/json', url)
    assert.is(res.headers.vary, 'Accept, Cookie', url)
  }
  const options = await t.call('OPTIONS', '/api/v0/tag/')
  assert.equal([options.headers['content-type'], options.headers.vary], ['application/json', 'Accept, Cookie'])
})

test('unknown paths are a JSON 404', async () => {
  const res = await t.call('GET', '/api/v0/nope/', { as: alice })
  assert.is(res.statusCode, 404)
  assert.equal(res.data, { detail: 'Not found.' })
  assert.match(String(res.headers['content-type']), /^application\/json/)
})

test('OPTIONS needs no authentication; authenticated writers also see actions', async () => {
  const anon = await t.call('OPTIONS', '/api/v0/user/')
  assert.is(anon.statusCode, 200)
  assert.is(anon.headers.allow, 'GET, POST, HEAD, OPTIONS')
  assert.equal(Object.keys(anon.data), ['name', 'description', 'renders', 'parses'])
  assert.is(anon.data.name, 'User List')
  const withAuth = await t.call('OPTIONS', '/api/v0/user/', { as: admin })
  assert.equal(withAuth.data.actions.POST.username, {
    type: 'string',
    required: true,
    read_only: false,
    label: 'Username',
    max_length: 150,
  })
  assert.equal(withAuth.data.actions.POST.id, { type: 'integer', required: false, read_only: true, label: 'ID' })
  const detail = await t.call('OPTIONS', `/api/v0/jobTypes/1/`)
  assert.is(detail.data.name, 'Job Types Instance')
  assert.is(detail.headers.allow, 'GET, HEAD, OPTIONS')
})

test('HEAD answers like GET without a body', async () => {
  const res = await t.call('HEAD', '/api/v0/jobTypes/1/', { as: alice })
  assert.is(res.statusCode, 200)
  assert.is(res.body, '')
  assert.is(res.headers.allow, 'GET, HEAD, OPTIONS')
  const anon = await t.call('HEAD', '/api/v0/jobTypes/1/')
  assert.is(anon.statusCode, 401)
})

test('body errors: malformed JSON, unsupported type, a list where an object belongs, too large', async () => {
  const malformed = await t.call('POST', '/api/v0/user/', {
    as: admin,
    body: '{"username": 1,',
    headers: { 'content-type': 'application/json' },
  })
  assert.is(malformed.statusCode, 400)
  assert.match(malformed.data.detail, /^JSON parse error - /)
  const plain = await t.call('POST', '/api/v0/user/', {
    as: admin,
    body: '{}',
    headers: { 'content-type': 'text/plain' },
  })
  assert.is(plain.statusCode, 415)
  assert.equal(plain.data, { detail: 'Unsupported media type "text/plain" in request.' })
  const list = await t.call('POST', '/api/v0/user/', { as: admin, body: [1, 2] })
  assert.is(list.statusCode, 400)
  assert.equal(list.data, { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] })
  const big = await t.call('POST', '/api/v0/user/', {
    as: admin,
    body: { username: 'big', password: 'x'.repeat(100 * 1024) },
  })
  assert.is(big.statusCode, 413)
  assert.ok(typeof big.data.detail === 'string')
  // unauthenticated callers learn nothing about the body: 401 first
  const anon = await t.call('POST', '/api/v0/user/', { body: '{"x":', headers: { 'content-type': 'application/json' } })
  assert.is(anon.statusCode, 401)
})

test('user/ is for site admins only: 403 for everyone else, even on their own record', async () => {
  const list = await t.call('GET', '/api/v0/user/', { as: alice })
  assert.is(list.statusCode, 403)
  assert.equal(list.data, { detail: 'You do not have permission to perform this action.' })
  const own = await t.call('GET', `/api/v0/user/${alice.id}/`, { as: alice })
  assert.is(own.statusCode, 403)
  const create = await t.call('POST', '/api/v0/user/', {
    as: alice,
    body: { username: 'sneaky', password: 'sneaky-pw' },
  })
  assert.is(create.statusCode, 403)
  const detail = await t.call('GET', `/api/v0/user/${alice.id}/`, { as: admin })
  assert.equal(detail.data, { id: alice.id, username: 'alice', groups: [] })
  assert.is(detail.headers.allow, 'GET, POST, HEAD, OPTIONS'.replace('POST, ', 'PUT, PATCH, '))
})

test('admins create users and change password, is_admin and is_active', async () => {
  const created = await t.call('POST', '/api/v0/user/', {
    as: admin,
    body: { username: 'gina', password: 'first-pw', is_admin: false },
  })
  assert.is(created.statusCode, 201)
  assert.equal(Object.keys(created.data), ['id', 'username', 'groups'])
  const dup = await t.call('POST', '/api/v0/user/', { as: admin, body: { username: 'gina', password: 'x-pw' } })
  assert.is(dup.statusCode, 400)
  assert.equal(dup.data, { username: ['A user with that username already exists.'] })
  const missing = await t.call('POST', '/api/v0/user/', { as: admin, body: {} })
  assert.equal(missing.data, { username: ['This field is required.'], password: ['This field is required.'] })

  const id = created.data.id
  const pw = await t.call('PATCH', `/api/v0/user/${id}/`, { as: admin, body: { password: 'second-pw' } })
  assert.is(pw.statusCode, 200)
  const login = (password: string) => t.call('POST', '/api-token-auth/', { body: { username: 'gina', password } })
  assert.is((await login('first-pw')).statusCode, 400)
  const token = (await login('second-pw')).data.token
  const gina = { auth: { authorization: `Token ${token}` } }
  assert.is((await t.call('GET', '/api/v0/user/', { as: gina })).statusCode, 403)
  await t.call('PATCH', `/api/v0/user/${id}/`, { as: admin, body: { is_admin: true } })
  assert.is((await t.call('GET', '/api/v0/user/', { as: gina })).statusCode, 200)
  await t.call('PATCH', `/api/v0/user/${id}/`, { as: admin, body: { is_active: false } })
  assert.is((await t.call('GET', '/api/v0/jobTypes/', { as: gina })).statusCode, 401)
  const renamed = await t.call('PATCH', `/api/v0/user/${id}/`, { as: admin, body: { username: 'other' } })
  assert.is(renamed.data.username, 'gina')
})

test('healthz answers ok without authentication, with how many job workers are alive', async () => {
  const res = await t.call('GET', '/healthz')
  assert.is(res.statusCode, 200)
  assert.equal(res.data, { status: 'ok', database: 'ok', workers: 0 })
})

test('api root lists the resources with absolute URLs', async () => {
  const res = await t.call('GET', '/api/v0/', { as: alice })
  assert.is(res.statusCode, 200)
  assert.is(res.data.jobTypes, 'http://localhost:80/api/v0/jobTypes/')
  assert.is(res.data.user, 'http://localhost:80/api/v0/user/')
})

test.run()
