import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp } from '../../helpers/app.js'
import { sessionLogin } from '../../helpers/session.js'
import {
  grantRoles,
  listMatrix,
  makeRecords,
  makeRoleCallers,
  makeRoleWorld,
  sharedLibrary,
  statusMatrix,
  tagRefs,
  type RoleCallers,
} from '../../helpers/world.js'
import { grant, makeMediaFile, makeTag, makeTagClass, makeTagExample, makeTagSet } from '../../helpers/records.js'

const API = '/api/v0'
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/
const FIELDS = [
  'id',
  'user',
  'creationDate',
  'tagClass',
  'tagExample',
  'tagSet',
  'mediaFile',
  'startTime',
  'endTime',
  'minFrequency',
  'maxFrequency',
  'parentTag',
  'randomlyChosen',
  'machineTagged',
  'userTagged',
  'strength',
  'annotations',
  'provenance',
]
const REQUIRED = ['tagClass', 'tagSet', 'mediaFile', 'startTime', 'endTime', 'minFrequency', 'maxFrequency']

const t = suiteApp(test)
let c: RoleCallers
let refs: { tagSet: number; mediaFile: number; tagClass: number }

test.before(async () => {
  const w = await makeRoleWorld(t, 'tag')
  c = w.callers
  refs = tagRefs(w)
})

const body = (extra: Record<string, unknown> = {}) => ({
  ...refs,
  startTime: 1.0,
  endTime: 1.5,
  minFrequency: 200.0,
  maxFrequency: 2200.0,
  ...extra,
})

async function tagCount(): Promise<number> {
  return Number(
    (
      await t.db
        .selectFrom('tags')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )
}

test('tag round trip: create (golden 55), read, list, filter, order, PUT, PATCH, delete (57, 58)', async () => {
  const created = await t.call('POST', `${API}/tag/`, {
    as: c.owner,
    body: body({ user: 999, creationDate: '2000-01-01T00:00:00' }),
  })
  assert.is(created.statusCode, 201)
  assert.is(created.headers.allow, 'GET, POST, HEAD, OPTIONS')
  const tag = created.data
  assert.equal(Object.keys(tag), FIELDS)
  assert.match(tag.creationDate, TIMESTAMP)
  assert.equal(tag, {
    id: tag.id,
    user: c.owner.id,
    creationDate: tag.creationDate,
    ...refs,
    tagExample: null,
    startTime: 1,
    endTime: 1.5,
    minFrequency: 200,
    maxFrequency: 2200,
    parentTag: null,
    randomlyChosen: false,
    machineTagged: false,
    userTagged: false,
    strength: 0,
    annotations: {},
    provenance: null,
  })
  assert.type(tag.id, 'number')
  const read = await t.call('GET', `${API}/tag/${tag.id}/`, { as: c.owner })
  assert.is(read.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
  assert.equal(read.data, tag)
  const head = await t.call('HEAD', `${API}/tag/${tag.id}/`, { as: c.owner })
  assert.equal([head.statusCode, head.body], [200, ''])

  const example = await makeTagExample(t.db, c.owner, refs)
  const child = (
    await t.call('POST', `${API}/tag/`, {
      as: c.owner,
      body: body({
        parentTag: tag.id,
        tagExample: example,
        startTime: 3,
        endTime: 4,
        machineTagged: true,
        strength: 0.75,
      }),
    })
  ).data
  assert.equal([child.parentTag, child.tagExample, child.machineTagged, child.strength], [tag.id, example, true, 0.75])
  const ids = async (q: string) => {
    const res = await t.call('GET', `${API}/tag/?tagSet=${refs.tagSet}&${q}`, { as: c.owner })
    assert.is(res.statusCode, 200, q)
    return res.data.results.map((r: any) => r.id)
  }
  assert.equal(await ids(''), [tag.id, child.id])
  assert.equal(await ids('machineTagged=true'), [child.id])
  assert.equal(await ids(`parentTag=${tag.id}`), [child.id])
  assert.equal(await ids('parentTag=null'), [tag.id])
  assert.equal(await ids(`mediaFile=${refs.mediaFile}&tagClass=${refs.tagClass}&tagExample=${example}`), [child.id])
  assert.equal(await ids('ordering=-startTime'), [child.id, tag.id])
  const list = await t.call('GET', `${API}/tag/?tagSet=${refs.tagSet}`, { as: c.owner })
  assert.equal(list.data.results[0], tag)
  assert.is((await t.call('GET', `${API}/tag/?tagSet=abc`, { as: c.owner })).statusCode, 400)

  const put = await t.call('PUT', `${API}/tag/${tag.id}/`, {
    as: c.owner,
    body: body({ startTime: 2, endTime: 2, userTagged: true, strength: 1 }),
  })
  assert.is(put.statusCode, 200)
  assert.equal(put.data, { ...tag, startTime: 2, endTime: 2, userTagged: true, strength: 1 })
  const patch = await t.call('PATCH', `${API}/tag/${tag.id}/`, {
    as: c.owner,
    body: { randomlyChosen: 'true', maxFrequency: '3000' },
  })
  assert.equal(patch.data, { ...put.data, randomlyChosen: true, maxFrequency: 3000 })

  assert.is((await t.call('DELETE', `${API}/tag/${tag.id}/`, { as: c.owner })).statusCode, 204)
  const again = await t.call('DELETE', `${API}/tag/${tag.id}/`, { as: c.owner })
  assert.equal([again.statusCode, again.data], [404, { detail: 'Not found.' }])
  // the child outlives its parent
  assert.is((await t.call('GET', `${API}/tag/${child.id}/`, { as: c.owner })).data.parentTag, null)
})

test('tag input errors in the DRF shapes (goldens 34-39, 41-43, 53, 54)', async () => {
  const malformed = await t.call('POST', `${API}/tag/`, {
    as: c.owner,
    body: '{"tagSet": 1,',
    headers: { 'content-type': 'application/json' },
  })
  assert.is(malformed.statusCode, 400)
  assert.match(malformed.data.detail, /^JSON parse error - /)
  const empty = await t.call('POST', `${API}/tag/`, { as: c.owner, body: {} })
  assert.equal(
    [empty.statusCode, empty.data],
    [400, Object.fromEntries(REQUIRED.map((f) => [f, ['This field is required.']]))],
  )
  const before = await tagCount()
  const wrong = await t.call('POST', `${API}/tag/`, {
    as: c.owner,
    body: {
      tagClass: 'x',
      tagSet: 999999999,
      mediaFile: null,
      startTime: 'abc',
      endTime: 1,
      minFrequency: true,
      maxFrequency: [1],
      randomlyChosen: 'maybe',
      strength: '1e999',
    },
  })
  assert.is(wrong.statusCode, 400)
  assert.equal(wrong.data, {
    tagClass: ['Incorrect type. Expected pk value, received str.'],
    tagSet: ['Invalid pk "999999999" - object does not exist.'],
    mediaFile: ['This field may not be null.'],
    startTime: ['A valid number is required.'],
    minFrequency: ['A valid number is required.'],
    maxFrequency: ['A valid number is required.'],
    randomlyChosen: ['Must be a valid boolean.'],
    strength: ['A valid number is required.'],
  })
  const plain = await t.call('POST', `${API}/tag/`, {
    as: c.owner,
    body: JSON.stringify(body()),
    headers: { 'content-type': 'text/plain' },
  })
  assert.equal([plain.statusCode, plain.data], [415, { detail: 'Unsupported media type "text/plain" in request.' }])
  // golden 53 (deliberate difference): an infinite float is a 400, as a string or as a JSON literal
  const prefix = JSON.stringify(body()).slice(0, -1)
  for (const strength of ['"1e999"', '1e999', '-1e999', '"NaN"', '"Infinity"']) {
    const res = await t.call('POST', `${API}/tag/`, {
      as: c.owner,
      body: `${prefix},"strength":${strength}}`,
      headers: { 'content-type': 'application/json' },
    })
    assert.equal([res.statusCode, res.data], [400, { strength: ['A valid number is required.'] }], strength)
  }
  // golden 54 (deliberate difference): a boolean where a number belongs
  const boolNumber = await t.call('POST', `${API}/tag/`, { as: c.owner, body: body({ minFrequency: true }) })
  assert.equal([boolNumber.statusCode, boolNumber.data], [400, { minFrequency: ['A valid number is required.'] }])
  assert.is(await tagCount(), before)

  const form = await t.call('POST', `${API}/tag/`, {
    as: c.owner,
    body: `tagClass=${refs.tagClass}&tagSet=${refs.tagSet}&mediaFile=${refs.mediaFile}&startTime=1&endTime=2&minFrequency=1&maxFrequency=2`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  assert.is(form.statusCode, 201)
  assert.equal(
    [form.data.startTime, form.data.endTime, form.data.minFrequency, form.data.maxFrequency, form.data.randomlyChosen],
    [1, 2, 1, 2, false],
  )

  const id = form.data.id
  const patchText = await t.call('PATCH', `${API}/tag/${id}/`, { as: c.owner, body: { startTime: 'abc' } })
  assert.equal([patchText.statusCode, patchText.data], [400, { startTime: ['A valid number is required.'] }])
  const patchPk = await t.call('PATCH', `${API}/tag/${id}/`, { as: c.owner, body: { tagSet: 'one' } })
  assert.equal(
    [patchPk.statusCode, patchPk.data],
    [400, { tagSet: ['Incorrect type. Expected pk value, received str.'] }],
  )
  const partialPut = await t.call('PUT', `${API}/tag/${id}/`, { as: c.owner, body: { strength: 0.5 } })
  assert.equal(
    [partialPut.statusCode, partialPut.data],
    [400, Object.fromEntries(REQUIRED.map((f) => [f, ['This field is required.']]))],
  )
  assert.equal((await t.call('GET', `${API}/tag/${id}/`, { as: c.owner })).data, form.data)

  for (const page of ['999999', 'abc', '0']) {
    const res = await t.call('GET', `${API}/tag/?page=${page}`, { as: c.owner })
    assert.equal([res.statusCode, res.data], [404, { detail: 'Invalid page.' }], page)
  }
  for (const bad of ['999999999', 'abc']) {
    const res = await t.call('GET', `${API}/tag/${bad}/`, { as: c.owner })
    assert.equal(
      [res.statusCode, res.data, res.headers.allow],
      [404, { detail: 'Not found.' }, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS'],
    )
  }
})

test('a tag region never ends before it starts, and times are not negative', async () => {
  const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
    [{ startTime: 2, endTime: 1 }, { endTime: ['Ensure endTime is greater than or equal to startTime.'] }],
    [
      { minFrequency: 500, maxFrequency: 100 },
      { maxFrequency: ['Ensure maxFrequency is greater than or equal to minFrequency.'] },
    ],
    [{ startTime: -1 }, { startTime: ['Ensure this value is greater than or equal to 0.'] }],
    [
      { startTime: 3, endTime: 2, minFrequency: 9, maxFrequency: 8 },
      {
        endTime: ['Ensure endTime is greater than or equal to startTime.'],
        maxFrequency: ['Ensure maxFrequency is greater than or equal to minFrequency.'],
      },
    ],
  ]
  for (const [extra, errors] of cases) {
    const res = await t.call('POST', `${API}/tag/`, { as: c.owner, body: body(extra) })
    assert.equal([res.statusCode, res.data], [400, errors], JSON.stringify(extra))
  }
  const id = await makeTag(t.db, c.owner, refs, { startTime: 5, endTime: 6, minFrequency: 100, maxFrequency: 200 })
  const patch = await t.call('PATCH', `${API}/tag/${id}/`, { as: c.owner, body: { endTime: 4 } })
  assert.equal(
    [patch.statusCode, patch.data],
    [400, { endTime: ['Ensure endTime is greater than or equal to startTime.'] }],
  )
  const low = await t.call('PATCH', `${API}/tag/${id}/`, { as: c.owner, body: { minFrequency: 300 } })
  assert.is(low.statusCode, 400)
  assert.is((await t.call('PATCH', `${API}/tag/${id}/`, { as: c.owner, body: { startTime: 6 } })).data.startTime, 6)
})

test('bulk create: all tags in one transaction, or none with per-item errors', async () => {
  const before = await tagCount()
  const ok = await t.call('POST', `${API}/tag/`, {
    as: c.writer,
    body: [body(), body({ startTime: 5, endTime: 6, strength: 0.5 })],
  })
  assert.is(ok.statusCode, 201)
  assert.is(ok.data.length, 2)
  assert.equal(
    ok.data.map((r: any) => [r.user, r.startTime, r.strength]),
    [
      [c.writer.id, 1, 0],
      [c.writer.id, 5, 0.5],
    ],
  )
  assert.equal(Object.keys(ok.data[0]), FIELDS)
  assert.equal((await t.call('GET', `${API}/tag/${ok.data[1].id}/`, { as: c.owner })).data, ok.data[1])
  assert.is(await tagCount(), before + 2)

  const bad = await t.call('POST', `${API}/tag/`, {
    as: c.writer,
    body: [body(), body({ endTime: 0.5 }), body({ tagSet: 999999 }), 7],
  })
  assert.is(bad.statusCode, 400)
  assert.equal(bad.data, [
    {},
    { endTime: ['Ensure endTime is greater than or equal to startTime.'] },
    { tagSet: ['Invalid pk "999999" - object does not exist.'] },
    { non_field_errors: ['Invalid data. Expected a dictionary, but got int.'] },
  ])
  assert.is(await tagCount(), before + 2)
  const emptyList = await t.call('POST', `${API}/tag/`, { as: c.writer, body: [] })
  assert.equal([emptyList.statusCode, emptyList.data], [400, { non_field_errors: ['This list may not be empty.'] }])

  // one item in a tag set the caller may only read: 403, nothing written
  const readOnlySet = await makeTagSet(t.db, c.stranger, null)
  await grant(t.db, c.stranger, { user: c.writer.id }, { tagSet: readOnlySet }, ['read'])
  const mixed = await t.call('POST', `${API}/tag/`, { as: c.writer, body: [body(), body({ tagSet: readOnlySet })] })
  assert.is(mixed.statusCode, 403)
  assert.is(await tagCount(), before + 2)

  const many = Array.from({ length: 2500 }, (_, i) => body({ startTime: i, endTime: i + 1 }))
  const big = await t.call('POST', `${API}/tag/`, { as: c.owner, body: many })
  assert.is(big.statusCode, 201)
  assert.is(big.data.length, 2500)
  assert.equal(
    big.data.map((r: any) => r.startTime),
    many.map((m) => m.startTime),
  )
  assert.is(await tagCount(), before + 2502)
  const page = await t.call('GET', `${API}/tagSet/${refs.tagSet}/tags/?page=last&page_size=1000`, { as: c.reader })
  assert.is(page.data.results.at(-1).id, big.data[2499].id)
})

test('a bulk create stores exactly what single creates store, for every kind of value, and answers in input order', async () => {
  const example = await makeTagExample(t.db, c.owner, refs)
  const variants: Record<string, unknown>[] = [
    { startTime: 0.1, endTime: 0.30000000000000004, minFrequency: 5e-324, maxFrequency: 1e21, strength: -0.5 },
    { startTime: '1e-7', endTime: '2.5', minFrequency: '0', maxFrequency: 123456789.125, strength: 1e-7 },
    { randomlyChosen: 'yes', machineTagged: 1, userTagged: 'False', tagExample: example, parentTag: null },
    { startTime: 3, endTime: 3, minFrequency: 7, maxFrequency: 7, tagExample: '', strength: '42' },
  ]
  const strip = (tag: any) => {
    const { id, creationDate, ...rest } = tag
    return rest
  }
  const singles = []
  for (const v of variants) {
    const r = await t.call('POST', `${API}/tag/`, { as: c.owner, body: body(v) })
    assert.is(r.statusCode, 201, JSON.stringify(r.data))
    singles.push(r.data)
  }
  const bulk = await t.call('POST', `${API}/tag/`, { as: c.owner, body: variants.map((v) => body(v)) })
  assert.is(bulk.statusCode, 201, JSON.stringify(bulk.data))
  assert.equal(bulk.data.map(strip), singles.map(strip))
  const ids = bulk.data.map((x: any) => x.id)
  assert.equal(
    ids,
    [...ids].sort((a: number, b: number) => a - b),
  )
  for (const tag of bulk.data) {
    const read = await t.call('GET', `${API}/tag/${tag.id}/`, { as: c.owner })
    assert.equal(read.data, tag)
  }
})

test('tag access matrix: read on the tag set to read, write on it to change', async () => {
  const id = await makeTag(t.db, c.owner, refs)
  const url = `${API}/tag/${id}/`
  await statusMatrix(
    t,
    c,
    { owner: 200, stranger: 404, reader: 200, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
    async () => ({ method: 'GET', url }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 200, stranger: 404, reader: 403, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
    async () => ({ method: 'PATCH', url, body: { strength: 0.25 } }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 200, stranger: 404, reader: 403, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
    async () => ({ method: 'PUT', url, body: body() }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 204, stranger: 404, reader: 403, writer: 204, member: 204, grantAdmin: 204, admin: 204, anonymous: 401 },
    async () => ({ method: 'DELETE', url: `${API}/tag/${await makeTag(t.db, c.owner, refs)}/` }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 201, stranger: 400, reader: 403, writer: 201, member: 201, grantAdmin: 201, admin: 201, anonymous: 401 },
    async () => ({ method: 'POST', url: `${API}/tag/`, body: body() }),
  )
  const stranger = await t.call('POST', `${API}/tag/`, { as: c.stranger, body: body() })
  assert.equal(
    stranger.data,
    Object.fromEntries(
      ['tagClass', 'tagSet', 'mediaFile'].map((f) => [
        f,
        [`Invalid pk "${(refs as any)[f]}" - object does not exist.`],
      ]),
    ),
  )
  // golden 59: deleting someone else's tag reveals nothing
  const del = await t.call('DELETE', url, { as: c.stranger })
  assert.equal([del.statusCode, del.data], [404, { detail: 'Not found.' }])
})

test('a writable tag set does not open an unreadable media file', async () => {
  const cast = await makeRoleCallers(t, 'tagref')
  const set = await makeTagSet(t.db, cast.owner, null)
  await grantRoles(t, cast, { tagSet: set })
  const mine = await makeRecords(t, cast.writer)
  const hiddenFile = (await makeRecords(t, cast.stranger)).mediaFile
  const tagBody = (mediaFile: number) => ({
    tagSet: set,
    mediaFile,
    tagClass: mine.tagClass,
    startTime: 0,
    endTime: 1,
    minFrequency: 0,
    maxFrequency: 1,
  })
  const ok = await t.call('POST', `${API}/tag/`, { as: cast.writer, body: tagBody(mine.mediaFile) })
  assert.is(ok.statusCode, 201)
  const hidden = await t.call('POST', `${API}/tag/`, { as: cast.writer, body: tagBody(hiddenFile) })
  assert.equal(
    [hidden.statusCode, hidden.data],
    [400, { mediaFile: [`Invalid pk "${hiddenFile}" - object does not exist.`] }],
  )
  const moved = await t.call('PATCH', `${API}/tag/${ok.data.id}/`, { as: cast.writer, body: { mediaFile: hiddenFile } })
  assert.is(moved.statusCode, 400)
  // the tag set's owner reads the tag, and can send it back whole though its media file is not theirs to read
  const back = await t.call('GET', `${API}/tag/${ok.data.id}/`, { as: cast.owner })
  assert.is(back.statusCode, 200)
  const { id: _id, user: _u, creationDate: _d, ...fields } = back.data
  const put = await t.call('PUT', `${API}/tag/${ok.data.id}/`, { as: cast.owner, body: { ...fields, strength: 0.5 } })
  assert.equal([put.statusCode, put.data.strength], [200, 0.5])
  // moving a tag to a tag set the caller may only read is refused
  const readOnly = await makeTagSet(t.db, cast.stranger, null)
  await grant(t.db, cast.stranger, { user: cast.writer.id }, { tagSet: readOnly }, ['read'])
  assert.is(
    (await t.call('PATCH', `${API}/tag/${ok.data.id}/`, { as: cast.writer, body: { tagSet: readOnly } })).statusCode,
    403,
  )
})

test('a tag created through a grant is stored once per POST, and a revoked grant refuses the next at once', async () => {
  // a single create is first tried with the rule narrowed to what the caller owns, then with the whole rule
  // (server/resources/fast/create.ts); a caller remembered as using grants is still checked every time
  const cast = await makeRoleCallers(t, 'taggrant')
  const shared = await makeRecords(t, cast.owner)
  const grants = [
    await grant(t.db, cast.owner, { user: cast.writer.id }, { library: shared.library }, ['read', 'write']),
    await grant(t.db, cast.owner, { group: cast.group }, { library: shared.library }, ['read', 'write']),
  ]
  const theirs = tagRefs(shared)
  const own = tagRefs(await makeRecords(t, cast.writer))
  const post = (as: typeof cast.writer, refs: typeof own) =>
    t.call('POST', `${API}/tag/`, { as, body: { ...refs, startTime: 0, endTime: 1, minFrequency: 0, maxFrequency: 1 } })
  const stored = async (tagSet: number) =>
    Number(
      (
        await t.db
          .selectFrom('tags')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('tag_set_id', '=', tagSet)
          .executeTakeFirstOrThrow()
      ).n,
    )
  for (const as of [cast.writer, cast.member]) {
    assert.is((await post(as, theirs)).statusCode, 201)
    assert.is((await post(as, theirs)).statusCode, 201)
  }
  assert.is((await post(cast.writer, own)).statusCode, 201)
  assert.is((await post(cast.writer, own)).statusCode, 201)
  assert.equal([await stored(theirs.tagSet), await stored(own.tagSet)], [4, 2])
  await t.db.deleteFrom('app_permissions').where('id', 'in', grants).execute()
  for (const as of [cast.writer, cast.member]) {
    const refused = await post(as, theirs)
    assert.equal([refused.statusCode, Object.keys(refused.data).sort()], [400, ['mediaFile', 'tagClass', 'tagSet']])
  }
  assert.is((await post(cast.writer, own)).statusCode, 201)
  assert.equal([await stored(theirs.tagSet), await stored(own.tagSet)], [4, 3])
})

test('tag lists count only tags of readable tag sets', async () => {
  const { callers: cast, library: shared } = await sharedLibrary(t, 'taglist')
  const f = await makeMediaFile(t.db, cast.owner, shared)
  const k = await makeTagClass(t.db, cast.owner, shared)
  const a = await makeTag(t.db, cast.owner, {
    tagSet: await makeTagSet(t.db, cast.owner, shared),
    mediaFile: f,
    tagClass: k,
  })
  const looseSet = await makeTagSet(t.db, cast.owner, null)
  await grant(t.db, cast.owner, { user: cast.reader.id }, { tagSet: looseSet }, ['read'])
  const l = await makeTag(t.db, cast.owner, { tagSet: looseSet, mediaFile: f, tagClass: k })
  const privateSet = await makeTagSet(t.db, cast.owner, null)
  const p = await makeTag(t.db, cast.owner, { tagSet: privateSet, mediaFile: f, tagClass: k })
  const s = await makeTag(t.db, cast.stranger, tagRefs(await makeRecords(t, cast.stranger)))
  await listMatrix(t, cast, `${API}/tag/?page_size=1000`, {
    owner: [a, l, p],
    stranger: [s],
    reader: [a, l],
    writer: [a],
    member: [a],
    grantAdmin: [a],
  })
  assert.is((await t.call('GET', `${API}/tag/?tagSet=${privateSet}`, { as: cast.reader })).data.count, 0)
})

test('session authentication needs the CSRF header to write tags (goldens 89-93)', async () => {
  const login = await sessionLogin((o) => t.app.inject(o), c.owner.username, c.owner.password)
  assert.is(login.response.statusCode, 200)
  const { cookies, cookie } = login
  const id = await makeTag(t.db, c.owner, refs)
  const get = await t.call('GET', `${API}/tag/${id}/`, { headers: { cookie } })
  assert.equal([get.statusCode, get.data.id], [200, id])
  const csrf = { detail: 'CSRF Failed: CSRF token missing or incorrect.' }
  const post = await t.call('POST', `${API}/tag/`, { body: body(), headers: { cookie } })
  assert.equal([post.statusCode, post.data], [403, csrf])
  const posted = await t.call('POST', `${API}/tag/`, {
    body: body(),
    headers: { cookie, 'x-csrftoken': cookies.csrftoken },
  })
  assert.equal([posted.statusCode, posted.data.user], [201, c.owner.id])
  const del = await t.call('DELETE', `${API}/tag/${id}/`, { headers: { cookie } })
  assert.equal([del.statusCode, del.data], [403, csrf])
  const deleted = await t.call('DELETE', `${API}/tag/${id}/`, { headers: { cookie, 'x-csrftoken': cookies.csrftoken } })
  assert.is(deleted.statusCode, 204)
})

test('OPTIONS tag/ lists the create fields in the golden order', async () => {
  const res = await t.call('OPTIONS', `${API}/tag/`, { as: c.owner })
  assert.is(res.data.name, 'Tag List')
  assert.equal(Object.keys(res.data.actions.POST), FIELDS)
  assert.equal(res.data.actions.POST.tagClass, { type: 'field', required: true, read_only: false, label: 'TagClass' })
  assert.equal(res.data.actions.POST.startTime, { type: 'float', required: true, read_only: false, label: 'StartTime' })
  assert.equal(res.data.actions.POST.user, { type: 'field', required: false, read_only: true, label: 'User' })
  const anon = await t.call('OPTIONS', `${API}/tag/`)
  assert.equal([anon.statusCode, anon.data.actions], [200, undefined])
})

test('a tag posted into a tag set the caller may read but not write is 403, before errors about its other references', async () => {
  // the stranger's tag set, in the stranger's library; the writer may read only the tag set, not the library
  const {
    library: strangerLib,
    tagSet: readOnlySet,
    mediaFile: media,
    tagClass: cls,
  } = await makeRecords(t, c.stranger)
  await grant(t.db, c.stranger, { user: c.writer.id }, { tagSet: readOnlySet }, ['read'])
  const before = await tagCount()
  const one = await t.call('POST', `${API}/tag/`, {
    as: c.writer,
    body: body({ tagSet: readOnlySet, mediaFile: media, tagClass: cls }),
  })
  assert.equal([one.statusCode, one.data], [403, { detail: 'You do not have permission to perform this action.' }])
  const bulk = await t.call('POST', `${API}/tag/`, {
    as: c.writer,
    body: [body(), body({ tagSet: readOnlySet, mediaFile: media, tagClass: cls })],
  })
  assert.is(bulk.statusCode, 403)
  // a tag set the caller cannot read at all is still reported as missing (its existence is not revealed)
  const hidden = await makeTagSet(t.db, c.stranger, strangerLib)
  const unseen = await t.call('POST', `${API}/tag/`, {
    as: c.writer,
    body: body({ tagSet: hidden, mediaFile: media, tagClass: cls }),
  })
  assert.is(unseen.statusCode, 400)
  assert.equal(unseen.data.tagSet, [`Invalid pk "${hidden}" - object does not exist.`])
  // moving one's own tag there with a bad reference: 403 as well
  const own = await t.call('POST', `${API}/tag/`, { as: c.writer, body: body() })
  const moved = await t.call('PATCH', `${API}/tag/${own.data.id}/`, {
    as: c.writer,
    body: { tagSet: readOnlySet, mediaFile: media },
  })
  assert.is(moved.statusCode, 403)
  assert.is(await tagCount(), before + 1)
})

test('frequencies are never negative: 400 naming the field, on create and on PATCH', async () => {
  for (const [field, extra] of [
    ['minFrequency', { minFrequency: -1 }],
    ['maxFrequency', { minFrequency: -5, maxFrequency: -1 }],
  ] as const) {
    const res = await t.call('POST', `${API}/tag/`, { as: c.owner, body: body(extra) })
    assert.is(res.statusCode, 400, res.body)
    assert.equal(res.data[field], ['Ensure this value is greater than or equal to 0.'])
  }
  const made = await t.call('POST', `${API}/tag/`, { as: c.owner, body: body({ minFrequency: 0 }) })
  assert.is(made.statusCode, 201, made.body)
  const patched = await t.call('PATCH', `${API}/tag/${made.data.id}/`, { as: c.owner, body: { minFrequency: -0.5 } })
  assert.equal(
    [patched.statusCode, patched.data],
    [400, { minFrequency: ['Ensure this value is greater than or equal to 0.'] }],
  )
})

test.run()
