import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { api, suiteApp, type TestUser } from '../../helpers/app.js'
import { grant, makeGroup, makeLibrary, makeMediaFile } from '../../helpers/records.js'
import { makeCallers } from '../../helpers/world.js'

const t = suiteApp(test)
let alice: TestUser, bob: TestUser, carol: TestUser, admin: TestUser

test.before(async () => {
  ;({ alice, bob, carol, admin } = await makeCallers(t))
})

test('sensorArray round trip: create, read, list, update, embedded sensor_set, delete', async () => {
  const created = await t.call('POST', api('sensorArray/'), {
    as: alice,
    body: { name: 'grid', layoutRows: 2, layoutColumns: 3, user: bob.id, sensor_set: [1] },
  })
  assert.is(created.statusCode, 201)
  const id = created.data.id
  assert.type(id, 'number')
  assert.equal(created.data, { id, user: alice.id, name: 'grid', layoutRows: 2, layoutColumns: 3, sensor_set: [] })

  const defaults = await t.call('POST', api('sensorArray/'), { as: alice, body: { name: 'single' } })
  assert.equal(
    { ...defaults.data, id: 0 },
    { id: 0, user: alice.id, name: 'single', layoutRows: 1, layoutColumns: 1, sensor_set: [] },
  )

  const s1 = await t.call('POST', api('sensor/'), {
    as: alice,
    body: { name: 'mic-1', sensorArray: id, x: 1.5, y: -2, z: 0.25, layoutRow: 1, layoutColumn: 2 },
  })
  assert.is(s1.statusCode, 201)
  assert.equal(s1.data, {
    id: s1.data.id,
    sensorArray: id,
    name: 'mic-1',
    x: 1.5,
    y: -2,
    z: 0.25,
    layoutRow: 1,
    layoutColumn: 2,
  })
  const s2 = await t.call('POST', api('sensor/'), { as: alice, body: { name: 'mic-2', sensorArray: String(id) } })
  assert.equal(s2.data, {
    id: s2.data.id,
    sensorArray: id,
    name: 'mic-2',
    x: 0,
    y: 0,
    z: 0,
    layoutRow: 0,
    layoutColumn: 0,
  })

  const read = await t.call('GET', api(`sensorArray/${id}/`), { as: alice })
  assert.is(read.statusCode, 200)
  assert.is(read.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
  assert.equal(read.data.sensor_set, [s1.data, s2.data])

  const list = await t.call('GET', api('sensorArray/'), { as: alice })
  assert.is(list.data.count, 2)
  assert.equal(
    list.data.results.map((r: any) => r.id),
    [id, defaults.data.id],
  )
  assert.equal(
    list.data.results[0].sensor_set.map((s: any) => s.name),
    ['mic-1', 'mic-2'],
  )
  assert.equal(list.data.results[1].sensor_set, [])
  const ordered = await t.call('GET', api('sensorArray/?ordering=-name'), { as: alice })
  assert.equal(
    ordered.data.results.map((r: any) => r.name),
    ['single', 'grid'],
  )

  const put = await t.call('PUT', api(`sensorArray/${id}/`), {
    as: alice,
    body: { name: 'grid-2', layoutRows: 4, layoutColumns: 4 },
  })
  assert.is(put.statusCode, 200)
  assert.equal(
    { ...put.data, sensor_set: put.data.sensor_set.length },
    { id, user: alice.id, name: 'grid-2', layoutRows: 4, layoutColumns: 4, sensor_set: 2 },
  )
  const patch = await t.call('PATCH', api(`sensorArray/${id}/`), { as: alice, body: { layoutColumns: 8 } })
  assert.equal([patch.data.name, patch.data.layoutRows, patch.data.layoutColumns], ['grid-2', 4, 8])
  const putMissing = await t.call('PUT', api(`sensorArray/${id}/`), { as: alice, body: { layoutRows: 1 } })
  assert.is(putMissing.statusCode, 400)
  assert.equal(putMissing.data, { name: ['This field is required.'] })

  const del = await t.call('DELETE', api(`sensorArray/${id}/`), { as: alice })
  assert.is(del.statusCode, 204)
  assert.is(del.body, '')
  assert.is((await t.call('GET', api(`sensorArray/${id}/`), { as: alice })).statusCode, 404)
  // its sensors go with it
  assert.is((await t.call('GET', api(`sensor/${s1.data.id}/`), { as: alice })).statusCode, 404)
})

test('sensor round trip: list, filter by sensorArray, PUT, PATCH, delete, field types', async () => {
  const arr = (await t.call('POST', api('sensorArray/'), { as: alice, body: { name: 'a' } })).data.id
  const free = await t.call('POST', api('sensor/'), {
    as: alice,
    body: { name: 'free', sensorArray: null, x: '2.5', layoutRow: '3' },
  })
  assert.is(free.statusCode, 201)
  assert.equal(free.data, {
    id: free.data.id,
    sensorArray: null,
    name: 'free',
    x: 2.5,
    y: 0,
    z: 0,
    layoutRow: 3,
    layoutColumn: 0,
  })
  const inArr = (await t.call('POST', api('sensor/'), { as: alice, body: { name: 'in', sensorArray: arr } })).data

  const all = await t.call('GET', api('sensor/'), { as: alice })
  assert.equal(
    all.data.results.map((r: any) => r.id),
    [free.data.id, inArr.id],
  )
  const filtered = await t.call('GET', api(`sensor/?sensorArray=${arr}`), { as: alice })
  assert.equal(
    filtered.data.results.map((r: any) => r.id),
    [inArr.id],
  )
  const none = await t.call('GET', api('sensor/?sensorArray=null'), { as: alice })
  assert.equal(
    none.data.results.map((r: any) => r.id),
    [free.data.id],
  )
  const bad = await t.call('GET', api('sensor/?sensorArray=abc'), { as: alice })
  assert.is(bad.statusCode, 400)
  assert.ok(bad.data.sensorArray)

  const put = await t.call('PUT', api(`sensor/${free.data.id}/`), {
    as: alice,
    body: { name: 'moved', sensorArray: arr, x: 1, y: 2, z: 3, layoutRow: 0, layoutColumn: 1 },
  })
  assert.is(put.statusCode, 200)
  assert.equal(put.data, {
    id: free.data.id,
    sensorArray: arr,
    name: 'moved',
    x: 1,
    y: 2,
    z: 3,
    layoutRow: 0,
    layoutColumn: 1,
  })
  const patch = await t.call('PATCH', api(`sensor/${free.data.id}/`), {
    as: alice,
    body: { sensorArray: null, z: -1.25 },
  })
  assert.equal([patch.data.sensorArray, patch.data.z, patch.data.name], [null, -1.25, 'moved'])

  for (const [body, field] of [
    [{ name: 'x', x: 'abc' }, 'x'],
    [{ name: 'x', x: true }, 'x'],
    [{ name: 'x', y: '1e999' }, 'y'],
    [{ x: 1 }, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x', layoutRow: 1.5 }, 'layoutRow'],
  ] as const) {
    const res = await t.call('POST', api('sensor/'), { as: alice, body })
    assert.is(res.statusCode, 400, JSON.stringify(body))
    assert.ok(Array.isArray(res.data[field]), JSON.stringify(res.data))
  }

  assert.is((await t.call('DELETE', api(`sensor/${inArr.id}/`), { as: alice })).statusCode, 204)
  assert.is((await t.call('GET', api(`sensor/${inArr.id}/`), { as: alice })).statusCode, 404)
})

test("a sensor joins only its creator's sensor arrays; another user's array is rejected like a missing one", async () => {
  const bobs = (await t.call('POST', api('sensorArray/'), { as: bob, body: { name: 'bobs' } })).data.id
  const res = await t.call('POST', api('sensor/'), { as: alice, body: { name: 'sneak', sensorArray: bobs } })
  assert.is(res.statusCode, 400)
  assert.equal(res.data, { sensorArray: [`Invalid pk "${bobs}" - object does not exist.`] })
  const missing = await t.call('POST', api('sensor/'), { as: alice, body: { name: 'sneak', sensorArray: 999999 } })
  assert.equal(missing.data, { sensorArray: ['Invalid pk "999999" - object does not exist.'] })
  const mine = (await t.call('POST', api('sensor/'), { as: alice, body: { name: 'mine', sensorArray: null } })).data.id
  const moved = await t.call('PATCH', api(`sensor/${mine}/`), { as: alice, body: { sensorArray: bobs } })
  assert.is(moved.statusCode, 400)
  assert.equal((await t.call('GET', api(`sensorArray/${bobs}/`), { as: bob })).data.sensor_set, [])
  // a site admin may place any sensor anywhere
  const byAdmin = await t.call('PATCH', api(`sensor/${mine}/`), { as: admin, body: { sensorArray: bobs } })
  assert.is(byAdmin.statusCode, 200)
})

test('access matrix: only the owner and site admins see or change sensors and sensor arrays; grants give nothing', async () => {
  const dave = await t.user('dave')
  const owner = await t.user('sensor-owner')
  const arr = (await t.call('POST', api('sensorArray/'), { as: owner, body: { name: 'private' } })).data.id
  const sensor = (await t.call('POST', api('sensor/'), { as: owner, body: { name: 'private', sensorArray: arr } })).data
    .id
  // grants on the owner's library to dave directly and to a group holding carol change nothing here
  const lib = await makeLibrary(t.db, owner)
  await grant(t.db, owner, { user: dave.id }, { library: lib }, ['admin'])
  const group = await makeGroup(t.db, owner, [carol])
  await grant(t.db, owner, { group }, { library: lib }, ['admin'])
  const revoked = await t.user('revoked')
  const gone = await grant(t.db, owner, { user: revoked.id }, { library: lib }, ['admin'])
  await t.db.deleteFrom('app_permissions').where('id', '=', gone).execute()

  const cases: Array<[string, TestUser | undefined, number, number]> = [
    // who, as, detail status, list count of the owner's records
    ['owner', owner, 200, 1],
    ['unrelated', bob, 404, 0],
    ['grantee', dave, 404, 0],
    ['group member', carol, 404, 0],
    ['revoked grantee', revoked, 404, 0],
    ['site admin', admin, 200, -1],
    ['anonymous', undefined, 401, -1],
  ]
  for (const [who, as, status, count] of cases) {
    for (const [path, id] of [
      ['sensor', sensor],
      ['sensorArray', arr],
    ] as const) {
      const detail = await t.call('GET', api(`${path}/${id}/`), { as })
      assert.is(detail.statusCode, status, `${who} GET ${path}`)
      const list = await t.call('GET', api(`${path}/`), { as })
      assert.is(list.statusCode, as ? 200 : 401, `${who} list ${path}`)
      if (as) {
        const mine = list.data.results.filter((r: any) => r.id === id).length
        assert.is(mine, count === -1 ? 1 : count, `${who} list ${path}`)
        if (as !== admin) assert.ok(list.data.results.every((r: any) => path === 'sensor' || r.user === as.id))
      }
      const patch = await t.call('PATCH', api(`${path}/${id}/`), { as, body: { name: `renamed by ${who}` } })
      assert.is(patch.statusCode, status, `${who} PATCH ${path}`)
      // a sensor's PUT names its array, as the original requires (null: none)
      const put = await t.call('PUT', api(`${path}/${id}/`), {
        as,
        body: { name: `put by ${who}`, ...(path === 'sensor' ? { sensorArray: null } : {}) },
      })
      assert.is(put.statusCode, status, `${who} PUT ${path}`)
    }
  }
  for (const [who, as] of [
    ['unrelated', bob],
    ['grantee', dave],
    ['group member', carol],
    ['revoked grantee', revoked],
    ['anonymous', undefined],
  ] as const) {
    assert.is((await t.call('DELETE', api(`sensor/${sensor}/`), { as })).statusCode, as ? 404 : 401, who)
    assert.is((await t.call('DELETE', api(`sensorArray/${arr}/`), { as })).statusCode, as ? 404 : 401, who)
  }
  assert.is((await t.call('GET', api(`sensor/${sensor}/`), { as: owner })).data.name, 'put by site admin')
  assert.is((await t.call('DELETE', api(`sensor/${sensor}/`), { as: admin })).statusCode, 204)
  assert.is((await t.call('DELETE', api(`sensorArray/${arr}/`), { as: owner })).statusCode, 204)
  // records created by a caller are theirs, whatever `user` the body names
  assert.is((await t.call('POST', api('sensor/'), {})).statusCode, 401)
})

test('OPTIONS lists the writable fields of a sensor array for its owner', async () => {
  const res = await t.call('OPTIONS', api('sensorArray/'), { as: alice })
  assert.is(res.statusCode, 200)
  assert.equal(Object.keys(res.data.actions.POST), ['id', 'user', 'name', 'layoutRows', 'layoutColumns', 'sensor_set'])
  assert.is(res.data.actions.POST.user.read_only, true)
  assert.is(res.data.actions.POST.name.required, true)
})

test('the readers of a library holding a recording made by a sensor read that sensor (its name in their tables), and change nothing', async () => {
  const owner = await t.user('recordist')
  const reader = await t.user('colleague')
  const writer = await t.user('co-author')
  const outsider = await t.user('outsider')
  const member = await t.user('lab-member')
  const recorder = (await t.call('POST', api('sensor/'), { as: owner, body: { name: 'AM-17', sensorArray: null } }))
    .data.id
  const unused = (await t.call('POST', api('sensor/'), { as: owner, body: { name: 'spare', sensorArray: null } })).data
    .id
  const lib = await makeLibrary(t.db, owner)
  await makeMediaFile(t.db, owner, lib, { sensor: recorder })
  await grant(t.db, owner, { user: reader.id }, { library: lib }, ['read'])
  await grant(t.db, owner, { user: writer.id }, { library: lib }, ['write', 'admin'])
  await grant(t.db, owner, { group: await makeGroup(t.db, owner, [member]) }, { library: lib }, ['read'])
  // another library of the owner's, not shared, with a recording by the spare sensor
  await makeMediaFile(t.db, owner, await makeLibrary(t.db, owner), { sensor: unused })

  for (const [who, as] of [
    ['library reader', reader],
    ['library admin', writer],
    ['group member', member],
  ] as const) {
    const detail = await t.call('GET', api(`sensor/${recorder}/`), { as })
    assert.is(detail.statusCode, 200, who)
    assert.is(detail.data.name, 'AM-17', who)
    assert.equal(
      (await t.call('GET', api('sensor/'), { as })).data.results.map((r: any) => r.id),
      [recorder],
      who,
    )
    // readable, not theirs to change: 403
    assert.is(
      (await t.call('PATCH', api(`sensor/${recorder}/`), { as, body: { name: 'mine now' } })).statusCode,
      403,
      who,
    )
    assert.is((await t.call('DELETE', api(`sensor/${recorder}/`), { as })).statusCode, 403, who)
    assert.is((await t.call('GET', api(`sensor/${unused}/`), { as })).statusCode, 404, who)
  }
  assert.is((await t.call('GET', api(`sensor/${recorder}/`), { as: outsider })).statusCode, 404)
  assert.equal((await t.call('GET', api('sensor/'), { as: outsider })).data.results, [])
  // the grant gone, the sensor is hidden again
  await t.db
    .deleteFrom('app_permissions')
    .where('bearer_type', '=', 'user')
    .where('bearer_id', '=', reader.id)
    .execute()
  assert.is((await t.call('GET', api(`sensor/${recorder}/`), { as: reader })).statusCode, 404)
  assert.is((await t.call('GET', api(`sensor/${recorder}/`), { as: owner })).data.name, 'AM-17')
})

test.run()
