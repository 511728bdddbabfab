import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { api, suiteApp, type TestUser } from '../../helpers/app.js'
import { grant, makeGroup, makeLibrary, makeMediaFile } from '../../helpers/records.js'
import { makeCallers } from '../../helpers/world.js'

const t = suiteApp(test)
let alice: TestUser
let bob: TestUser
let admin: TestUser
let aliceLib: number
let bobLib: number

test.before(async () => {
  ;({ alice, bob, admin } = await makeCallers(t))
  aliceLib = await makeLibrary(t.db, alice)
  bobLib = await makeLibrary(t.db, bob)
})

const project = async (as: TestUser, name = 'p') =>
  (await t.call('POST', api('project/'), { as, body: { name } })).data.id as number
const members = async (id: number) =>
  (
    await t.db
      .selectFrom('project_media_files')
      .select('media_file_id')
      .where('project_id', '=', id)
      .orderBy('media_file_id')
      .execute()
  ).map((r) => r.media_file_id)

test('round trip: create for the caller with defaults, read, PUT, PATCH, delete; every field and type', async () => {
  const created = await t.call('POST', api('project/'), {
    as: alice,
    body: { name: 'birds', user: bob.id, creationDate: '2001-01-01T00:00:00', mediaFiles: [1, 2] },
  })
  assert.is(created.statusCode, 201)
  const p = created.data
  assert.type(p.id, 'number')
  assert.match(p.creationDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
  assert.is(p.creationDate, '2001-01-01T00:00:00') // kept as given, as the original
  assert.equal(p, {
    id: p.id,
    type: 1,
    name: 'birds',
    creationDate: p.creationDate,
    user: alice.id,
    userSettings: null,
    mediaFiles: [],
    notes: '',
    default_permission_read: false,
    default_permission_write: false,
    default_permission_launch_job: false,
    default_permission_admin: false,
  })

  const settings = (await t.call('GET', api('userSettings/'), { as: alice })).data.results[0].id
  const full = {
    type: 2,
    name: 'frogs',
    userSettings: settings,
    notes: 'wetland',
    default_permission_read: true,
    default_permission_write: false,
    default_permission_launch_job: true,
    default_permission_admin: false,
  }
  const put = await t.call('PUT', api(`project/${p.id}/`), { as: alice, body: full })
  assert.is(put.statusCode, 200)
  assert.equal(put.data, { id: p.id, creationDate: p.creationDate, user: alice.id, mediaFiles: [], ...full })
  const patch = await t.call('PATCH', api(`project/${p.id}/`), {
    as: alice,
    body: { notes: '', userSettings: null, default_permission_admin: 'true' },
  })
  assert.is(patch.statusCode, 200)
  assert.equal(patch.data, { ...put.data, notes: '', userSettings: null, default_permission_admin: true })
  const read = await t.call('GET', api(`project/${p.id}/`), { as: alice })
  assert.is(read.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
  assert.equal(read.data, patch.data)

  const putMissing = await t.call('PUT', api(`project/${p.id}/`), { as: alice, body: { notes: 'x' } })
  assert.is(putMissing.statusCode, 400)
  assert.equal(putMissing.data, { name: ['This field is required.'] })

  const del = await t.call('DELETE', api(`project/${p.id}/`), { as: alice })
  assert.is(del.statusCode, 204)
  assert.is(del.body, '')
  assert.is((await t.call('GET', api(`project/${p.id}/`), { as: alice })).statusCode, 404)
})

test("references: an unknown type, another user's settings or a bad value are 400", async () => {
  const bobSettings = (await t.call('GET', api('userSettings/'), { as: bob })).data.results[0].id
  const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
    [{ name: 'x', type: 99 }, { type: ['Invalid pk "99" - object does not exist.'] }],
    [
      { name: 'x', userSettings: bobSettings },
      { userSettings: [`Invalid pk "${bobSettings}" - object does not exist.`] },
    ],
    [{ name: 'x', type: 'abc' }, { type: ['Incorrect type. Expected pk value, received str.'] }],
    [{ name: 'x', default_permission_read: 'maybe' }, { default_permission_read: ['Must be a valid boolean.'] }],
    [{}, { name: ['This field is required.'] }],
  ]
  for (const [body, errors] of cases) {
    const res = await t.call('POST', api('project/'), { as: alice, body })
    assert.is(res.statusCode, 400, JSON.stringify(body))
    assert.equal(res.data, errors)
  }
})

test('project/ lists for site admins only (golden 23/24), with filters', async () => {
  const a = await project(alice, 'a-list')
  const b = await project(bob, 'b-list')
  const denied = await t.call('GET', api('project/'), { as: alice })
  assert.is(denied.statusCode, 403)
  assert.equal(denied.data, { detail: 'You do not have permission to perform this action.' })
  assert.is(denied.headers.allow, 'GET, POST, HEAD, OPTIONS')
  const all = await t.call('GET', api('project/'), { as: admin })
  assert.is(all.statusCode, 200)
  const ids = all.data.results.map((r: any) => r.id)
  assert.ok(ids.includes(a) && ids.includes(b))
  assert.is(all.data.count, ids.length)
  const bobs = await t.call('GET', api(`project/?user=${bob.id}`), { as: admin })
  assert.ok(bobs.data.results.every((r: any) => r.user === bob.id))
  assert.ok(bobs.data.results.some((r: any) => r.id === b))
  assert.is((await t.call('GET', api('project/'))).statusCode, 401)
})

test('add and remove answer as the original service (goldens 60-68)', async () => {
  const p = await project(alice)
  const file = await makeMediaFile(t.db, alice, aliceLib)
  const url = api(`project/${p}/mediaFiles/`)

  const added = await t.call('POST', `${url}add/`, { as: alice, body: { id: file } })
  assert.is(added.statusCode, 201)
  assert.equal(added.data, { id: file })
  assert.is(added.headers.allow, 'POST, OPTIONS')
  const again = await t.call('POST', `${url}add/`, { as: alice, body: { id: file } })
  assert.is(again.statusCode, 200)
  assert.equal(again.data, { id: file })
  assert.equal(await members(p), [file])
  assert.equal((await t.call('GET', api(`project/${p}/`), { as: alice })).data.mediaFiles, [file])

  const removed = await t.call('POST', `${url}remove/`, { as: alice, body: { id: file } })
  assert.is(removed.statusCode, 204)
  assert.is(removed.body, '')
  const absent = await t.call('POST', `${url}remove/`, { as: alice, body: { id: file } })
  assert.is(absent.statusCode, 200)
  assert.equal(absent.data, { id: file })
  assert.equal(await members(p), [])

  for (const action of ['add', 'remove']) {
    const missing = await t.call('POST', `${url}${action}/`, { as: alice, body: {} })
    assert.is(missing.statusCode, 400)
    assert.equal(missing.data, { id: ['This field is required.'] })
    const bad = await t.call('POST', `${url}${action}/`, { as: alice, body: { id: 'abc' } })
    assert.is(bad.statusCode, 400)
    assert.equal(bad.data, { id: ['A valid integer is required.'] })
    const get = await t.call('GET', `${url}${action}/`, { as: alice })
    assert.is(get.statusCode, 405)
    assert.equal(get.data, { detail: 'Method "GET" not allowed.' })
    assert.is(get.headers.allow, 'POST, OPTIONS')
  }
  // form-encoded bodies work too, as in DRF
  const form = await t.call('POST', `${url}add/`, {
    as: alice,
    body: `id=${file}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  assert.is(form.statusCode, 201)

  // another user's media file, a missing one, and another user's project: 404
  const bobFile = await makeMediaFile(t.db, bob, bobLib)
  for (const [projectId, id] of [
    [p, bobFile],
    [p, 999999],
  ] as const) {
    const res = await t.call('POST', api(`project/${projectId}/mediaFiles/add/`), { as: alice, body: { id } })
    assert.is(res.statusCode, 404)
    assert.equal(res.data, { detail: 'Not found.' })
  }
  const bobProject = await project(bob)
  for (const action of ['add', 'remove']) {
    const res = await t.call('POST', api(`project/${bobProject}/mediaFiles/${action}/`), {
      as: alice,
      body: { id: file },
    })
    assert.is(res.statusCode, 404)
    assert.equal(res.data, { detail: 'Not found.' })
    assert.is(
      (await t.call('POST', api(`project/abc/mediaFiles/${action}/`), { as: alice, body: { id: file } })).statusCode,
      404,
    )
  }
  assert.is(
    (await t.call('POST', api(`project/${p}/mediaFiles/remove/`), { as: alice, body: { id: bobFile } })).statusCode,
    404,
  )
  assert.equal(await members(bobProject), [])
  assert.is((await t.call('POST', `${url}add/`, { body: { id: file } })).statusCode, 401)
})

test('20 simultaneous adds of one file: exactly one 201, the rest 200, one row', async () => {
  const p = await project(alice)
  const file = await makeMediaFile(t.db, alice, aliceLib)
  const answers = await Promise.all(
    Array.from({ length: 20 }, () =>
      t.call('POST', api(`project/${p}/mediaFiles/add/`), { as: alice, body: { id: file } }),
    ),
  )
  const statuses = answers.map((a) => a.statusCode).sort()
  assert.equal(statuses, [200, ...Array(18).fill(200), 201].sort())
  assert.is(statuses.filter((s) => s === 201).length, 1)
  for (const a of answers) assert.equal(a.data, { id: file })
  assert.equal(await members(p), [file])
})

test('project/{Id}/mediaFiles/ and mediaFile/{Id}/projects/ list memberships the caller may read', async () => {
  const p = await project(alice, 'listed')
  const other = await project(alice, 'other')
  const files = [
    await makeMediaFile(t.db, alice, aliceLib),
    await makeMediaFile(t.db, alice, aliceLib),
    await makeMediaFile(t.db, alice, aliceLib),
  ]
  for (const id of files.slice(0, 2))
    await t.call('POST', api(`project/${p}/mediaFiles/add/`), { as: alice, body: { id } })
  await t.call('POST', api(`project/${other}/mediaFiles/add/`), { as: alice, body: { id: files[0] } })

  const list = await t.call('GET', api(`project/${p}/mediaFiles/`), { as: alice })
  assert.is(list.statusCode, 200)
  assert.is(list.headers.allow, 'GET, HEAD, OPTIONS')
  assert.is(list.data.count, 2)
  assert.equal(
    list.data.results.map((r: any) => r.id),
    files.slice(0, 2),
  )
  assert.is(list.data.results[0].library, aliceLib)
  assert.type(list.data.results[0].url, 'string')
  assert.is(
    (await t.call('GET', api(`project/${p}/mediaFiles/?page_size=1&page=2`), { as: alice })).data.results[0].id,
    files[1],
  )

  const projects = await t.call('GET', api(`mediaFile/${files[0]}/projects/`), { as: alice })
  assert.is(projects.statusCode, 200)
  assert.equal(
    projects.data.results.map((r: any) => r.name),
    ['listed', 'other'],
  )
  assert.equal(projects.data.results[0].mediaFiles, files.slice(0, 2))
  assert.equal(Object.keys(projects.data.results[0]), [
    'id',
    'type',
    'name',
    'creationDate',
    'user',
    'userSettings',
    'mediaFiles',
    'notes',
    'default_permission_read',
    'default_permission_write',
    'default_permission_launch_job',
    'default_permission_admin',
  ])
  assert.is((await t.call('GET', api(`mediaFile/${files[2]}/projects/`), { as: alice })).data.count, 0)

  assert.is((await t.call('GET', api(`project/${p}/mediaFiles/`), { as: bob })).statusCode, 404)
  assert.is((await t.call('GET', api(`mediaFile/${files[0]}/projects/`), { as: bob })).statusCode, 404)
  assert.is((await t.call('GET', api(`project/${p}/mediaFiles/`), { as: admin })).data.count, 2)
  assert.is((await t.call('GET', api(`mediaFile/${files[0]}/projects/`), { as: admin })).data.count, 2)

  // deleting the project removes its memberships, not the files
  assert.is((await t.call('DELETE', api(`project/${p}/`), { as: alice })).statusCode, 204)
  assert.equal(await members(p), [])
  assert.is((await t.call('GET', api(`mediaFile/${files[1]}/`), { as: alice })).statusCode, 200)
})

test('access matrix over every project endpoint', async () => {
  const owner = await t.user('owner')
  const stranger = await t.user('stranger')
  const grantee = await t.user('grantee')
  const member = await t.user('member')
  const revoked = await t.user('revoked')
  const lib = await makeLibrary(t.db, owner)
  const file = await makeMediaFile(t.db, owner, lib)
  const spare = await makeMediaFile(t.db, owner, lib)
  await grant(t.db, owner, { user: grantee.id }, { library: lib }, ['admin'])
  const group = await makeGroup(t.db, owner, [member])
  await grant(t.db, owner, { group }, { library: lib }, ['read'])
  const gone = await grant(t.db, owner, { user: revoked.id }, { library: lib }, ['admin'])
  await t.db.deleteFrom('app_permissions').where('id', '=', gone).execute()

  const p = await project(owner, 'matrix')
  await t.call('POST', api(`project/${p}/mediaFiles/add/`), { as: owner, body: { id: file } })

  // [who, as, project detail/sub-resources, mediaFile/{id}/projects/ status, projects listed there (-1: all)]
  const rows: Array<[string, TestUser | undefined, number, number, number]> = [
    ['owner', owner, 200, 200, 1],
    ['unrelated', stranger, 404, 404, 0],
    ['grantee by user', grantee, 404, 200, 0],
    ['grantee by group', member, 404, 200, 0],
    ['revoked grantee', revoked, 404, 404, 0],
    ['site admin', admin, 200, 200, -1],
    ['anonymous', undefined, 401, 401, 0],
  ]
  for (const [who, as, status, fileStatus, listed] of rows) {
    const m = `${who}: `
    assert.is((await t.call('GET', api(`project/${p}/`), { as })).statusCode, status, m + 'GET')
    assert.is(
      (await t.call('PATCH', api(`project/${p}/`), { as, body: { notes: who } })).statusCode,
      status,
      m + 'PATCH',
    )
    assert.is(
      (await t.call('PUT', api(`project/${p}/`), { as, body: { name: 'matrix' } })).statusCode,
      status,
      m + 'PUT',
    )
    assert.is((await t.call('GET', api(`project/${p}/mediaFiles/`), { as })).statusCode, status, m + 'mediaFiles')
    const add = await t.call('POST', api(`project/${p}/mediaFiles/add/`), { as, body: { id: spare } })
    assert.is(add.statusCode, status === 200 ? 201 : status, m + 'add')
    const remove = await t.call('POST', api(`project/${p}/mediaFiles/remove/`), { as, body: { id: spare } })
    assert.is(remove.statusCode, status === 200 ? 204 : status, m + 'remove')
    const list = await t.call('GET', api('project/'), { as })
    assert.is(list.statusCode, as === admin ? 200 : as ? 403 : 401, m + 'list')
    const containing = await t.call('GET', api(`mediaFile/${file}/projects/`), { as })
    assert.is(containing.statusCode, fileStatus, m + 'mediaFile projects')
    // a site admin sees every project holding the file (grantees have added it to theirs by now)
    const everyProject = (
      await t.db.selectFrom('project_media_files').select('project_id').where('media_file_id', '=', file).execute()
    ).length
    if (fileStatus === 200)
      assert.is(containing.data.count, listed === -1 ? everyProject : listed, m + 'mediaFile projects count')
    if (as && as !== owner && as !== admin) {
      // a grantee's own project may hold the files they can read, and only those
      const own = await project(as)
      const addOwn = await t.call('POST', api(`project/${own}/mediaFiles/add/`), { as, body: { id: file } })
      assert.is(addOwn.statusCode, fileStatus === 200 ? 201 : 404, m + 'add to own project')
    }
  }
  for (const as of [stranger, grantee, member, revoked]) {
    assert.is((await t.call('DELETE', api(`project/${p}/`), { as })).statusCode, 404)
  }
  assert.equal(await members(p), [file])
  assert.is((await t.call('DELETE', api(`project/${p}/`), { as: admin })).statusCode, 204)
})

test('a file added while readable stays a member after the grant goes, but is listed only while readable', async () => {
  const owner = await t.user('owner-2')
  const guest = await t.user('guest')
  const lib = await makeLibrary(t.db, owner)
  const file = await makeMediaFile(t.db, owner, lib)
  const g = await grant(t.db, owner, { user: guest.id }, { library: lib }, ['read'])
  const p = await project(guest)
  assert.is(
    (await t.call('POST', api(`project/${p}/mediaFiles/add/`), { as: guest, body: { id: file } })).statusCode,
    201,
  )
  assert.is((await t.call('GET', api(`project/${p}/mediaFiles/`), { as: guest })).data.count, 1)
  await t.db.deleteFrom('app_permissions').where('id', '=', g).execute()
  assert.is((await t.call('GET', api(`project/${p}/mediaFiles/`), { as: guest })).data.count, 0)
  assert.equal((await t.call('GET', api(`project/${p}/`), { as: guest })).data.mediaFiles, [file])
  // it can still be taken out of the project
  assert.is(
    (await t.call('POST', api(`project/${p}/mediaFiles/remove/`), { as: guest, body: { id: file } })).statusCode,
    204,
  )
  assert.is(
    (await t.call('POST', api(`project/${p}/mediaFiles/add/`), { as: guest, body: { id: file } })).statusCode,
    404,
  )
})

test.run()
