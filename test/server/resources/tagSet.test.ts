import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { localTimestamp } from '../../../server/db/time.js'
import { suiteApp } from '../../helpers/app.js'
import {
  grantRoles,
  listMatrix,
  makeRecords,
  makeRoleCallers,
  type RoleCallers,
  sharedLibrary,
  statusMatrix,
} from '../../helpers/world.js'
import { grant, makeLibrary, makeMediaFile, makeTag, makeTagClass, makeTagSet } from '../../helpers/records.js'

const API = '/api/v0'
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/

const t = suiteApp(test)
let c: RoleCallers
let lib: number

test.before(async () => {
  ;({ callers: c, library: lib } = await sharedLibrary(t, 'ts'))
})

const READ = {
  owner: 200,
  stranger: 404,
  reader: 200,
  writer: 200,
  member: 200,
  grantAdmin: 200,
  admin: 200,
  anonymous: 401,
}
const WRITE = {
  owner: 200,
  stranger: 404,
  reader: 403,
  writer: 200,
  member: 200,
  grantAdmin: 200,
  admin: 200,
  anonymous: 401,
}
const DELETE = {
  owner: 204,
  stranger: 404,
  reader: 403,
  writer: 403,
  member: 403,
  grantAdmin: 204,
  admin: 204,
  anonymous: 401,
}

test('tag set round trip, with and without a library', async () => {
  const created = await t.call('POST', `${API}/tagSet/`, {
    as: c.owner,
    body: { name: 'calls', library: lib, user: 1, creationDate: '2000-01-01T00:00:00' },
  })
  assert.is(created.statusCode, 201)
  const s = created.data
  assert.equal(Object.keys(s), ['id', 'user', 'name', 'library', 'creationDate'])
  assert.type(s.id, 'number')
  assert.equal(
    { ...s, creationDate: 'x' },
    { id: s.id, user: c.owner.id, name: 'calls', library: lib, creationDate: 'x' },
  )
  assert.match(s.creationDate, TIMESTAMP)
  assert.is(s.creationDate, '2000-01-01T00:00:00') // kept as given, as the original
  const loose = (await t.call('POST', `${API}/tagSet/`, { as: c.owner, body: { name: 'loose', library: null } })).data
  assert.is(loose.library, null)
  assert.equal((await t.call('GET', `${API}/tagSet/${s.id}/`, { as: c.owner })).data, s)

  const ids = async (q: string) =>
    (await t.call('GET', `${API}/tagSet/?user=${c.owner.id}&${q}`, { as: c.owner })).data.results.map((r: any) => r.id)
  assert.equal(await ids(''), [s.id, loose.id])
  assert.equal(await ids(`library=${lib}`), [s.id])
  assert.equal(await ids('library=null'), [loose.id])
  assert.equal(await ids('ordering=-name'), [loose.id, s.id])

  const put = await t.call('PUT', `${API}/tagSet/${s.id}/`, { as: c.owner, body: { name: 'songs', library: null } })
  assert.equal(put.data, { ...s, name: 'songs', library: null })
  const patch = await t.call('PATCH', `${API}/tagSet/${s.id}/`, { as: c.owner, body: { library: lib } })
  assert.equal(patch.data, { ...s, name: 'songs' })
  const bad = await t.call('POST', `${API}/tagSet/`, { as: c.owner, body: { library: 'one' } })
  assert.equal(bad.data, {
    name: ['This field is required.'],
    library: ['Incorrect type. Expected pk value, received str.'],
  })
  assert.is((await t.call('DELETE', `${API}/tagSet/${s.id}/`, { as: c.owner })).statusCode, 204)
  assert.is((await t.call('GET', `${API}/tagSet/${s.id}/`, { as: c.owner })).statusCode, 404)
})

test('tag set create: write on the library given, or no library', async () => {
  await statusMatrix(
    t,
    c,
    { owner: 201, stranger: 400, reader: 403, writer: 201, member: 201, grantAdmin: 201, admin: 201, anonymous: 401 },
    async (role) => ({ method: 'POST', url: `${API}/tagSet/`, body: { name: role, library: lib } }),
  )
  const stranger = await t.call('POST', `${API}/tagSet/`, { as: c.stranger, body: { name: 'x', library: lib } })
  assert.equal(stranger.data, { library: [`Invalid pk "${lib}" - object does not exist.`] })
  await statusMatrix(
    t,
    c,
    { owner: 201, stranger: 201, reader: 201, writer: 201, member: 201, grantAdmin: 201, admin: 201, anonymous: 401 },
    async (role) => ({ method: 'POST', url: `${API}/tagSet/`, body: { name: role, library: null } }),
  )
})

test('tag set access matrix through grants on its library', async () => {
  const id = await makeTagSet(t.db, c.owner, lib)
  const url = `${API}/tagSet/${id}/`
  await statusMatrix(t, c, READ, async () => ({ method: 'GET', url }))
  await statusMatrix(t, c, WRITE, async (role) => ({ method: 'PATCH', url, body: { name: role } }))
  await statusMatrix(t, c, WRITE, async (role) => ({ method: 'PUT', url, body: { name: role, library: lib } }))
  await statusMatrix(t, c, DELETE, async () => ({
    method: 'DELETE',
    url: `${API}/tagSet/${await makeTagSet(t.db, c.owner, lib)}/`,
  }))
})

test('tag set access matrix through grants on the tag set itself', async () => {
  const cast = await makeRoleCallers(t, 'tsown')
  // a tag set in a library only its owner can reach, shared on its own
  const privateLib = await makeLibrary(t.db, cast.owner)
  const shared = async () => {
    const id = await makeTagSet(t.db, cast.owner, privateLib)
    await grantRoles(t, cast, { tagSet: id })
    return id
  }
  const id = await shared()
  const url = `${API}/tagSet/${id}/`
  await statusMatrix(t, cast, READ, async () => ({ method: 'GET', url }))
  // renaming needs write on the tag set only, not on its library
  await statusMatrix(t, cast, WRITE, async (role) => ({
    method: 'PATCH',
    url,
    body: { name: role, library: privateLib },
  }))
  await statusMatrix(t, cast, DELETE, async () => ({ method: 'DELETE', url: `${API}/tagSet/${await shared()}/` }))
  // the library grant does not leak: the tag set's library stays invisible
  assert.is((await t.call('GET', `${API}/library/${privateLib}/`, { as: cast.writer })).statusCode, 404)
  // moving it to another library needs write there: unreadable -> 400, read-only -> 403, writable -> 200
  const readable = await makeLibrary(t.db, cast.stranger)
  await grant(t.db, cast.stranger, { user: cast.writer.id }, { library: readable }, ['read'])
  const writable = await makeLibrary(t.db, cast.writer)
  const hidden = await makeLibrary(t.db, cast.stranger)
  const move = (library: number | null) => t.call('PATCH', url, { as: cast.writer, body: { library } })
  const r1 = await move(hidden)
  assert.equal([r1.statusCode, r1.data], [400, { library: [`Invalid pk "${hidden}" - object does not exist.`] }])
  assert.is((await move(readable)).statusCode, 403)
  assert.is((await move(writable)).data.library, writable)
  assert.is((await move(null)).data.library, null)
})

test('tag set lists show sets reachable by owner, library grant or tag set grant', async () => {
  const { callers: cast, library: sharedLib } = await sharedLibrary(t, 'tslist')
  const inShared = await makeTagSet(t.db, cast.owner, sharedLib)
  const byOther = await makeTagSet(t.db, cast.writer, sharedLib)
  const loose = await makeTagSet(t.db, cast.owner, null)
  await grant(t.db, cast.owner, { user: cast.reader.id }, { tagSet: loose }, ['read'])
  const privateSet = await makeTagSet(t.db, cast.owner, await makeLibrary(t.db, cast.owner))
  const strangers = await makeTagSet(t.db, cast.stranger, null)
  await listMatrix(t, cast, `${API}/tagSet/?page_size=1000`, {
    owner: [inShared, byOther, loose, privateSet],
    stranger: [strangers],
    reader: [inShared, byOther, loose],
    writer: [inShared, byOther],
    member: [inShared, byOther],
    grantAdmin: [inShared, byOther],
  })
  const all = (await t.call('GET', `${API}/tagSet/?page_size=1000`, { as: cast.admin })).data.results.map(
    (r: any) => r.id,
  )
  assert.ok([inShared, byOther, loose, privateSet, strangers].every((id) => all.includes(id)))
})

test("tagSet/{id}/tags/ pages through the set's tags in id order", async () => {
  const set = await makeTagSet(t.db, c.owner, lib)
  const other = await makeTagSet(t.db, c.owner, lib)
  const mediaFile = await makeMediaFile(t.db, c.owner, lib)
  const tagClass = await makeTagClass(t.db, c.owner, lib)
  const rows = Array.from({ length: 250 }, (_, i) => ({
    user_id: c.owner.id,
    creation_date: localTimestamp(),
    tag_class_id: tagClass,
    tag_set_id: i % 2 ? set : other,
    media_file_id: mediaFile,
    start_time: i,
    end_time: i + 0.5,
    min_frequency: 100,
    max_frequency: 2000,
  }))
  const inserted = await t.db.insertInto('tags').values(rows).returning(['id', 'tag_set_id']).execute()
  const mine = inserted.filter((r) => r.tag_set_id === set).map((r) => r.id)
  const base = `${API}/tagSet/${set}/tags/`
  const first = await t.call('GET', base, { as: c.reader })
  assert.is(first.statusCode, 200)
  assert.is(first.data.count, 125)
  assert.is(first.data.previous, null)
  assert.match(first.data.next, new RegExp(`^http://[^/]+${base}\\?page=2$`))
  assert.equal(
    first.data.results.map((r: any) => r.id),
    mine.slice(0, 100),
  )
  assert.equal(first.data.results[0], (await t.call('GET', `${API}/tag/${mine[0]}/`, { as: c.reader })).data)
  const second = await t.call('GET', `${base}?page=2`, { as: c.reader })
  assert.equal(
    second.data.results.map((r: any) => r.id),
    mine.slice(100),
  )
  assert.is(second.data.next, null)
  assert.match(second.data.previous, new RegExp(`^http://[^/]+${base}$`))
  assert.equal((await t.call('GET', `${base}?page=3`, { as: c.reader })).data, { detail: 'Invalid page.' })
  const small = await t.call('GET', `${base}?page_size=10&page=last`, { as: c.reader })
  assert.equal(
    small.data.results.map((r: any) => r.id),
    mine.slice(120),
  )
  const desc = await t.call('GET', `${base}?ordering=-startTime&page_size=3`, { as: c.reader })
  assert.equal(
    desc.data.results.map((r: any) => r.id),
    mine.slice(-3).reverse(),
  )
  await statusMatrix(t, c, READ, async () => ({ method: 'GET', url: base }))
  assert.is((await t.call('POST', base, { as: c.owner, body: {} })).statusCode, 405)
  assert.is((await t.call('GET', `${API}/tagSet/999999/tags/`, { as: c.admin })).statusCode, 404)
})

test('deleting a tag set deletes its tags and the grants on it', async () => {
  const cast = await makeRoleCallers(t, 'tsdel')
  const { library, tagSet: set, ...refs } = await makeRecords(t, cast.owner)
  const keep = await makeTagSet(t.db, cast.owner, library)
  await grantRoles(t, cast, { tagSet: set })
  await grantRoles(t, cast, { tagSet: keep })
  await makeTag(t.db, cast.owner, { ...refs, tagSet: set })
  const kept = await makeTag(t.db, cast.owner, { ...refs, tagSet: keep })
  await t.db
    .insertInto('tag_examples')
    .values({
      user_id: cast.owner.id,
      creation_date: localTimestamp(),
      tag_set_id: set,
      media_file_id: refs.mediaFile,
      start_time: 0,
      end_time: 1,
      min_frequency: 0,
      max_frequency: 1,
    })
    .execute()
  assert.is((await t.call('DELETE', `${API}/tagSet/${set}/`, { as: cast.grantAdmin })).statusCode, 204)
  const tags = await t.db.selectFrom('tags').select('id').where('tag_set_id', 'in', [set, keep]).execute()
  assert.equal(
    tags.map((r) => r.id),
    [kept],
  )
  assert.equal(await t.db.selectFrom('tag_examples').select('id').where('tag_set_id', '=', set).execute(), [])
  const grants = await t.db
    .selectFrom('app_permissions')
    .select('target_id')
    .where('target_type', '=', 'tagset')
    .where('target_id', 'in', [set, keep])
    .execute()
  assert.equal(
    grants.map((g) => g.target_id),
    [keep, keep, keep, keep],
  )
})

test.run()
