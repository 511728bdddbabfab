import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { api, suiteApp, type TestUser } from '../../helpers/app.js'
import { grant, makeGroup, makeLibrary, makeTagSet } from '../../helpers/records.js'
import { makeCallers } from '../../helpers/world.js'

const t = suiteApp(test)
let alice: TestUser, bob: TestUser, carol: TestUser, admin: TestUser

test.before(async () => {
  ;({ alice, bob, carol, admin } = await makeCallers(t))
})

const memberIds = async (group: number) =>
  (
    await t.db
      .selectFrom('app_user_group_users')
      .select('user_id')
      .where('group_id', '=', group)
      .orderBy('user_id')
      .execute()
  ).map((r) => r.user_id)

test('round trip: members by id and by name, read, list, PUT, PATCH, delete', async () => {
  const created = await t.call('POST', api('appUserGroup/'), {
    as: alice,
    body: {
      name: 'lab',
      users: [bob.id],
      usernames: ['carol', 'bob'],
      createdBy: bob.id,
      creationDate: '2001-01-01T00:00:00',
    },
  })
  assert.is(created.statusCode, 201)
  const g = created.data
  assert.match(g.creationDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
  assert.is(g.creationDate, '2001-01-01T00:00:00') // kept as given, as the original
  assert.equal(g, {
    id: g.id,
    name: 'lab',
    users: [bob.id, carol.id].sort((a, b) => a - b),
    creationDate: g.creationDate,
    createdBy: alice.id,
  })
  assert.equal(
    await memberIds(g.id),
    [bob.id, carol.id].sort((a, b) => a - b),
  )

  const empty = await t.call('POST', api('appUserGroup/'), { as: alice, body: { name: 'empty' } })
  assert.equal(empty.data.users, [])

  assert.equal((await t.call('GET', api(`appUserGroup/${g.id}/`), { as: alice })).data, g)
  const list = await t.call('GET', api('appUserGroup/'), { as: alice })
  assert.equal(
    list.data.results.map((r: any) => r.id),
    [g.id, empty.data.id],
  )
  assert.equal(list.data.results[0], g)
  const filtered = await t.call('GET', api(`appUserGroup/?createdBy=${alice.id}&ordering=-name`), { as: alice })
  assert.equal(
    filtered.data.results.map((r: any) => r.name),
    ['lab', 'empty'],
  )

  const put = await t.call('PUT', api(`appUserGroup/${g.id}/`), {
    as: alice,
    body: { name: 'lab-2', users: [alice.id] },
  })
  assert.is(put.statusCode, 200)
  assert.equal(put.data, { ...g, name: 'lab-2', users: [alice.id] })
  const renamed = await t.call('PATCH', api(`appUserGroup/${g.id}/`), { as: alice, body: { name: 'lab-3' } })
  assert.equal(renamed.data.users, [alice.id])
  const byName = await t.call('PATCH', api(`appUserGroup/${g.id}/`), { as: alice, body: { usernames: ['carol'] } })
  assert.equal(byName.data, { ...g, name: 'lab-3', users: [carol.id] })
  const cleared = await t.call('PATCH', api(`appUserGroup/${g.id}/`), { as: alice, body: { users: [] } })
  assert.equal(cleared.data.users, [])
  assert.equal(await memberIds(g.id), [])

  const del = await t.call('DELETE', api(`appUserGroup/${g.id}/`), { as: alice })
  assert.is(del.statusCode, 204)
  assert.is((await t.call('GET', api(`appUserGroup/${g.id}/`), { as: alice })).statusCode, 404)
})

test('unknown ids or names are 400 and change nothing', async () => {
  const g = (await t.call('POST', api('appUserGroup/'), { as: alice, body: { name: 'keep', users: [bob.id] } })).data.id
  const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
    [{ name: 'x', users: [bob.id, 999999] }, { users: ['Invalid pk "999999" - object does not exist.'] }],
    [{ name: 'x', users: ['abc'] }, { users: ['Incorrect type. Expected pk value, received str.'] }],
    [{ name: 'x', users: 5 }, { users: ['Expected a list of items but got type "int".'] }],
    [{ name: 'x', usernames: ['bob', 'nobody'] }, { usernames: ['Object with username=nobody does not exist.'] }],
    [{ name: 'x', usernames: [7] }, { usernames: ['Not a valid string.'] }],
    [{ users: [] }, { name: ['This field is required.'] }],
  ]
  for (const [body, errors] of cases) {
    const res = await t.call('POST', api('appUserGroup/'), { as: alice, body })
    assert.is(res.statusCode, 400, JSON.stringify(body))
    assert.equal(res.data, errors)
    if (!('name' in errors)) {
      const upd = await t.call('PATCH', api(`appUserGroup/${g}/`), { as: alice, body: { ...body, name: 'changed' } })
      assert.is(upd.statusCode, 400)
      assert.equal(upd.data, errors)
    }
  }
  const kept = await t.call('GET', api(`appUserGroup/${g}/`), { as: alice })
  assert.equal([kept.data.name, kept.data.users], ['keep', [bob.id]])
})

test('deleting a group deletes its memberships and the grants it bears or is the target of', async () => {
  const g = (await t.call('POST', api('appUserGroup/'), { as: alice, body: { name: 'doomed', users: [bob.id] } })).data
    .id
  const other = await makeGroup(t.db, alice, [carol])
  const lib = await makeLibrary(t.db, alice)
  const asBearer = await grant(t.db, alice, { group: g }, { library: lib }, ['read'])
  const asTarget = await grant(t.db, alice, { user: carol.id }, { group: g }, ['admin'])
  const unrelated = await grant(t.db, alice, { group: other }, { library: lib }, ['read'])
  assert.is((await t.call('DELETE', api(`appUserGroup/${g}/`), { as: alice })).statusCode, 204)
  assert.equal(await memberIds(g), [])
  const left = (
    await t.db.selectFrom('app_permissions').select('id').where('id', 'in', [asBearer, asTarget, unrelated]).execute()
  ).map((r) => r.id)
  assert.equal(left, [unrelated])
})

test('access matrix: creator, members and grantees read; creator and admin grantees change', async () => {
  const creator = await t.user('creator')
  const member = await t.user('member')
  const reader = await t.user('reader')
  const viaGroup = await t.user('via-group')
  const adminGrantee = await t.user('admin-grantee')
  const revoked = await t.user('revoked')
  const stranger = await t.user('stranger')
  const g = (
    await t.call('POST', api('appUserGroup/'), { as: creator, body: { name: 'matrix', usernames: ['member'] } })
  ).data.id
  const readers = await makeGroup(t.db, creator, [viaGroup])
  await grant(t.db, creator, { user: reader.id }, { group: g }, ['read', 'write'])
  await grant(t.db, creator, { group: readers }, { group: g }, ['read'])
  await grant(t.db, creator, { user: adminGrantee.id }, { group: g }, ['admin'])
  const gone = await grant(t.db, creator, { user: revoked.id }, { group: g }, ['admin'])
  await t.db.deleteFrom('app_permissions').where('id', '=', gone).execute()

  // [who, as, read status, change status]
  const rows: Array<[string, TestUser | undefined, number, number]> = [
    ['creator', creator, 200, 200],
    ['member', member, 200, 403],
    ['read/write grantee', reader, 200, 403],
    ['grantee by group', viaGroup, 200, 403],
    ['admin grantee', adminGrantee, 200, 200],
    ['revoked grantee', revoked, 404, 404],
    ['unrelated', stranger, 404, 404],
    ['site admin', admin, 200, 200],
    ['anonymous', undefined, 401, 401],
  ]
  for (const [who, as, read, change] of rows) {
    assert.is((await t.call('GET', api(`appUserGroup/${g}/`), { as })).statusCode, read, `${who} GET`)
    const list = await t.call('GET', api('appUserGroup/'), { as })
    assert.is(list.statusCode, as ? 200 : 401, `${who} list`)
    if (as) {
      assert.is(list.data.results.filter((r: any) => r.id === g).length, read === 200 ? 1 : 0, `${who} list`)
      assert.is(list.data.count, list.data.results.length)
    }
    assert.is(
      (await t.call('PATCH', api(`appUserGroup/${g}/`), { as, body: { name: `by ${who}` } })).statusCode,
      change,
      `${who} PATCH`,
    )
    assert.is(
      (await t.call('PUT', api(`appUserGroup/${g}/`), { as, body: { name: 'matrix', usernames: ['member'] } }))
        .statusCode,
      change,
      `${who} PUT`,
    )
  }
  for (const [who, as, , change] of rows) {
    if (change === 200) continue
    assert.is((await t.call('DELETE', api(`appUserGroup/${g}/`), { as })).statusCode, change, `${who} DELETE`)
  }
  assert.equal(await memberIds(g), [member.id])
  assert.is((await t.call('DELETE', api(`appUserGroup/${g}/`), { as: adminGrantee })).statusCode, 204)
  // anyone may make a group of their own
  assert.is((await t.call('POST', api('appUserGroup/'), { as: stranger, body: { name: 'mine' } })).statusCode, 201)
  assert.is((await t.call('POST', api('appUserGroup/'), { body: { name: 'anon' } })).statusCode, 401)
})

test('simultaneous membership replacements leave one of them whole, never an error', async () => {
  const g = (await t.call('POST', api('appUserGroup/'), { as: alice, body: { name: 'race' } })).data.id
  // alice, who makes the changes, is in some of the sets: a replacement holds her membership as one of her
  // rights while another waits to delete it, a deadlock the server resolves by running the write again
  const sets = [[bob.id], [carol.id], [bob.id, carol.id], [alice.id], [alice.id, bob.id, carol.id]]
  for (let round = 0; round < 20; round++) {
    const answers = await Promise.all(
      sets.map((users) => t.call('PATCH', api(`appUserGroup/${g}/`), { as: alice, body: { users } })),
    )
    assert.equal(
      answers.map((a) => a.statusCode),
      sets.map(() => 200),
      `round ${round}: ${JSON.stringify(answers.map((a) => a.data))}`,
    )
    const final = await memberIds(g)
    assert.ok(
      sets.some((s) => JSON.stringify([...s].sort((a, b) => a - b)) === JSON.stringify(final)),
      JSON.stringify(final),
    )
  }
})

test('a group made with usernames and granted a tag set through the API gives its members access; deleting the group takes it back', async () => {
  const owner = await t.user('ts-owner')
  const friend = await t.user('friend')
  const tagSet = await makeTagSet(t.db, owner, null)
  assert.is((await t.call('GET', api(`tagSet/${tagSet}/`), { as: friend })).statusCode, 404)
  const g = (
    await t.call('POST', api('appUserGroup/'), { as: owner, body: { name: 'friends', usernames: ['friend'] } })
  ).data.id
  const p = await t.call('POST', api('appPermission/'), {
    as: owner,
    body: { bearer_type: 'appusergroup', bearer_id: g, target_type: 'tagset', target_id: tagSet, read: true },
  })
  assert.is(p.statusCode, 201)
  assert.is((await t.call('GET', api(`tagSet/${tagSet}/`), { as: friend })).statusCode, 200)
  assert.is((await t.call('DELETE', api(`appUserGroup/${g}/`), { as: owner })).statusCode, 204)
  assert.is((await t.call('GET', api(`tagSet/${tagSet}/`), { as: friend })).statusCode, 404)
  assert.is((await t.call('GET', api(`appPermission/${p.data.id}/`), { as: owner })).statusCode, 404)
})

test.run()
