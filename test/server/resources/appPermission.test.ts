import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { api, suiteApp, type TestUser } from '../../helpers/app.js'
import { grant, makeGroup, makeLibrary, makeTagSet } from '../../helpers/records.js'
import { makeCallers } from '../../helpers/world.js'

const t = suiteApp(test)
let alice: TestUser, bob: TestUser, carol: TestUser, admin: TestUser
let lib: number

test.before(async () => {
  ;({ alice, bob, carol, admin } = await makeCallers(t))
  lib = await makeLibrary(t.db, alice)
})

const FLAGS_OFF = { read: false, write: false, launch_job: false, admin: false }

test('round trip: create, read, list, filter, PUT, PATCH, delete; every field and type', async () => {
  const body = {
    bearer_type: 'user',
    bearer_id: bob.id,
    target_type: 'library',
    target_id: lib,
    read: true,
    createdBy: bob.id,
    creationDate: '2001-01-01T00:00:00',
  }
  const created = await t.call('POST', api('appPermission/'), { as: alice, body })
  assert.is(created.statusCode, 201)
  const p = created.data
  assert.match(p.creationDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
  assert.is(p.creationDate, '2001-01-01T00:00:00') // kept as given, as the original
  assert.equal(p, {
    id: p.id,
    bearer_type: 'user',
    bearer_id: bob.id,
    target_type: 'library',
    target_id: lib,
    creationDate: p.creationDate,
    createdBy: alice.id,
    ...FLAGS_OFF,
    read: true,
  })
  assert.equal((await t.call('GET', api(`appPermission/${p.id}/`), { as: alice })).data, p)

  const ts = await makeTagSet(t.db, alice, null)
  const second = (
    await t.call('POST', api('appPermission/'), {
      as: alice,
      body: { bearer_type: 'user', bearer_id: carol.id, target_type: 'tagset', target_id: ts, write: 'true' },
    })
  ).data
  assert.equal([second.target_type, second.write, second.read], ['tagset', true, false])

  const list = await t.call('GET', api('appPermission/'), { as: alice })
  assert.equal(
    list.data.results.map((r: any) => r.id),
    [p.id, second.id],
  )
  for (const [q, ids] of [
    ['target_type=tagset', [second.id]],
    [`target_type=library&target_id=${lib}`, [p.id]],
    [`bearer_id=${carol.id}`, [second.id]],
    ['write=true', [second.id]],
    ['bearer_type=appusergroup', []],
    [`createdBy=${alice.id}&ordering=-id`, [second.id, p.id]],
  ] as const) {
    const res = await t.call('GET', api(`appPermission/?${q}`), { as: alice })
    assert.equal(
      res.data.results.map((r: any) => r.id),
      ids,
      q,
    )
  }
  assert.is((await t.call('GET', api('appPermission/?target_type=nope'), { as: alice })).statusCode, 400)
  assert.is((await t.call('GET', api('appPermission/?target_id=abc'), { as: alice })).statusCode, 400)

  const put = await t.call('PUT', api(`appPermission/${p.id}/`), {
    as: alice,
    body: { bearer_type: 'user', bearer_id: carol.id, target_type: 'library', target_id: lib, admin: true },
  })
  assert.is(put.statusCode, 200)
  // flags left out of a PUT keep their values, as in DRF (they are not required)
  assert.equal(put.data, { ...p, bearer_id: carol.id, admin: true })
  const patch = await t.call('PATCH', api(`appPermission/${p.id}/`), {
    as: alice,
    body: { launch_job: true, bearer_username: 'bob' },
  })
  assert.equal(patch.data, { ...put.data, bearer_id: bob.id, launch_job: true })
  const putMissing = await t.call('PUT', api(`appPermission/${p.id}/`), {
    as: alice,
    body: { target_type: 'library', target_id: lib },
  })
  assert.is(putMissing.statusCode, 400)
  assert.equal(putMissing.data, { bearer_type: ['This field is required.'], bearer_id: ['This field is required.'] })

  assert.is((await t.call('DELETE', api(`appPermission/${p.id}/`), { as: alice })).statusCode, 204)
  assert.is((await t.call('GET', api(`appPermission/${p.id}/`), { as: alice })).statusCode, 404)
})

test('bearer_username names a user bearer; unknown names and contradictions are 400', async () => {
  const ok = await t.call('POST', api('appPermission/'), {
    as: alice,
    body: { bearer_username: 'carol', target_type: 'library', target_id: lib, read: true },
  })
  assert.is(ok.statusCode, 201)
  assert.equal([ok.data.bearer_type, ok.data.bearer_id, 'bearer_username' in ok.data], ['user', carol.id, false])
  const g = await makeGroup(t.db, alice, [])
  const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
    [{ bearer_username: 'nobody' }, { bearer_username: ['Object with username=nobody does not exist.'] }],
    [
      { bearer_username: 'bob', bearer_type: 'appusergroup' },
      { bearer_type: ['Must be "user" when bearer_username is given.'] },
    ],
    [
      { bearer_username: 'bob', bearer_id: bob.id },
      { non_field_errors: ['Give bearer_id or bearer_username, not both.'] },
    ],
    [{}, { bearer_type: ['This field is required.'], bearer_id: ['This field is required.'] }],
    [{ bearer_type: 'user', bearer_id: 999999 }, { bearer_id: ['Invalid pk "999999" - object does not exist.'] }],
    [
      { bearer_type: 'appusergroup', bearer_id: 999999 },
      { bearer_id: ['Invalid pk "999999" - object does not exist.'] },
    ],
    [
      { bearer_type: 'appusergroup', bearer_id: bob.id === g ? g + 1 : bob.id + 100000 },
      { bearer_id: [`Invalid pk "${bob.id === g ? g + 1 : bob.id + 100000}" - object does not exist.`] },
    ],
    [{ bearer_type: 'robot', bearer_id: bob.id }, { bearer_type: ['"robot" is not a valid choice.'] }],
    [{ bearer_type: 'user', bearer_id: 'abc' }, { bearer_id: ['A valid integer is required.'] }],
    [{ bearer_type: 'user', bearer_id: bob.id, read: 'maybe' }, { read: ['Must be a valid boolean.'] }],
  ]
  for (const [bearer, errors] of cases) {
    const res = await t.call('POST', api('appPermission/'), {
      as: alice,
      body: { target_type: 'library', target_id: lib, ...bearer },
    })
    assert.is(res.statusCode, 400, JSON.stringify(bearer))
    assert.equal(res.data, errors, JSON.stringify(bearer))
  }
  const noTarget = await t.call('POST', api('appPermission/'), { as: alice, body: { bearer_username: 'bob' } })
  assert.equal(noTarget.data, { target_type: ['This field is required.'], target_id: ['This field is required.'] })
})

test('a target the caller cannot read is rejected exactly like a missing one; readable without admin is 403', async () => {
  const bobLib = await makeLibrary(t.db, bob)
  const bobTagSet = await makeTagSet(t.db, bob, null)
  const bobGroup = await makeGroup(t.db, bob, [])
  for (const [type, id] of [
    ['library', bobLib],
    ['tagset', bobTagSet],
    ['appusergroup', bobGroup],
    ['library', 999999],
    ['tagset', 999999],
  ] as const) {
    const res = await t.call('POST', api('appPermission/'), {
      as: alice,
      body: { bearer_username: 'carol', target_type: type, target_id: id, read: true },
    })
    assert.is(res.statusCode, 400, `${type} ${id}`)
    assert.equal(res.data, { target_id: [`Invalid pk "${id}" - object does not exist.`] })
  }
  // a write grant alone does not make the library readable
  await grant(t.db, bob, { user: alice.id }, { library: bobLib }, ['write'])
  const writeOnly = await t.call('POST', api('appPermission/'), {
    as: alice,
    body: { bearer_username: 'carol', target_type: 'library', target_id: bobLib, read: true },
  })
  assert.is(writeOnly.statusCode, 400)
  // alice may read and write bob's library but not administer it
  await grant(t.db, bob, { user: alice.id }, { library: bobLib }, ['read', 'write'])
  const denied = await t.call('POST', api('appPermission/'), {
    as: alice,
    body: { bearer_username: 'carol', target_type: 'library', target_id: bobLib, read: true },
  })
  assert.is(denied.statusCode, 403)
  assert.equal(denied.data, { detail: 'You do not have permission to perform this action.' })
  // an admin grant on the library lets her share it, and its tag sets
  await grant(t.db, bob, { user: alice.id }, { library: bobLib }, ['admin'])
  const shared = await t.call('POST', api('appPermission/'), {
    as: alice,
    body: { bearer_username: 'carol', target_type: 'library', target_id: bobLib, read: true },
  })
  assert.is(shared.statusCode, 201)
  const libTagSet = await makeTagSet(t.db, bob, bobLib)
  assert.is(
    (
      await t.call('POST', api('appPermission/'), {
        as: alice,
        body: { bearer_username: 'carol', target_type: 'tagset', target_id: libTagSet, read: true },
      })
    ).statusCode,
    201,
  )
  // a site admin may grant anything
  assert.is(
    (
      await t.call('POST', api('appPermission/'), {
        as: admin,
        body: { bearer_username: 'carol', target_type: 'tagset', target_id: bobTagSet, read: true },
      })
    ).statusCode,
    201,
  )
})

test('an update is judged again by its new target', async () => {
  const mine = (
    await t.call('POST', api('appPermission/'), {
      as: alice,
      body: { bearer_username: 'bob', target_type: 'library', target_id: lib, read: true },
    })
  ).data.id
  const carolLib = await makeLibrary(t.db, carol)
  const readOnly = await makeLibrary(t.db, carol)
  await grant(t.db, carol, { user: alice.id }, { library: readOnly }, ['read'])
  const hidden = await t.call('PATCH', api(`appPermission/${mine}/`), { as: alice, body: { target_id: carolLib } })
  assert.is(hidden.statusCode, 400)
  assert.equal(hidden.data, { target_id: [`Invalid pk "${carolLib}" - object does not exist.`] })
  const notAdmin = await t.call('PATCH', api(`appPermission/${mine}/`), { as: alice, body: { target_id: readOnly } })
  assert.is(notAdmin.statusCode, 403)
  const mineTs = await makeTagSet(t.db, alice, null)
  const moved = await t.call('PUT', api(`appPermission/${mine}/`), {
    as: alice,
    body: { bearer_username: 'bob', target_type: 'tagset', target_id: mineTs, read: false, write: true },
  })
  assert.is(moved.statusCode, 200)
  assert.equal(
    [moved.data.target_type, moved.data.target_id, moved.data.read, moved.data.write],
    ['tagset', mineTs, false, true],
  )
  const row = await t.db.selectFrom('app_permissions').selectAll().where('id', '=', mine).executeTakeFirstOrThrow()
  assert.equal([row.target_type, row.target_id], ['tagset', mineTs])
})

test('access matrix: creator, bearer (directly or by group) and admins of the target read; only target admins change', async () => {
  const owner = await t.user('owner')
  const creator = await t.user('creator')
  const bearer = await t.user('bearer')
  const member = await t.user('member')
  const revoked = await t.user('revoked')
  const stranger = await t.user('stranger')
  const target = await makeLibrary(t.db, owner)
  const adminGrant = await grant(t.db, owner, { user: creator.id }, { library: target }, ['admin'])
  const toUser = (
    await t.call('POST', api('appPermission/'), {
      as: creator,
      body: { bearer_username: 'bearer', target_type: 'library', target_id: target, read: true },
    })
  ).data.id
  const group = await makeGroup(t.db, creator, [member])
  const toGroup = (
    await t.call('POST', api('appPermission/'), {
      as: creator,
      body: { bearer_type: 'appusergroup', bearer_id: group, target_type: 'library', target_id: target, read: true },
    })
  ).data.id
  const gone = (
    await t.call('POST', api('appPermission/'), {
      as: owner,
      body: { bearer_username: 'revoked', target_type: 'library', target_id: target, admin: true },
    })
  ).data.id
  assert.is((await t.call('DELETE', api(`appPermission/${gone}/`), { as: owner })).statusCode, 204)
  // the creator loses admin on the target but still reads what they created
  await t.db.deleteFrom('app_permissions').where('id', '=', adminGrant).execute()

  // [who, as, status on toUser, status on toGroup, change status on toUser, status of a new grant on the target]
  // (a new grant on a library the caller cannot read is 400, readable but not administered 403)
  const rows: Array<[string, TestUser | undefined, number, number, number, number]> = [
    ['target owner', owner, 200, 200, 200, 201],
    ['creator (no longer admin)', creator, 200, 200, 403, 400],
    ['bearer by user', bearer, 200, 404, 403, 403],
    ['bearer by group', member, 404, 200, 404, 403],
    ['revoked grantee', revoked, 404, 404, 404, 400],
    ['unrelated', stranger, 404, 404, 404, 400],
    ['site admin', admin, 200, 200, 200, 201],
    ['anonymous', undefined, 401, 401, 401, 401],
  ]
  for (const [who, as, userStatus, groupStatus, change, createStatus] of rows) {
    assert.is(
      (await t.call('GET', api(`appPermission/${toUser}/`), { as })).statusCode,
      userStatus,
      `${who} GET toUser`,
    )
    assert.is(
      (await t.call('GET', api(`appPermission/${toGroup}/`), { as })).statusCode,
      groupStatus,
      `${who} GET toGroup`,
    )
    const list = await t.call('GET', api(`appPermission/?target_id=${target}&target_type=library`), { as })
    assert.is(list.statusCode, as ? 200 : 401, `${who} list`)
    if (as) {
      const expected = [
        [toUser, userStatus],
        [toGroup, groupStatus],
      ]
        .filter(([, s]) => s === 200)
        .map(([id]) => id)
      assert.equal(
        list.data.results.map((r: any) => r.id),
        expected,
        `${who} list`,
      )
      assert.is(list.data.count, expected.length)
    }
    assert.is(
      (await t.call('PATCH', api(`appPermission/${toUser}/`), { as, body: { write: true } })).statusCode,
      change,
      `${who} PATCH`,
    )
    assert.is(
      (
        await t.call('PUT', api(`appPermission/${toUser}/`), {
          as,
          body: { bearer_username: 'bearer', target_type: 'library', target_id: target, read: true },
        })
      ).statusCode,
      change,
      `${who} PUT`,
    )
    if (change !== 200)
      assert.is((await t.call('DELETE', api(`appPermission/${toUser}/`), { as })).statusCode, change, `${who} DELETE`)
    const create = await t.call('POST', api('appPermission/'), {
      as,
      body: { bearer_username: 'stranger', target_type: 'library', target_id: target, read: true },
    })
    assert.is(create.statusCode, createStatus, `${who} POST`)
    if (create.statusCode === 201) await t.db.deleteFrom('app_permissions').where('id', '=', create.data.id).execute()
  }
  assert.is((await t.call('DELETE', api(`appPermission/${toUser}/`), { as: owner })).statusCode, 204)
})

test('a grant made through the API by username gives access to the library and its tag sets; deleting it takes access away', async () => {
  const owner = await t.user('lib-owner')
  const friend = await t.user('lib-friend')
  const library = await makeLibrary(t.db, owner)
  const tagSet = await makeTagSet(t.db, owner, library)
  const before = [
    await t.call('GET', api(`library/${library}/`), { as: friend }),
    await t.call('GET', api(`tagSet/${tagSet}/`), { as: friend }),
  ]
  assert.equal(
    before.map((r) => r.statusCode),
    [404, 404],
  )
  const p = await t.call('POST', api('appPermission/'), {
    as: owner,
    body: { bearer_username: 'lib-friend', target_type: 'library', target_id: library, read: true },
  })
  assert.is(p.statusCode, 201)
  assert.is((await t.call('GET', api(`library/${library}/`), { as: friend })).statusCode, 200)
  assert.is((await t.call('GET', api(`tagSet/${tagSet}/`), { as: friend })).statusCode, 200)
  assert.ok((await t.call('GET', api('library/'), { as: friend })).data.results.some((r: any) => r.id === library))
  // the grantee sees their grant but cannot widen it
  assert.is((await t.call('GET', api(`appPermission/${p.data.id}/`), { as: friend })).statusCode, 200)
  assert.is(
    (await t.call('PATCH', api(`appPermission/${p.data.id}/`), { as: friend, body: { admin: true } })).statusCode,
    403,
  )
  // read does not give write
  assert.is(
    (await t.call('PATCH', api(`library/${library}/`), { as: friend, body: { name: 'mine now' } })).statusCode,
    403,
  )
  assert.is((await t.call('DELETE', api(`appPermission/${p.data.id}/`), { as: owner })).statusCode, 204)
  assert.is((await t.call('GET', api(`library/${library}/`), { as: friend })).statusCode, 404)
  assert.is((await t.call('GET', api(`tagSet/${tagSet}/`), { as: friend })).statusCode, 404)
})

test('simultaneous grants, revokes and changes never error', async () => {
  const owner = await t.user('busy-owner')
  const library = await makeLibrary(t.db, owner)
  const users = await Promise.all(Array.from({ length: 5 }, (_, i) => t.user(`busy-${i}`)))
  const existing: number[] = []
  for (const u of users) {
    existing.push(
      (
        await t.call('POST', api('appPermission/'), {
          as: owner,
          body: { bearer_username: u.username, target_type: 'library', target_id: library, read: true },
        })
      ).data.id,
    )
  }
  const calls = [
    ...users.map((u) =>
      t.call('POST', api('appPermission/'), {
        as: owner,
        body: { bearer_username: u.username, target_type: 'library', target_id: library, write: true },
      }),
    ),
    ...existing.map((id) => t.call('DELETE', api(`appPermission/${id}/`), { as: owner })),
    ...existing.map((id) => t.call('DELETE', api(`appPermission/${id}/`), { as: owner })),
    ...existing.map((id) => t.call('PATCH', api(`appPermission/${id}/`), { as: owner, body: { admin: true } })),
  ]
  const statuses = (await Promise.all(calls)).map((r) => r.statusCode)
  for (const s of statuses) assert.ok([200, 201, 204, 404].includes(s), String(s))
  assert.is(statuses.filter((s) => s === 201).length, users.length)
  const left = await t.db
    .selectFrom('app_permissions')
    .select('id')
    .where('target_id', '=', library)
    .where('target_type', '=', 'library')
    .execute()
  assert.is(left.length, users.length)
})

test('simultaneous changes of a grant by the caller it is held by queue, never deadlock', async () => {
  const owner = await t.user('held-owner')
  const holder = await t.user('held-holder')
  const library = await makeLibrary(t.db, owner)
  // the holder administers the library by this grant, so each change holds the grant as one of its rights
  const held = (
    await t.call('POST', api('appPermission/'), {
      as: owner,
      body: { bearer_username: holder.username, target_type: 'library', target_id: library, read: true, admin: true },
    })
  ).data.id
  const flags = [{ write: true }, { write: false }, { launch_job: true }, { launch_job: false }, { read: true }]
  for (let round = 0; round < 5; round++) {
    const answers = await Promise.all(
      flags.map((body) => t.call('PATCH', api(`appPermission/${held}/`), { as: holder, body })),
    )
    assert.equal(
      answers.map((a) => a.statusCode),
      flags.map(() => 200),
      `round ${round}: ${JSON.stringify(answers.map((a) => a.data))}`,
    )
  }
  assert.is((await t.call('GET', api(`appPermission/${held}/`), { as: holder })).data.admin, true)
})

test.run()
