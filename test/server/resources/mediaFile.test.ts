import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { listMatrix, sharedLibrary, statusMatrix, type RoleCallers } from '../../helpers/world.js'
import { makeLibrary, makeMediaFile, makeMetaData, makeTag, makeTagClass, makeTagSet } from '../../helpers/records.js'

const API = '/api/v0'

const t = suiteApp(test)
let c: RoleCallers
let lib: number

test.before(async () => {
  ;({ callers: c, library: lib } = await sharedLibrary(t, 'mf'))
})

async function makeSensor(owner: TestUser): Promise<number> {
  return (
    await t.db
      .insertInto('sensors')
      .values({ user_id: owner.id, name: 'mic' })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
}

test('media file detail and list carry every field with its type, metadata embedded', async () => {
  const id = await makeMediaFile(t.db, c.owner, lib, {
    file: 'site 1/rec #1.wav',
    alias: 'rec1',
    uploadDate: '2020-01-01 00:00:00',
    realStartTime: '2020-01-02 03:04:05',
  })
  const m1 = await makeMetaData(t.db, id, 'fileSize', '1000000')
  const m2 = await makeMetaData(t.db, id, 'notes', '', true)
  const res = await t.call('GET', `${API}/mediaFile/${id}/`, { as: c.owner, headers: { host: 'mas.example:8000' } })
  assert.is(res.statusCode, 200)
  assert.is(res.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
  assert.equal(res.data, {
    id,
    file: 'site 1/rec #1.wav',
    url: 'http://mas.example:8000/media/site%201/rec%20%231.wav',
    user: c.owner.id,
    type: 1,
    active: true,
    alias: 'rec1',
    uploadDate: '2020-01-01T00:00:00',
    hasTranscript: false,
    sensor: null,
    library: lib,
    realStartTime: '2020-01-02T03:04:05',
    mediafilemetadata_set: [
      { id: m1, mediaFile: id, name: 'fileSize', value: '1000000', userEditable: false },
      { id: m2, mediaFile: id, name: 'notes', value: '', userEditable: true },
    ],
  })
  assert.equal(Object.keys(res.data), [
    'id',
    'file',
    'url',
    'user',
    'type',
    'active',
    'alias',
    'uploadDate',
    'hasTranscript',
    'sensor',
    'library',
    'realStartTime',
    'mediafilemetadata_set',
  ])

  const other = await makeMediaFile(t.db, c.owner, lib)
  await makeMetaData(t.db, other, 'fileSize', '5')
  const list = await t.call('GET', `${API}/mediaFile/?library=${lib}`, {
    as: c.owner,
    headers: { host: 'mas.example:8000' },
  })
  assert.is(list.statusCode, 200)
  const byId = new Map(list.data.results.map((r: any) => [r.id, r]))
  assert.equal(byId.get(id), res.data)
  assert.equal(
    (byId.get(other) as any).mediafilemetadata_set.map((m: any) => [m.mediaFile, m.name, m.value]),
    [[other, 'fileSize', '5']],
  )
  assert.is((byId.get(other) as any).realStartTime, null)
})

test('mediaFile/ has no create: POST is 405 and OPTIONS offers no actions', async () => {
  const post = await t.call('POST', `${API}/mediaFile/`, { as: c.owner, body: { alias: 'x' } })
  assert.is(post.statusCode, 405)
  assert.is(post.headers.allow, 'GET, HEAD, OPTIONS')
  assert.equal(post.data, { detail: 'Method "POST" not allowed.' })
  const options = await t.call('OPTIONS', `${API}/mediaFile/`, { as: c.owner })
  assert.is(options.statusCode, 200)
  assert.is(options.data.name, 'Media File List')
  assert.is(options.data.description, 'Media files of the user. No create through the API.')
  assert.is(options.data.actions, undefined)
})

test('media file filters and ordering', async () => {
  const fl = await makeLibrary(t.db, c.owner)
  const sensor = await makeSensor(c.owner)
  const a = await makeMediaFile(t.db, c.owner, fl, { alias: 'b', type: 1, sensor })
  const b = await makeMediaFile(t.db, c.writer, fl, { alias: 'c', type: 2, active: false })
  const d = await makeMediaFile(t.db, c.owner, fl, { alias: 'a', type: 1, hasTranscript: true })
  const ids = async (q: string) => {
    const res = await t.call('GET', `${API}/mediaFile/?library=${fl}&${q}`, { as: c.owner })
    assert.is(res.statusCode, 200, q)
    assert.is(res.data.count, res.data.results.length)
    return res.data.results.map((r: any) => r.id)
  }
  assert.equal(await ids(''), [a, b, d])
  assert.equal(await ids(`sensor=${sensor}`), [a])
  assert.equal(await ids('type=2'), [b])
  assert.equal(await ids(`user=${c.writer.id}`), [b])
  assert.equal(await ids('active=false'), [b])
  assert.equal(await ids('active=true'), [a, d])
  assert.equal(await ids('hasTranscript=true'), [d])
  assert.equal(await ids('ordering=alias'), [d, a, b])
  assert.equal(await ids('ordering=-alias'), [b, a, d])
  const bad = await t.call('GET', `${API}/mediaFile/?library=x&active=maybe`, { as: c.owner })
  assert.is(bad.statusCode, 400)
  assert.equal(Object.keys(bad.data).sort(), ['active', 'library'])
})

test('update changes only alias, active, sensor, realStartTime and hasTranscript (PATCH and PUT)', async () => {
  const id = await makeMediaFile(t.db, c.owner, lib, {
    file: 'u.wav',
    alias: 'u.wav',
    uploadDate: '2020-01-01 00:00:00',
  })
  const before = (await t.call('GET', `${API}/mediaFile/${id}/`, { as: c.owner })).data
  // golden 44: read-only fields are ignored
  const same = await t.call('PATCH', `${API}/mediaFile/${id}/`, { as: c.owner, body: { user: 999, alias: 'u.wav' } })
  assert.is(same.statusCode, 200)
  assert.equal(same.data, before)
  const otherLib = await makeLibrary(t.db, c.owner)
  const sensor = await makeSensor(c.owner)
  const patch = await t.call('PATCH', `${API}/mediaFile/${id}/`, {
    as: c.owner,
    body: {
      alias: 'renamed',
      active: false,
      sensor,
      realStartTime: '2021-06-01T12:30:00.250',
      file: 'evil.wav',
      url: 'x',
      user: c.stranger.id,
      type: 2,
      library: otherLib,
      uploadDate: '1999-01-01T00:00:00',
      hasTranscript: true,
      mediafilemetadata_set: [{ name: 'x' }],
    },
  })
  assert.is(patch.statusCode, 200)
  assert.equal(patch.data, {
    ...before,
    alias: 'renamed',
    active: false,
    sensor,
    realStartTime: '2021-06-01T12:30:00',
    hasTranscript: true,
  })
  const stored = await t.db
    .selectFrom('media_files')
    .select('has_transcript')
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  assert.is(stored.has_transcript, true)
  const only = await t.call('PATCH', `${API}/mediaFile/${id}/`, { as: c.owner, body: { hasTranscript: false } })
  assert.equal(only.data, { ...patch.data, hasTranscript: false })
  assert.equal(
    (await t.call('PATCH', `${API}/mediaFile/${id}/`, { as: c.owner, body: { hasTranscript: true } })).data
      .hasTranscript,
    true,
  )
  assert.equal((await t.call('GET', `${API}/mediaFile/${id}/`, { as: c.owner })).data, patch.data)

  const put = await t.call('PUT', `${API}/mediaFile/${id}/`, {
    as: c.owner,
    body: { alias: '', active: true, sensor: null, realStartTime: null, hasTranscript: false },
  })
  assert.is(put.statusCode, 200)
  assert.equal(put.data, { ...before, alias: '', active: true, sensor: null, realStartTime: null })

  const bad = await t.call('PATCH', `${API}/mediaFile/${id}/`, {
    as: c.owner,
    body: { realStartTime: 'yesterday', active: 'perhaps', alias: 5 },
  })
  assert.is(bad.statusCode, 400)
  assert.equal(bad.data, {
    active: ['Must be a valid boolean.'],
    realStartTime: ['Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]].'],
  })
  const long = await t.call('PATCH', `${API}/mediaFile/${id}/`, { as: c.owner, body: { alias: 'x'.repeat(1025) } })
  assert.equal(long.data, { alias: ['Ensure this field has no more than 1024 characters.'] })
  // someone else's sensor is reported exactly like a missing one
  const foreign = await makeSensor(c.stranger)
  for (const s of [foreign, 999999]) {
    const res = await t.call('PATCH', `${API}/mediaFile/${id}/`, { as: c.owner, body: { sensor: s } })
    assert.is(res.statusCode, 400)
    assert.equal(res.data, { sensor: [`Invalid pk "${s}" - object does not exist.`] })
  }
  assert.equal((await t.call('GET', `${API}/mediaFile/${id}/`, { as: c.owner })).data, put.data)
})

test('media file access matrix: read, update, delete', async () => {
  const id = await makeMediaFile(t.db, c.owner, lib)
  const url = `${API}/mediaFile/${id}/`
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
    async (role) => ({ method: 'PATCH', url, body: { alias: role } }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 200, stranger: 404, reader: 403, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
    async (role) => ({ method: 'PUT', url, body: { alias: role } }),
  )
  assert.is((await t.call('GET', url, { as: c.reader })).data.alias, 'admin')
  await statusMatrix(
    t,
    c,
    { owner: 204, stranger: 404, reader: 403, writer: 403, member: 403, grantAdmin: 204, admin: 204, anonymous: 401 },
    async () => ({ method: 'DELETE', url: `${API}/mediaFile/${await makeMediaFile(t.db, c.owner, lib)}/` }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 404, stranger: 404, reader: 404, writer: 404, member: 404, grantAdmin: 404, admin: 404, anonymous: 401 },
    async () => ({ method: 'GET', url: `${API}/mediaFile/abc/` }),
  )
})

test('media file lists count only files of readable libraries', async () => {
  const { callers: cast, library: shared } = await sharedLibrary(t, 'mflist')
  const privateLib = await makeLibrary(t.db, cast.owner)
  const a = await makeMediaFile(t.db, cast.owner, shared)
  const b = await makeMediaFile(t.db, cast.writer, shared)
  const p = await makeMediaFile(t.db, cast.owner, privateLib)
  const s = await makeMediaFile(t.db, cast.stranger, await makeLibrary(t.db, cast.stranger))
  const visible = async (role: keyof RoleCallers, url: string) =>
    (await t.call('GET', url, { as: cast[role] as TestUser })).data
  await listMatrix(t, cast, `${API}/mediaFile/?page_size=1000`, {
    owner: [a, b, p],
    stranger: [s],
    reader: [a, b],
    writer: [a, b],
    member: [a, b],
    grantAdmin: [a, b],
  })
  const all = await visible('admin', `${API}/mediaFile/?page_size=1000`)
  assert.ok([a, b, p, s].every((id) => all.results.some((r: any) => r.id === id)))
  // a filter on an unreadable library finds nothing rather than revealing it
  assert.equal((await visible('reader', `${API}/mediaFile/?library=${privateLib}`)).count, 0)
})

test('deleting a media file deletes its metadata and tags and removes the stored file', async () => {
  const stored = join(t.app.config.mediaDir, 'mf', 'gone.wav')
  mkdirSync(dirname(stored), { recursive: true })
  writeFileSync(stored, 'bytes')
  const id = await makeMediaFile(t.db, c.owner, lib, { file: 'mf/gone.wav' })
  const keep = await makeMediaFile(t.db, c.owner, lib)
  await makeMetaData(t.db, id, 'fileSize', '1')
  await makeMetaData(t.db, keep, 'fileSize', '1')
  const tagSet = await makeTagSet(t.db, c.owner, lib)
  const tagClass = await makeTagClass(t.db, c.owner, lib)
  await makeTag(t.db, c.owner, { tagSet, tagClass, mediaFile: id })
  const kept = await makeTag(t.db, c.owner, { tagSet, tagClass, mediaFile: keep })
  const res = await t.call('DELETE', `${API}/mediaFile/${id}/`, { as: c.owner })
  assert.is(res.statusCode, 204)
  assert.not.ok(existsSync(stored), 'the stored file is removed')
  const meta = await t.db
    .selectFrom('media_file_metadata')
    .select('media_file_id')
    .where('media_file_id', 'in', [id, keep])
    .execute()
  assert.equal(
    meta.map((m) => m.media_file_id),
    [keep],
  )
  const tags = await t.db.selectFrom('tags').select('id').where('tag_set_id', '=', tagSet).execute()
  assert.equal(
    tags.map((r) => r.id),
    [kept],
  )
  assert.is((await t.call('GET', `${API}/mediaFile/${id}/`, { as: c.owner })).statusCode, 404)
})

test("mediaFile/{id}/userMetaData/ lists the file's user metadata to readers of its library", async () => {
  const id = await makeMediaFile(t.db, c.owner, lib)
  const other = await makeMediaFile(t.db, c.owner, lib)
  const field = (
    await t.db
      .insertInto('media_file_user_metadata_fields')
      .values({ name: 'weather', library_id: lib })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  const value = (
    await t.db
      .insertInto('media_file_user_metadata')
      .values({ media_file_id: id, metadata_field_id: field, value: 'rain' })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  await t.db
    .insertInto('media_file_user_metadata')
    .values({ media_file_id: other, metadata_field_id: field, value: 'sun' })
    .execute()
  const res = await t.call('GET', `${API}/mediaFile/${id}/userMetaData/`, { as: c.reader })
  assert.is(res.statusCode, 200)
  assert.equal(res.data, {
    count: 1,
    next: null,
    previous: null,
    results: [{ id: value, mediaFile: id, metaDataField: field, value: 'rain', metaDataFieldName: 'weather' }],
  })
  await statusMatrix(
    t,
    c,
    { owner: 200, stranger: 404, reader: 200, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
    async () => ({ method: 'GET', url: `${API}/mediaFile/${id}/userMetaData/` }),
  )
  assert.is((await t.call('GET', `${API}/mediaFile/999999/userMetaData/`, { as: c.admin })).statusCode, 404)
})

test.run()
