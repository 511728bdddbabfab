import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp } from '../../helpers/app.js'
import { listMatrix, makeRoleWorld, sharedLibrary, statusMatrix, type RoleCallers } from '../../helpers/world.js'
import { grant, makeLibrary, makeMediaFile, makeMetaData } from '../../helpers/records.js'

const API = '/api/v0'

const t = suiteApp(test)
let c: RoleCallers
let lib: number
let file: number

test.before(async () => {
  ;({ callers: c, library: lib, mediaFile: file } = await makeRoleWorld(t, 'meta'))
})

async function makeField(library: number, name: string): Promise<number> {
  return (
    await t.db
      .insertInto('media_file_user_metadata_fields')
      .values({ name, library_id: library })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
}

const ALL_OK = (ok: number) => ({
  owner: ok,
  stranger: 404,
  reader: ok,
  writer: ok,
  member: ok,
  grantAdmin: ok,
  admin: ok,
  anonymous: 401,
})
const WRITE = (ok: number) => ({
  owner: ok,
  stranger: 404,
  reader: 403,
  writer: ok,
  member: ok,
  grantAdmin: ok,
  admin: ok,
  anonymous: 401,
})
/** creating with a reference into the library: strangers cannot see it (400), readers may not write (403) */
const CREATE = {
  owner: 201,
  stranger: 400,
  reader: 403,
  writer: 201,
  member: 201,
  grantAdmin: 201,
  admin: 201,
  anonymous: 401,
}

test('mediaFileMetaData round trip', async () => {
  const created = await t.call('POST', `${API}/mediaFileMetaData/`, {
    as: c.owner,
    body: { mediaFile: file, name: 'microphonePlacement', value: '' },
  })
  assert.is(created.statusCode, 201)
  const m = created.data
  assert.equal(Object.keys(m), ['id', 'mediaFile', 'name', 'value', 'userEditable'])
  assert.type(m.id, 'number')
  assert.equal(m, { id: m.id, mediaFile: file, name: 'microphonePlacement', value: '', userEditable: true })
  assert.equal((await t.call('GET', `${API}/mediaFileMetaData/${m.id}/`, { as: c.reader })).data, m)
  const other = await makeMetaData(t.db, file, 'fileSize', '42', false)
  const list = async (q: string) =>
    (await t.call('GET', `${API}/mediaFileMetaData/?mediaFile=${file}&${q}`, { as: c.owner })).data.results.map(
      (r: any) => r.id,
    )
  assert.equal(await list(''), [m.id, other])
  assert.equal(await list('userEditable=false'), [other])
  assert.equal(await list('ordering=name'), [other, m.id])
  const file2 = await makeMediaFile(t.db, c.owner, lib)
  const put = await t.call('PUT', `${API}/mediaFileMetaData/${m.id}/`, {
    as: c.owner,
    body: { mediaFile: file2, name: 'columns', value: '3', userEditable: false },
  })
  assert.is(put.statusCode, 200)
  assert.equal(put.data, { id: m.id, mediaFile: file2, name: 'columns', value: '3', userEditable: false })
  const badPut = await t.call('PUT', `${API}/mediaFileMetaData/${m.id}/`, { as: c.owner, body: { value: '4' } })
  assert.equal(badPut.data, { mediaFile: ['This field is required.'], name: ['This field is required.'] })
  const patch = await t.call('PATCH', `${API}/mediaFileMetaData/${m.id}/`, { as: c.owner, body: { value: 12 } })
  assert.equal(patch.data, { ...put.data, value: '12' })
  const embedded = (await t.call('GET', `${API}/mediaFile/${file2}/`, { as: c.owner })).data.mediafilemetadata_set
  assert.equal(embedded, [patch.data])
  assert.is((await t.call('DELETE', `${API}/mediaFileMetaData/${m.id}/`, { as: c.owner })).statusCode, 204)
  assert.is((await t.call('GET', `${API}/mediaFileMetaData/${m.id}/`, { as: c.owner })).statusCode, 404)
  const missing = await t.call('POST', `${API}/mediaFileMetaData/`, {
    as: c.owner,
    body: { mediaFile: 999999, name: '' },
  })
  assert.equal(missing.data, {
    mediaFile: ['Invalid pk "999999" - object does not exist.'],
    name: ['This field may not be blank.'],
  })
})

test('mediaFileMetaData access matrix and lists', async () => {
  const id = await makeMetaData(t.db, file, 'durationInSeconds', '60.0')
  const url = `${API}/mediaFileMetaData/${id}/`
  await statusMatrix(t, c, ALL_OK(200), async () => ({ method: 'GET', url }))
  await statusMatrix(t, c, WRITE(200), async (role) => ({ method: 'PATCH', url, body: { value: role } }))
  await statusMatrix(t, c, WRITE(204), async () => ({
    method: 'DELETE',
    url: `${API}/mediaFileMetaData/${await makeMetaData(t.db, file, 'x', 'y')}/`,
  }))
  await statusMatrix(t, c, CREATE, async () => ({
    method: 'POST',
    url: `${API}/mediaFileMetaData/`,
    body: { mediaFile: file, name: 'numSpecies', value: '2' },
  }))
  const stranger = await t.call('POST', `${API}/mediaFileMetaData/`, {
    as: c.stranger,
    body: { mediaFile: file, name: 'n' },
  })
  assert.equal(stranger.data, { mediaFile: [`Invalid pk "${file}" - object does not exist.`] })

  // moving a record into a library the caller may only read is refused; into an unreadable one reads as missing
  const readOnlyLib = await makeLibrary(t.db, c.stranger)
  await grant(t.db, c.stranger, { user: c.writer.id }, { library: readOnlyLib }, ['read'])
  const readOnlyFile = await makeMediaFile(t.db, c.stranger, readOnlyLib)
  assert.is((await t.call('PATCH', url, { as: c.writer, body: { mediaFile: readOnlyFile } })).statusCode, 403)
  const hidden = await makeMediaFile(t.db, c.stranger, await makeLibrary(t.db, c.stranger))
  const res = await t.call('PATCH', url, { as: c.writer, body: { mediaFile: hidden } })
  assert.equal([res.statusCode, res.data], [400, { mediaFile: [`Invalid pk "${hidden}" - object does not exist.`] }])

  const { callers: cast, library: shared } = await sharedLibrary(t, 'metalist')
  const a = await makeMetaData(t.db, await makeMediaFile(t.db, cast.owner, shared), 'a', '1')
  const p = await makeMetaData(
    t.db,
    await makeMediaFile(t.db, cast.owner, await makeLibrary(t.db, cast.owner)),
    'p',
    '1',
  )
  const s = await makeMetaData(
    t.db,
    await makeMediaFile(t.db, cast.stranger, await makeLibrary(t.db, cast.stranger)),
    's',
    '1',
  )
  await listMatrix(t, cast, `${API}/mediaFileMetaData/?page_size=1000`, {
    owner: [a, p],
    stranger: [s],
    reader: [a],
    writer: [a],
    member: [a],
    grantAdmin: [a],
  })
})

test('mediaFileUserMetaDataField round trip, unique names per library, access', async () => {
  const created = await t.call('POST', `${API}/mediaFileUserMetaDataField/`, {
    as: c.owner,
    body: { name: 'habitat', library: lib },
  })
  assert.is(created.statusCode, 201)
  const f = created.data
  assert.equal(f, { id: f.id, name: 'habitat', library: lib, description: '' })
  assert.type(f.id, 'number')
  assert.equal((await t.call('GET', `${API}/mediaFileUserMetaDataField/${f.id}/`, { as: c.member })).data, f)
  const dup = await t.call('POST', `${API}/mediaFileUserMetaDataField/`, {
    as: c.owner,
    body: { name: 'habitat', library: lib },
  })
  assert.equal(
    [dup.statusCode, dup.data],
    [400, { non_field_errors: ['The fields library, name must make a unique set.'] }],
  )
  const lib2 = await makeLibrary(t.db, c.owner)
  const elsewhere = await t.call('POST', `${API}/mediaFileUserMetaDataField/`, {
    as: c.owner,
    body: { name: 'habitat', library: lib2, description: 'd' },
  })
  assert.is(elsewhere.statusCode, 201)
  const list = await t.call('GET', `${API}/mediaFileUserMetaDataField/?library=${lib}&ordering=-name`, { as: c.owner })
  assert.equal(
    list.data.results.map((r: any) => r.id),
    [f.id],
  )
  const put = await t.call('PUT', `${API}/mediaFileUserMetaDataField/${f.id}/`, {
    as: c.owner,
    body: { name: 'biome', library: lib, description: 'kind of place' },
  })
  assert.equal(put.data, { id: f.id, name: 'biome', library: lib, description: 'kind of place' })
  const clash = await t.call('PATCH', `${API}/mediaFileUserMetaDataField/${f.id}/`, {
    as: c.owner,
    body: { library: lib2, name: 'habitat' },
  })
  assert.is(clash.statusCode, 400)
  const patch = await t.call('PATCH', `${API}/mediaFileUserMetaDataField/${f.id}/`, {
    as: c.owner,
    body: { name: 'biome' },
  })
  assert.equal(patch.data, put.data)

  const url = `${API}/mediaFileUserMetaDataField/${f.id}/`
  await statusMatrix(t, c, ALL_OK(200), async () => ({ method: 'GET', url }))
  await statusMatrix(t, c, WRITE(200), async (role) => ({ method: 'PATCH', url, body: { description: role } }))
  let n = 0
  await statusMatrix(t, c, CREATE, async () => ({
    method: 'POST',
    url: `${API}/mediaFileUserMetaDataField/`,
    body: { name: `f${++n}`, library: lib },
  }))
  await statusMatrix(t, c, WRITE(204), async () => ({
    method: 'DELETE',
    url: `${API}/mediaFileUserMetaDataField/${await makeField(lib, `del${++n}`)}/`,
  }))
  assert.is((await t.call('DELETE', url, { as: c.owner })).statusCode, 204)
})

test("mediaFileUserMetaData round trip with metaDataFieldName; the field must be of the file's library", async () => {
  const field = await makeField(lib, 'weather')
  const field2 = await makeField(lib, 'wind')
  const created = await t.call('POST', `${API}/mediaFileUserMetaData/`, {
    as: c.writer,
    body: { mediaFile: file, metaDataField: field, value: 'rain', metaDataFieldName: 'x' },
  })
  assert.is(created.statusCode, 201)
  const v = created.data
  assert.equal(Object.keys(v), ['id', 'mediaFile', 'metaDataField', 'value', 'metaDataFieldName'])
  assert.equal(v, { id: v.id, mediaFile: file, metaDataField: field, value: 'rain', metaDataFieldName: 'weather' })
  assert.equal((await t.call('GET', `${API}/mediaFileUserMetaData/${v.id}/`, { as: c.reader })).data, v)
  const dup = await t.call('POST', `${API}/mediaFileUserMetaData/`, {
    as: c.owner,
    body: { mediaFile: file, metaDataField: field, value: 'sun' },
  })
  assert.equal(
    [dup.statusCode, dup.data],
    [400, { non_field_errors: ['The fields mediaFile, metaDataField must make a unique set.'] }],
  )
  const foreignField = await makeField(await makeLibrary(t.db, c.owner), 'weather')
  const wrongLib = await t.call('POST', `${API}/mediaFileUserMetaData/`, {
    as: c.owner,
    body: { mediaFile: file, metaDataField: foreignField, value: 'x' },
  })
  assert.equal(
    [wrongLib.statusCode, wrongLib.data],
    [400, { metaDataField: ['The field must belong to the library of the media file.'] }],
  )
  const badPatch = await t.call('PATCH', `${API}/mediaFileUserMetaData/${v.id}/`, {
    as: c.owner,
    body: { metaDataField: foreignField },
  })
  assert.is(badPatch.statusCode, 400)

  const list = await t.call('GET', `${API}/mediaFileUserMetaData/?mediaFile=${file}&metaDataField=${field}`, {
    as: c.owner,
  })
  assert.equal(list.data.results, [v])
  const put = await t.call('PUT', `${API}/mediaFileUserMetaData/${v.id}/`, {
    as: c.owner,
    body: { mediaFile: file, metaDataField: field2, value: 'calm' },
  })
  assert.equal(put.data, { id: v.id, mediaFile: file, metaDataField: field2, value: 'calm', metaDataFieldName: 'wind' })
  const patch = await t.call('PATCH', `${API}/mediaFileUserMetaData/${v.id}/`, { as: c.owner, body: { value: '' } })
  assert.equal(patch.data, { ...put.data, value: '' })

  const url = `${API}/mediaFileUserMetaData/${v.id}/`
  await statusMatrix(t, c, ALL_OK(200), async () => ({ method: 'GET', url }))
  await statusMatrix(t, c, WRITE(200), async (role) => ({ method: 'PATCH', url, body: { value: role } }))
  let n = 0
  await statusMatrix(t, c, CREATE, async () => ({
    method: 'POST',
    url: `${API}/mediaFileUserMetaData/`,
    body: { mediaFile: file, metaDataField: await makeField(lib, `c${++n}`), value: 'v' },
  }))
  await statusMatrix(t, c, WRITE(204), async () => {
    const id = (
      await t.db
        .insertInto('media_file_user_metadata')
        .values({ media_file_id: file, metadata_field_id: await makeField(lib, `d${++n}`), value: '' })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
    return { method: 'DELETE', url: `${API}/mediaFileUserMetaData/${id}/` }
  })

  const { callers: cast, library: shared } = await sharedLibrary(t, 'umdlist')
  const value = async (library: number, owner: typeof cast.owner) =>
    (
      await t.db
        .insertInto('media_file_user_metadata')
        .values({
          media_file_id: await makeMediaFile(t.db, owner, library),
          metadata_field_id: await makeField(library, 'f'),
          value: '',
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
  const a = await value(shared, cast.owner)
  const p = await value(await makeLibrary(t.db, cast.owner), cast.owner)
  const s = await value(await makeLibrary(t.db, cast.stranger), cast.stranger)
  await listMatrix(t, cast, `${API}/mediaFileUserMetaData/?page_size=1000`, {
    owner: [a, p],
    stranger: [s],
    reader: [a],
    writer: [a],
    member: [a],
    grantAdmin: [a],
  })
  const fields = await t.call('GET', `${API}/mediaFileUserMetaDataField/?page_size=1000`, { as: cast.reader })
  assert.is(fields.data.count, 1)
})

test.run()
