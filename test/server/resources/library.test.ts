import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { suiteApp } from '../../helpers/app.js'
import {
  grantRoles,
  listMatrix,
  makeRoleCallers,
  sharedLibrary,
  statusMatrix,
  type RoleCallers,
} from '../../helpers/world.js'
import {
  grant,
  makeLibrary,
  makeMediaFile,
  makeMetaData,
  makeTag,
  makeTagClass,
  makeTagExample,
  makeTagSet,
} from '../../helpers/records.js'

const API = '/api/v0'
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/

const t = suiteApp(test)
let c: RoleCallers

test.before(async () => {
  c = await makeRoleCallers(t, 'lib')
})

test('library round trip: create, read, list, filter, order, PUT, PATCH, delete', async () => {
  const created = await t.call('POST', `${API}/library/`, {
    as: c.owner,
    body: { name: 'Marsh', user: 999, id: 5, mediaFiles: [1] },
  })
  assert.is(created.statusCode, 201)
  const lib = created.data
  assert.equal(Object.keys(lib), ['id', 'user', 'name', 'mediaFiles', 'creationDate', 'speechPolicy'])
  assert.type(lib.id, 'number')
  assert.is(lib.user, c.owner.id)
  assert.is(lib.name, 'Marsh')
  assert.equal(lib.mediaFiles, [])
  assert.match(lib.creationDate, TIMESTAMP)

  const m1 = await makeMediaFile(t.db, c.owner, lib.id)
  const m2 = await makeMediaFile(t.db, c.owner, lib.id)
  const read = await t.call('GET', `${API}/library/${lib.id}/`, { as: c.owner })
  assert.is(read.statusCode, 200)
  assert.equal(read.data, { ...lib, mediaFiles: [m1, m2] })

  const second = (await t.call('POST', `${API}/library/`, { as: c.owner, body: { name: 'Alder' } })).data
  const list = await t.call('GET', `${API}/library/?user=${c.owner.id}`, { as: c.owner })
  assert.is(list.statusCode, 200)
  assert.equal(
    list.data.results.map((r: any) => r.id),
    [lib.id, second.id],
  )
  assert.equal(list.data.results[0], read.data)
  const byName = await t.call('GET', `${API}/library/?user=${c.owner.id}&ordering=name`, { as: c.owner })
  assert.equal(
    byName.data.results.map((r: any) => r.name),
    ['Alder', 'Marsh'],
  )
  const none = await t.call('GET', `${API}/library/?user=${c.stranger.id}`, { as: c.owner })
  assert.is(none.data.count, 0)
  assert.is((await t.call('GET', `${API}/library/?user=abc`, { as: c.owner })).statusCode, 400)

  const put = await t.call('PUT', `${API}/library/${lib.id}/`, {
    as: c.owner,
    body: { name: 'Marsh 2', user: c.stranger.id },
  })
  assert.is(put.statusCode, 200)
  assert.equal(put.data, { ...read.data, name: 'Marsh 2' })
  const badPut = await t.call('PUT', `${API}/library/${lib.id}/`, { as: c.owner, body: {} })
  assert.is(badPut.statusCode, 400)
  assert.equal(badPut.data, { name: ['This field is required.'] })
  const patch = await t.call('PATCH', `${API}/library/${lib.id}/`, { as: c.owner, body: { name: 'Marsh 3' } })
  assert.equal(patch.data, { ...read.data, name: 'Marsh 3' })
  const emptyPatch = await t.call('PATCH', `${API}/library/${lib.id}/`, { as: c.owner, body: {} })
  assert.equal(emptyPatch.data, patch.data)

  const del = await t.call('DELETE', `${API}/library/${lib.id}/`, { as: c.owner })
  assert.is(del.statusCode, 204)
  assert.is(del.body, '')
  assert.is((await t.call('GET', `${API}/library/${lib.id}/`, { as: c.owner })).statusCode, 404)
  assert.is((await t.call('DELETE', `${API}/library/${lib.id}/`, { as: c.owner })).statusCode, 404)
})

test('library create validates its name', async () => {
  const empty = await t.call('POST', `${API}/library/`, { as: c.owner, body: {} })
  assert.is(empty.statusCode, 400)
  assert.equal(empty.data, { name: ['This field is required.'] })
  const blank = await t.call('POST', `${API}/library/`, { as: c.owner, body: { name: '  ' } })
  assert.equal(blank.data, { name: ['This field may not be blank.'] })
  const long = await t.call('POST', `${API}/library/`, { as: c.owner, body: { name: 'x'.repeat(256) } })
  assert.equal(long.data, { name: ['Ensure this field has no more than 255 characters.'] })
  const wrong = await t.call('POST', `${API}/library/`, { as: c.owner, body: { name: ['a'] } })
  assert.equal(wrong.data, { name: ['Not a valid string.'] })
  const array = await t.call('POST', `${API}/library/`, { as: c.owner, body: [{ name: 'a' }] })
  assert.is(array.statusCode, 400)
  assert.equal(array.data, { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] })
})

test('library access matrix: detail, update, delete, create', async () => {
  const lib = await makeLibrary(t.db, c.owner)
  await grantRoles(t, c, { library: lib })
  const url = `${API}/library/${lib}/`
  await statusMatrix(
    t,
    c,
    { owner: 200, stranger: 404, reader: 200, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
    async () => ({ method: 'GET', url }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 200, stranger: 404, reader: 200, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
    async () => ({ method: 'HEAD', url }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 200, stranger: 404, reader: 403, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
    async (role) => ({ method: 'PATCH', url, body: { name: `by ${role}` } }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 200, stranger: 404, reader: 403, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
    async (role) => ({ method: 'PUT', url, body: { name: `by ${role}` } }),
  )
  assert.is((await t.call('GET', url, { as: c.owner })).data.name, 'by admin')
  await statusMatrix(
    t,
    c,
    { owner: 204, stranger: 404, reader: 403, writer: 403, member: 403, grantAdmin: 204, admin: 204, anonymous: 401 },
    async () => {
      const fresh = await makeLibrary(t.db, c.owner)
      await grantRoles(t, c, { library: fresh })
      return { method: 'DELETE', url: `${API}/library/${fresh}/` }
    },
  )
  await statusMatrix(
    t,
    c,
    { owner: 201, stranger: 201, reader: 201, writer: 201, member: 201, grantAdmin: 201, admin: 201, anonymous: 401 },
    async (role) => ({ method: 'POST', url: `${API}/library/`, body: { name: `own ${role}` } }),
  )
  const mine = await t.call('GET', `${API}/library/?user=${c.stranger.id}`, { as: c.stranger })
  assert.equal(
    mine.data.results.map((r: any) => [r.user, r.name]),
    [[c.stranger.id, 'own stranger']],
  )
})

test('library lists show only what each caller may read, and count only that', async () => {
  const { callers: cast, library: shared } = await sharedLibrary(t, 'liblist')
  const privateLib = await makeLibrary(t.db, cast.owner)
  const strangers = await makeLibrary(t.db, cast.stranger)
  // a grant without read does not make a library visible
  await grant(t.db, cast.owner, { user: cast.stranger.id }, { library: privateLib }, ['launch_job'])
  const q = `${API}/library/?page_size=1000`
  const all = (await t.call('GET', q, { as: cast.admin })).data.results.map((r: any) => r.id)
  assert.ok(all.includes(shared) && all.includes(privateLib) && all.includes(strangers))
  await listMatrix(t, cast, q, {
    owner: [shared, privateLib],
    stranger: [strangers],
    reader: [shared],
    writer: [shared],
    member: [shared],
    grantAdmin: [shared],
    admin: all,
  })
  assert.is((await t.call('GET', `${API}/library/`)).statusCode, 401)
})

test("library/{id}/mediaFiles/ and userMetaDataFields/ list the library's records to its readers", async () => {
  const lib = await makeLibrary(t.db, c.owner)
  const other = await makeLibrary(t.db, c.owner)
  await grantRoles(t, c, { library: lib })
  const files = [await makeMediaFile(t.db, c.owner, lib), await makeMediaFile(t.db, c.writer, lib)]
  await makeMediaFile(t.db, c.owner, other)
  const field = await t.db
    .insertInto('media_file_user_metadata_fields')
    .values({ name: 'site', library_id: lib, description: 'where' })
    .returning('id')
    .executeTakeFirstOrThrow()
  await t.db.insertInto('media_file_user_metadata_fields').values({ name: 'site', library_id: other }).execute()

  const mf = await t.call('GET', `${API}/library/${lib}/mediaFiles/`, { as: c.reader })
  assert.is(mf.statusCode, 200)
  assert.is(mf.headers.allow, 'GET, HEAD, OPTIONS')
  assert.is(mf.data.count, 2)
  assert.equal(
    mf.data.results.map((r: any) => r.id),
    files,
  )
  assert.equal(mf.data.results[1], (await t.call('GET', `${API}/mediaFile/${files[1]}/`, { as: c.reader })).data)
  const filtered = await t.call('GET', `${API}/library/${lib}/mediaFiles/?user=${c.writer.id}`, { as: c.reader })
  assert.equal(
    filtered.data.results.map((r: any) => r.id),
    [files[1]],
  )

  const fields = await t.call('GET', `${API}/library/${lib}/userMetaDataFields/`, { as: c.member })
  assert.equal(fields.data, {
    count: 1,
    next: null,
    previous: null,
    results: [{ id: field.id, name: 'site', library: lib, description: 'where' }],
  })

  for (const segment of ['mediaFiles', 'userMetaDataFields']) {
    await statusMatrix(
      t,
      c,
      { owner: 200, stranger: 404, reader: 200, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
      async () => ({ method: 'GET', url: `${API}/library/${lib}/${segment}/` }),
    )
    assert.is((await t.call('GET', `${API}/library/${other}/${segment}/`, { as: c.reader })).statusCode, 404)
    assert.is((await t.call('GET', `${API}/library/99999/${segment}/`, { as: c.admin })).statusCode, 404)
    const post = await t.call('POST', `${API}/library/${lib}/${segment}/`, { as: c.owner, body: {} })
    assert.is(post.statusCode, 405)
  }
})

test('deleting a library deletes everything in it and the grants on it and its tag sets, in one go', async () => {
  const lib = await makeLibrary(t.db, c.owner)
  const keep = await makeLibrary(t.db, c.owner)
  const build = async (library: number) => {
    const stored = join(t.app.config.mediaDir, `lib${library}`, 'a.wav')
    mkdirSync(dirname(stored), { recursive: true })
    writeFileSync(stored, 'bytes')
    const mediaFile = await makeMediaFile(t.db, c.owner, library, { file: `lib${library}/a.wav` })
    await makeMetaData(t.db, mediaFile, 'fileSize', '10')
    const tagSet = await makeTagSet(t.db, c.owner, library)
    const tagClass = await makeTagClass(t.db, c.owner, library)
    const parent = await makeTag(t.db, c.owner, { tagSet, mediaFile, tagClass })
    await makeTag(t.db, c.owner, { tagSet, mediaFile, tagClass }, { parentTag: parent })
    await makeTagExample(t.db, c.owner, { tagSet, mediaFile })
    const field = await t.db
      .insertInto('media_file_user_metadata_fields')
      .values({ name: 'site', library_id: library })
      .returning('id')
      .executeTakeFirstOrThrow()
    await t.db
      .insertInto('media_file_user_metadata')
      .values({ media_file_id: mediaFile, metadata_field_id: field.id, value: 'x' })
      .execute()
    await grantRoles(t, c, { library })
    await grant(t.db, c.owner, { user: c.stranger.id }, { tagSet }, ['read'])
    return { mediaFile, tagSet, stored }
  }
  const gone = await build(lib)
  const kept = await build(keep)
  const counts = async () => ({
    libraries: await count('libraries'),
    media: await count('media_files'),
    meta: await count('media_file_metadata'),
    tagSets: await count('tag_sets'),
    classes: await count('tag_classes'),
    tags: await count('tags'),
    examples: await count('tag_examples'),
    fields: await count('media_file_user_metadata_fields'),
    values: await count('media_file_user_metadata'),
    grants: await count('app_permissions'),
  })
  const before = await counts()
  const res = await t.call('DELETE', `${API}/library/${lib}/`, { as: c.grantAdmin })
  assert.is(res.statusCode, 204)
  assert.equal(await counts(), {
    libraries: before.libraries - 1,
    media: before.media - 1,
    meta: before.meta - 1,
    tagSets: before.tagSets - 1,
    classes: before.classes - 1,
    tags: before.tags - 2,
    examples: before.examples - 1,
    fields: before.fields - 1,
    values: before.values - 1,
    grants: before.grants - 5,
  })
  const left = await t.db
    .selectFrom('app_permissions')
    .select(['target_type', 'target_id'])
    .where((eb) =>
      eb.or([
        eb.and([eb('target_type', '=', 'library'), eb('target_id', '=', lib)]),
        eb.and([eb('target_type', '=', 'tagset'), eb('target_id', '=', gone.tagSet)]),
      ]),
    )
    .execute()
  assert.equal(left, [])
  assert.is((await t.call('GET', `${API}/tagSet/${kept.tagSet}/`, { as: c.stranger })).statusCode, 200)
  assert.is((await t.call('GET', `${API}/mediaFile/${kept.mediaFile}/`, { as: c.reader })).statusCode, 200)
  assert.not.ok(existsSync(gone.stored), 'the stored file of the deleted library is removed')
  assert.ok(existsSync(kept.stored), 'the stored file of the other library stays')
})

async function count(
  table:
    | 'libraries'
    | 'media_files'
    | 'media_file_metadata'
    | 'tag_sets'
    | 'tag_classes'
    | 'tags'
    | 'tag_examples'
    | 'media_file_user_metadata_fields'
    | 'media_file_user_metadata'
    | 'app_permissions',
): Promise<number> {
  const r = await t.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(r.n)
}

test.run()
