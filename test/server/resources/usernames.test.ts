import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { api, suiteApp, type TestUser } from '../../helpers/app.js'
import { grant, makeGroup, makeLibrary, makeTagSet } from '../../helpers/records.js'

// GET usernames/ (extension, docs/decisions.md §22): the usernames of the people a caller shares something with,
// and nobody else's, for every kind of caller.

const t = suiteApp(test)
let owner: TestUser, reader: TestUser, tagSetReader: TestUser, grantee: TestUser, groupMember: TestUser
let groupCreator: TestUser, bearerMember: TestUser, stranger: TestUser, admin: TestUser

test.before(async () => {
  owner = await t.user('un_owner')
  reader = await t.user('un_reader')
  tagSetReader = await t.user('un_tagset_reader')
  grantee = await t.user('un_grantee')
  groupMember = await t.user('un_group_member')
  groupCreator = await t.user('un_group_creator')
  bearerMember = await t.user('un_bearer_member')
  stranger = await t.user('un_stranger')
  admin = await t.user('un_admin', { admin: true })
  const library = await makeLibrary(t.db, owner, 'un-library')
  await grant(t.db, owner, { user: reader.id }, { library }, ['read'])
  await grant(t.db, owner, { user: grantee.id }, { library }, ['write'])
  // a group holding a grant: its members are grantees of the library
  const bearers = await makeGroup(t.db, owner, [bearerMember])
  await grant(t.db, owner, { group: bearers }, { library }, ['read'])
  // a tag set of its own (no library) read by one more user
  const tagSet = await makeTagSet(t.db, owner, null, 'un-tagset')
  await grant(t.db, owner, { user: tagSetReader.id }, { tagSet }, ['read'])
  // a group the stranger is not in
  await makeGroup(t.db, groupCreator, [groupMember, reader])
})

const names = async (as: TestUser, query = '') => {
  const res = await t.call('GET', api(`usernames/${query}`), { as })
  assert.is(res.statusCode, 200, JSON.stringify(res.data))
  return (res.data as Array<{ id: number; username: string }>).map((u) => u.username)
}

test('a stranger learns only its own name, whatever ids it asks for', async () => {
  assert.equal(await names(stranger), ['un_stranger'])
  assert.equal(await names(stranger, `?id=${owner.id},${reader.id},${admin.id},999999`), [])
})

test("a reader of a library names its owner, its grantees (members of a bearer group too), and its own groups' people", async () => {
  assert.equal(await names(reader), [
    'un_owner',
    'un_reader',
    'un_grantee',
    'un_group_member',
    'un_group_creator',
    'un_bearer_member',
  ])
})

test('a reader of a tag set names its owner and its grantees, nobody of the library it does not read', async () => {
  assert.equal(await names(tagSetReader), ['un_owner', 'un_tagset_reader'])
})

test("a group member names the group's creator and members, not the library its fellow member reads", async () => {
  assert.equal(await names(groupMember), ['un_reader', 'un_group_member', 'un_group_creator'])
})

test('the owner names everyone it shares with; a site admin names every user', async () => {
  assert.equal(await names(owner), ['un_owner', 'un_reader', 'un_tagset_reader', 'un_grantee', 'un_bearer_member'])
  const all = await names(admin)
  for (const u of [owner, stranger, groupCreator, admin]) assert.ok(all.includes(u.username), u.username)
})

test('?id= narrows the answer to those ids; a bad id is a 400 naming the field; no login is a 401', async () => {
  assert.equal(await names(reader, `?id=${owner.id},${stranger.id}`), ['un_owner'])
  const bad = await t.call('GET', api('usernames/?id=3,x'), { as: reader })
  assert.is(bad.statusCode, 400)
  assert.ok(Array.isArray(bad.data.id), JSON.stringify(bad.data))
  assert.is((await t.call('GET', api('usernames/'))).statusCode, 401)
})

test("the original's user/ stays for site admins only", async () => {
  assert.is((await t.call('GET', api('user/'), { as: reader })).statusCode, 403)
  assert.is((await t.call('GET', api(`user/${owner.id}/`), { as: reader })).statusCode, 403)
})

test.run()
