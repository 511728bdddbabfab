import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp } from '../../helpers/app.js'
import {
  listMatrix,
  makeRecords,
  makeRoleWorld,
  sharedLibrary,
  statusMatrix,
  type RoleCallers,
} from '../../helpers/world.js'
import {
  grant,
  makeLibrary,
  makeMediaFile,
  makeTag,
  makeTagClass,
  makeTagExample,
  makeTagSet,
} from '../../helpers/records.js'

const API = '/api/v0'
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/

const t = suiteApp(test)
let c: RoleCallers
let lib: number
let refs: { tagSet: number; mediaFile: number }

test.before(async () => {
  const w = await makeRoleWorld(t, 'tx')
  c = w.callers
  lib = w.library
  refs = { tagSet: w.tagSet, mediaFile: w.mediaFile }
})

const body = (extra: Record<string, unknown> = {}) => ({
  ...refs,
  startTime: 0.5,
  endTime: 1.5,
  minFrequency: 100,
  maxFrequency: 900,
  ...extra,
})

test('tag example round trip', async () => {
  const created = await t.call('POST', `${API}/tagExample/`, { as: c.member, body: body({ user: 1 }) })
  assert.is(created.statusCode, 201)
  const x = created.data
  assert.equal(Object.keys(x), [
    'id',
    'user',
    'tagSet',
    'mediaFile',
    'creationDate',
    'startTime',
    'endTime',
    'minFrequency',
    'maxFrequency',
  ])
  assert.match(x.creationDate, TIMESTAMP)
  assert.equal(x, {
    id: x.id,
    user: c.member.id,
    ...refs,
    creationDate: x.creationDate,
    startTime: 0.5,
    endTime: 1.5,
    minFrequency: 100,
    maxFrequency: 900,
  })
  assert.equal((await t.call('GET', `${API}/tagExample/${x.id}/`, { as: c.reader })).data, x)
  const y = (await t.call('POST', `${API}/tagExample/`, { as: c.owner, body: body({ startTime: 0 }) })).data
  const ids = async (q: string) =>
    (await t.call('GET', `${API}/tagExample/?tagSet=${refs.tagSet}&${q}`, { as: c.owner })).data.results.map(
      (r: any) => r.id,
    )
  assert.equal(await ids(''), [x.id, y.id])
  assert.equal(await ids('ordering=startTime'), [y.id, x.id])
  assert.equal(await ids(`user=${c.member.id}&mediaFile=${refs.mediaFile}`), [x.id])
  const put = await t.call('PUT', `${API}/tagExample/${x.id}/`, { as: c.owner, body: body({ endTime: 9 }) })
  assert.equal(put.data, { ...x, endTime: 9 })
  const patch = await t.call('PATCH', `${API}/tagExample/${x.id}/`, { as: c.owner, body: { maxFrequency: 1000 } })
  assert.equal(patch.data, { ...x, endTime: 9, maxFrequency: 1000 })
  const region = await t.call('PATCH', `${API}/tagExample/${x.id}/`, { as: c.owner, body: { endTime: 0.1 } })
  assert.equal(
    [region.statusCode, region.data],
    [400, { endTime: ['Ensure endTime is greater than or equal to startTime.'] }],
  )
  const negative = await t.call('POST', `${API}/tagExample/`, {
    as: c.owner,
    body: body({ startTime: -2, maxFrequency: 'x' }),
  })
  assert.equal(negative.data, {
    startTime: ['Ensure this value is greater than or equal to 0.'],
    maxFrequency: ['A valid number is required.'],
  })
  const empty = await t.call('POST', `${API}/tagExample/`, { as: c.owner, body: {} })
  assert.equal(Object.keys(empty.data), ['tagSet', 'mediaFile', 'startTime', 'endTime', 'minFrequency', 'maxFrequency'])
  // a tag pointing at an example keeps living without it
  const tag = await makeTag(
    t.db,
    c.owner,
    { ...refs, tagClass: await makeTagClass(t.db, c.owner, lib) },
    { tagExample: x.id },
  )
  assert.is((await t.call('DELETE', `${API}/tagExample/${x.id}/`, { as: c.owner })).statusCode, 204)
  assert.is((await t.call('GET', `${API}/tagExample/${x.id}/`, { as: c.owner })).statusCode, 404)
  assert.is((await t.call('GET', `${API}/tag/${tag}/`, { as: c.owner })).data.tagExample, null)
  const bulk = await t.call('POST', `${API}/tagExample/`, { as: c.owner, body: [body()] })
  assert.equal(
    [bulk.statusCode, bulk.data],
    [400, { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] }],
  )
})

test('tag example access follows its tag set, like a tag', async () => {
  const id = await makeTagExample(t.db, c.owner, refs)
  const url = `${API}/tagExample/${id}/`
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
    async () => ({ method: 'PATCH', url, body: { startTime: 0.25 } }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 204, stranger: 404, reader: 403, writer: 204, member: 204, grantAdmin: 204, admin: 204, anonymous: 401 },
    async () => ({ method: 'DELETE', url: `${API}/tagExample/${await makeTagExample(t.db, c.owner, refs)}/` }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 201, stranger: 400, reader: 403, writer: 201, member: 201, grantAdmin: 201, admin: 201, anonymous: 401 },
    async () => ({ method: 'POST', url: `${API}/tagExample/`, body: body() }),
  )
  // a writable tag set does not open an unreadable media file
  const set = await makeTagSet(t.db, c.stranger, null)
  await grant(t.db, c.stranger, { user: c.writer.id }, { tagSet: set }, ['read', 'write'])
  const hidden = await makeMediaFile(t.db, c.stranger, await makeLibrary(t.db, c.stranger))
  const res = await t.call('POST', `${API}/tagExample/`, {
    as: c.writer,
    body: body({ tagSet: set, mediaFile: hidden }),
  })
  assert.equal([res.statusCode, res.data], [400, { mediaFile: [`Invalid pk "${hidden}" - object does not exist.`] }])
  assert.is((await t.call('POST', `${API}/tagExample/`, { as: c.writer, body: body({ tagSet: set }) })).statusCode, 201)
})

test('tag example lists count only examples of readable tag sets', async () => {
  const { callers: cast, library: shared } = await sharedLibrary(t, 'txlist')
  const f = await makeMediaFile(t.db, cast.owner, shared)
  const a = await makeTagExample(t.db, cast.owner, { tagSet: await makeTagSet(t.db, cast.owner, shared), mediaFile: f })
  const p = await makeTagExample(t.db, cast.owner, { tagSet: await makeTagSet(t.db, cast.owner, null), mediaFile: f })
  const s = await makeTagExample(t.db, cast.stranger, await makeRecords(t, cast.stranger))
  await listMatrix(t, cast, `${API}/tagExample/?page_size=1000`, {
    owner: [a, p],
    stranger: [s],
    reader: [a],
    writer: [a],
    member: [a],
    grantAdmin: [a],
  })
})

test.run()
