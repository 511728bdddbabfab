import { stripVTControlCharacters } from 'node:util'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { cliWorld, json, type CliWorld } from './cli.js'
import { makeLibrary, makeTagSet } from '../helpers/records.js'

// Users (site admins) and groups (anyone), by name or by id.

let w: CliWorld
let admin: TestUser
let alice: TestUser
let aliceHome: string

test.before(async () => {
  w = await cliWorld()
  admin = await w.t.user('root', { admin: true })
  alice = await w.t.user('alice')
  await w.login(admin)
  aliceHome = w.newHome()
  await w.login(alice, aliceHome)
})
test.after(async () => {
  await w.close()
})

test('an admin creates a user who can then log in; user list shows every user', async () => {
  const created = await w.mas(['user', 'create', 'carol', '--password-stdin'], { input: 'carol-secret\n' })
  assert.is(created.code, 0, created.stderr)
  const id = Number(created.stdout.trim())
  assert.ok(id > 0)
  assert.not.match(created.stdout + created.stderr, 'carol-secret')
  const list = await w.mas(['user', 'list', '--json'])
  assert.equal(
    json(list)
      .map((u: any) => u.username)
      .sort(),
    ['alice', 'carol', 'root'],
  )
  const table = await w.mas(['user', 'list'])
  assert.match(table.stdout, /^ID\s+USERNAME\n/)
  assert.match(table.stdout, new RegExp(`\\n${id}\\s+carol\\n`))
  const home = w.newHome()
  const login = await w.mas(['login', '--server', w.server, '--username', 'carol', '--password-stdin'], {
    input: 'carol-secret\n',
    home,
  })
  assert.is(login.code, 0, login.stderr)
})

test('set-password changes the password by name; deactivate stops the user logging in', async () => {
  await w.mas(['user', 'create', 'dave', '--password-stdin', '--json'], { input: 'first-pass\n' })
  const set = await w.mas(['user', 'set-password', 'dave', '--password-stdin'], { input: 'second-pass\n' })
  assert.is(set.code, 0, set.stderr)
  const home = w.newHome()
  const old = await w.mas(['login', '--server', w.server, '--username', 'dave', '--password-stdin'], {
    input: 'first-pass\n',
    home,
  })
  assert.is(old.code, 1)
  const ok = await w.mas(['login', '--server', w.server, '--username', 'dave', '--password-stdin'], {
    input: 'second-pass\n',
    home,
  })
  assert.is(ok.code, 0, ok.stderr)
  const off = await w.mas(['user', 'deactivate', 'dave', '--yes', '--json'])
  assert.is(off.code, 0, off.stderr)
  assert.is(json(off).username, 'dave')
  const after = await w.mas(['whoami'], { home })
  assert.is(after.code, 1)
  assert.match(after.stderr, /run mas login/)
})

test('a new password ends the old tokens; an admin changing their own password stays logged in with a new token', async () => {
  const home = w.newHome()
  await w.mas(['user', 'create', 'erin', '--password-stdin'], { input: 'erin-first\n' })
  assert.is(
    (
      await w.mas(['login', '--server', w.server, '--username', 'erin', '--password-stdin'], {
        input: 'erin-first\n',
        home,
      })
    ).code,
    0,
  )
  const set = await w.mas(['user', 'set-password', 'erin', '--password-stdin'], { input: 'erin-second\n' })
  assert.match(set.stderr, /Password of erin changed; their tokens and sessions have ended, so they log in again/)
  const stale = await w.mas(['whoami'], { home })
  assert.is(stale.code, 1)

  const own = await w.mas(['user', 'set-password', 'root', '--password-stdin'], { input: 'root-second-pass\n' })
  assert.is(own.code, 0, own.stderr)
  assert.match(own.stderr, /this profile has logged in again with the new password/)
  const still = await w.mas(['whoami'])
  assert.is(still.code, 0, still.stderr)
  assert.match(still.stdout, /root/)
})

test('user management by a non-admin is forbidden (exit 1); an unknown name is exit 1', async () => {
  const list = await w.mas(['user', 'list'], { home: aliceHome })
  assert.is(list.code, 1)
  assert.match(list.stderr, /^Error: Forbidden: You do not have permission to perform this action\.\n$/)
  const missing = await w.mas(['user', 'deactivate', 'nobody'])
  assert.is(missing.code, 1)
  assert.match(missing.stderr, /user: no user named "nobody"/)
  const dup = await w.mas(['user', 'create', 'alice', '--password-stdin'], { input: 'x-pass\n' })
  assert.is(dup.code, 1)
  assert.match(dup.stderr, /NAME: A user with that username already exists\./)
})

test('groups: create with members by name and id, add and remove users, list', async () => {
  const bob = await w.t.user('bob')
  const created = await w.mas(['group', 'create', 'birders', '--user', 'bob', '--user', String(alice.id), '--json'], {
    home: aliceHome,
  })
  assert.is(created.code, 0, created.stderr)
  const group = json(created)
  assert.equal(
    group.users,
    [alice.id, bob.id].sort((a, b) => a - b),
  )
  const eve = await w.t.user('eve')
  const add = await w.mas(['group', 'add-user', 'birders', 'eve', '--json'], { home: aliceHome })
  assert.is(add.code, 0, add.stderr)
  assert.equal(
    json(add).users,
    [alice.id, bob.id, eve.id].sort((a, b) => a - b),
  )
  // people read names, not ids: the group and its members by name (the caller is `me`)
  await w.t.user('frank')
  const told = await w.mas(['group', 'add-user', 'birders', 'frank'], { home: aliceHome })
  assert.is(told.code, 0, told.stderr)
  assert.match(
    told.stderr,
    /^Group \d+ \(birders\) has users (me|bob|eve|frank), (me|bob|eve|frank), (me|bob|eve|frank), (me|bob|eve|frank)\n/,
  )
  for (const name of ['me', 'bob', 'eve', 'frank']) assert.match(told.stderr, new RegExp(`[ ,]${name}[,\\n]`))
  const removed = await w.t.call('PATCH', `/api/v0/appUserGroup/${group.id}/`, {
    as: alice,
    body: { users: [alice.id, bob.id, eve.id] },
  })
  assert.is(removed.statusCode, 200, removed.body)
  // a non-admin removes by id; a name needs user/ (admins only)
  const byName = await w.mas(['group', 'remove-user', 'birders', 'bob'], { home: aliceHome })
  assert.is(byName.code, 1)
  assert.match(byName.stderr, /give the id of "bob"/)
  const byId = await w.mas(['group', 'remove-user', String(group.id), String(bob.id)], { home: aliceHome })
  assert.is(byId.code, 0, byId.stderr)
  assert.match(byId.stderr, /^Group \d+ \(birders\) has users (me, eve|eve, me)\n/)
  const list = await w.mas(['group', 'list', '--json'], { home: aliceHome })
  assert.equal(
    json(list).map((g: any) => [g.name, g.users]),
    [['birders', [alice.id, eve.id].sort((a, b) => a - b)]],
  )
  // bob, no longer a member, does not see it; eve does
  const eveHome = w.newHome()
  await w.login(eve, eveHome)
  const table = await w.mas(['group', 'list'], { home: eveHome })
  assert.match(table.stdout, /^ID\s+NAME\s+USERS\s+CREATEDBY\s+CREATED\n/)
  assert.match(table.stdout, /birders/)
  // an unknown username is the server's 400, shown per field, the field said as the flag that gave it
  const bad = await w.mas(['group', 'create', 'x', '--user', 'ghost'], { home: aliceHome })
  assert.is(bad.code, 1)
  assert.match(bad.stderr, /^Error: Rejected \(400\): --user: .*ghost/)
})

test("perms grant --user NAME as a site admin sends the user's id, looked up in user/", async () => {
  const carol = await w.t.user('grantee19')
  const library = await makeLibrary(w.t.db, admin)
  const run = await w.mas(['perms', 'grant', '--user', 'grantee19', '--library', String(library), '--read', '--json'])
  assert.is(run.code, 0, run.stderr)
  const g = json(run)
  assert.equal([g.bearer_type, g.bearer_id, g.target_id], ['user', carol.id, library])
  const unknown = await w.mas(['perms', 'grant', '--user', 'nobody-here', '--library', String(library)])
  assert.is(unknown.code, 1)
  assert.match(unknown.stderr, '--user: no user named "nobody-here"')
})

test('perms grant and perms list take --tag-set; --tagset still works and is not in --help', async () => {
  const dave = await w.t.user('grantee20')
  const library = await makeLibrary(w.t.db, admin)
  const tagSet = await makeTagSet(w.t.db, admin, library)
  const run = await w.mas([
    'perms',
    'grant',
    '--user',
    String(dave.id),
    '--tag-set',
    String(tagSet),
    '--write',
    '--json',
  ])
  assert.is(run.code, 0, run.stderr)
  const g = json(run)
  assert.equal([g.bearer_id, g.target_type, g.target_id, g.write], [dave.id, 'tagset', tagSet, true])
  const old = await w.mas(['perms', 'grant', '--user', String(dave.id), '--tagset', String(tagSet), '--read', '--json'])
  assert.is(old.code, 0, old.stderr)
  assert.equal([json(old).target_type, json(old).target_id], ['tagset', tagSet])
  for (const flag of ['--tag-set', '--tagset']) {
    const list = await w.mas(['perms', 'list', flag, String(tagSet), '--json'])
    assert.is(list.code, 0, list.stderr)
    assert.equal(
      json(list)
        .map((p: any) => p.id)
        .sort(),
      [g.id, json(old).id].sort(),
      flag,
    )
  }
  const both = await w.mas([
    'perms',
    'grant',
    '--user',
    String(dave.id),
    '--library',
    String(library),
    '--tagset',
    String(tagSet),
  ])
  assert.is(both.code, 2, both.stderr)
  for (const command of ['grant', 'list']) {
    const help = await w.mas(['perms', command, '--help'])
    assert.is(help.code, 0, help.stderr)
    const text = stripVTControlCharacters(help.stdout)
    assert.ok(text.includes('--tag-set=<value>'), text)
    assert.not.match(text, '--tagset')
  }
})

test.run()
