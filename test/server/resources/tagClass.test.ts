import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp } from '../../helpers/app.js'
import { listMatrix, sharedLibrary, statusMatrix, type RoleCallers } from '../../helpers/world.js'
import { grant, makeLibrary, makeTagClass } from '../../helpers/records.js'

const API = '/api/v0'

const t = suiteApp(test)
let c: RoleCallers
let lib: number

test.before(async () => {
  ;({ callers: c, library: lib } = await sharedLibrary(t, 'tc'))
})

test('tag class round trip', async () => {
  const created = await t.call('POST', `${API}/tagClass/`, {
    as: c.writer,
    body: { library: lib, className: 'turdus_merula', displayName: 'Blackbird', user: 1 },
  })
  assert.is(created.statusCode, 201)
  const k = created.data
  assert.equal(Object.keys(k), ['id', 'user', 'library', 'className', 'displayName'])
  assert.type(k.id, 'number')
  assert.equal(k, { id: k.id, user: c.writer.id, library: lib, className: 'turdus_merula', displayName: 'Blackbird' })
  assert.equal((await t.call('GET', `${API}/tagClass/${k.id}/`, { as: c.reader })).data, k)
  const plain = (
    await t.call('POST', `${API}/tagClass/`, {
      as: c.owner,
      body: { library: lib, className: 'erithacus', displayName: '' },
    })
  ).data
  assert.is(plain.displayName, '')
  const ids = async (q: string) =>
    (await t.call('GET', `${API}/tagClass/?library=${lib}&${q}`, { as: c.owner })).data.results.map((r: any) => r.id)
  assert.equal(await ids(''), [k.id, plain.id])
  assert.equal(await ids('ordering=className'), [plain.id, k.id])
  assert.equal(await ids(`user=${c.writer.id}`), [k.id])
  const put = await t.call('PUT', `${API}/tagClass/${k.id}/`, {
    as: c.owner,
    body: { library: lib, className: 'merula', displayName: k.displayName },
  })
  assert.equal(put.data, { ...k, className: 'merula' })
  // the original requires displayName on PUT as on create
  const putBare = await t.call('PUT', `${API}/tagClass/${k.id}/`, {
    as: c.owner,
    body: { library: lib, className: 'merula' },
  })
  assert.equal(putBare.data, { displayName: ['This field is required.'] })
  const patch = await t.call('PATCH', `${API}/tagClass/${k.id}/`, { as: c.owner, body: { displayName: '' } })
  assert.equal(patch.data, { ...k, className: 'merula', displayName: '' })
  const bad = await t.call('POST', `${API}/tagClass/`, { as: c.owner, body: { displayName: 5 } })
  assert.equal(bad.data, { library: ['This field is required.'], className: ['This field is required.'] })
  assert.is((await t.call('DELETE', `${API}/tagClass/${k.id}/`, { as: c.owner })).statusCode, 204)
  assert.is((await t.call('GET', `${API}/tagClass/${k.id}/`, { as: c.owner })).statusCode, 404)
})

test('tag class access matrix: read on the library to read, write to change', async () => {
  const id = await makeTagClass(t.db, c.owner, lib)
  const url = `${API}/tagClass/${id}/`
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
    async (role) => ({ method: 'PATCH', url, body: { displayName: role } }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 204, stranger: 404, reader: 403, writer: 204, member: 204, grantAdmin: 204, admin: 204, anonymous: 401 },
    async () => ({ method: 'DELETE', url: `${API}/tagClass/${await makeTagClass(t.db, c.owner, lib)}/` }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 201, stranger: 400, reader: 403, writer: 201, member: 201, grantAdmin: 201, admin: 201, anonymous: 401 },
    async (role) => ({
      method: 'POST',
      url: `${API}/tagClass/`,
      body: { library: lib, className: role, displayName: role },
    }),
  )
  // moving a class into a library the caller may only read
  const readOnly = await makeLibrary(t.db, c.stranger)
  await grant(t.db, c.stranger, { user: c.writer.id }, { library: readOnly }, ['read'])
  assert.is((await t.call('PATCH', url, { as: c.writer, body: { library: readOnly } })).statusCode, 403)
  assert.is((await t.call('GET', url, { as: c.writer })).data.library, lib)
})

test('tag class lists count only classes of readable libraries', async () => {
  const { callers: cast, library: shared } = await sharedLibrary(t, 'tclist')
  const a = await makeTagClass(t.db, cast.owner, shared)
  const p = await makeTagClass(t.db, cast.owner, await makeLibrary(t.db, cast.owner))
  const s = await makeTagClass(t.db, cast.stranger, await makeLibrary(t.db, cast.stranger))
  await listMatrix(t, cast, `${API}/tagClass/?page_size=1000`, {
    owner: [a, p],
    stranger: [s],
    reader: [a],
    writer: [a],
    member: [a],
    grantAdmin: [a],
  })
})

test.run()
