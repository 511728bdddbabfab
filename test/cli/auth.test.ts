import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { cliWorld, json, type CliWorld } from './cli.js'

let w: CliWorld
let alice: TestUser

test.before(async () => {
  w = await cliWorld()
  alice = await w.t.user('alice')
})
test.after(async () => {
  await w.close()
})

const configFile = (home: string) => join(home, 'config', 'mas', 'config.json')

test('login with --password-stdin stores server, username and token in a 0600 file in a 0700 folder, never the password', async () => {
  const run = await w.login(alice)
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stderr, /Logged in to http:\/\/127\.0\.0\.1:\d+ as alice/)
  assert.not.match(run.stdout + run.stderr, alice.password)
  const file = configFile(w.home)
  assert.is(statSync(file).mode & 0o777, 0o600)
  assert.is(statSync(join(w.home, 'config', 'mas')).mode & 0o777, 0o700)
  const text = readFileSync(file, 'utf8')
  assert.not.match(text, alice.password)
  assert.equal(JSON.parse(text), { profiles: { default: { server: w.server, username: 'alice', token: alice.token } } })
})

test('whoami shows server and user, as a table and as JSON', async () => {
  const human = await w.mas(['whoami'])
  assert.is(human.code, 0, human.stderr)
  assert.match(human.stdout, new RegExp(`server\\s+${w.server}`))
  assert.match(human.stdout, /username\s+alice/)
  const machine = await w.mas(['whoami', '--json'])
  assert.is(machine.code, 0)
  assert.equal(json(machine), { server: w.server, username: 'alice', profile: 'default' })
})

test('mas token (and mas auth token) prints the stored token alone; MAS_TOKEN stands before it; none stored asks to log in', async () => {
  for (const id of [['token'], ['auth', 'token']]) {
    const run = await w.mas(id)
    assert.is(run.code, 0, run.stderr)
    assert.is(run.stdout, `${alice.token}\n`)
  }
  assert.equal(json(await w.mas(['token', '--json'])), { server: w.server, token: alice.token })
  const env = await w.mas(['token'], {
    home: w.newHome(),
    env: { MAS_SERVER: w.server, MAS_TOKEN: 'from-the-environment' },
  })
  assert.is(env.stdout, 'from-the-environment\n')
  const none = await w.mas(['token'], { home: w.newHome() })
  assert.is(none.code, 1)
  assert.is(none.stdout, '')
  assert.match(none.stderr, /^Error: Not logged in to .*: run mas login\n$/)
})

test('--profile keeps several accounts apart; MAS_SERVER and MAS_TOKEN override the profile', async () => {
  const bob = await w.t.user('bob')
  const home = w.newHome()
  await w.login(alice, home)
  const login = await w.mas(
    ['login', '--profile', 'second', '--server', w.server, '--username', 'bob', '--password-stdin'],
    { input: `${bob.password}\n`, home },
  )
  assert.is(login.code, 0, login.stderr)
  assert.is(json(await w.mas(['whoami', '--json'], { home })).username, 'alice')
  assert.is(json(await w.mas(['whoami', '--json', '--profile', 'second'], { home })).username, 'bob')
  const stored = JSON.parse(readFileSync(configFile(home), 'utf8'))
  assert.equal(Object.keys(stored.profiles).sort(), ['default', 'second'])
  // an empty HOME with the server and token from the environment
  const env = await w.mas(['library', 'list', '--json'], {
    home: w.newHome(),
    env: { MAS_SERVER: w.server, MAS_TOKEN: bob.token },
  })
  assert.is(env.code, 0, env.stderr)
  assert.equal(json(env), [])
})

test('a rejected token says "run mas login" on one line and exits 1', async () => {
  const run = await w.mas(['whoami'], { env: { MAS_TOKEN: '0'.repeat(40) } })
  assert.is(run.code, 1)
  assert.is(run.stdout, '')
  assert.is(run.stderr, 'Error: Not authenticated (Invalid token.): run mas login\n')
})

test('wrong password: exit 1, nothing stored; no password given off a terminal: usage error, exit 2', async () => {
  const home = w.newHome()
  const bad = await w.mas(['login', '--server', w.server, '--username', 'alice', '--password-stdin'], {
    input: 'wrong\n',
    home,
  })
  assert.is(bad.code, 1)
  assert.match(
    bad.stderr,
    /^Error: Unable to log in with the given username and password: check --username and the password\n$/,
  )
  const usage = await w.mas(['login', '--server', w.server, '--username', 'alice'], { home })
  assert.is(usage.code, 2)
  assert.match(usage.stderr, /--password-stdin/)
  const noUser = await w.mas(['whoami'], { home })
  assert.is(noUser.code, 1)
  assert.match(noUser.stderr, /Not logged in to .*: run mas login/)
})

test('logout forgets the token; later commands ask to log in', async () => {
  const home = w.newHome()
  await w.login(alice, home)
  const out = await w.mas(['logout'], { home })
  assert.is(out.code, 0)
  const stored = JSON.parse(readFileSync(configFile(home), 'utf8'))
  assert.equal(stored.profiles.default, { server: w.server, username: 'alice' })
  const after = await w.mas(['library', 'list'], { home })
  assert.is(after.code, 1)
  assert.match(after.stderr, /run mas login/)
})

test('an unreachable server is one line and exit 1, after retries', async () => {
  const run = await w.mas(['whoami'], { env: { MAS_SERVER: 'http://127.0.0.1:9', MAS_TOKEN: alice.token } })
  assert.is(run.code, 1)
  assert.match(run.stderr, /^Error: Cannot reach the server at http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/)
  assert.is(run.stderr.trim().split('\n').length, 1)
})

test('usage errors exit 2: unknown flag, missing argument, bad integer, conflicting flags', async () => {
  for (const args of [
    ['whoami', '--bogus'],
    ['library', 'create'],
    ['job', 'get', 'abc'],
    ['tag', 'export'],
    ['perms', 'grant', '--user', 'bob', '--group', 'g', '--library', '1'],
    ['tag', 'import', '-', '--tag-set', '1', '--format', 'xml'],
  ]) {
    const run = await w.mas(args)
    assert.is(run.code, 2, `${args.join(' ')}: ${run.stderr}`)
    assert.match(run.stderr, /^Error: /)
    assert.not.match(run.stderr, /    at /)
  }
})

test('--help of every command shows usage and examples', async () => {
  const commands = [
    'login',
    'logout',
    'whoami',
    'user create',
    'user list',
    'user set-password',
    'user deactivate',
    'group create',
    'group add-user',
    'group remove-user',
    'group list',
    'library create',
    'library list',
    'media import',
    'media list',
    'media get',
    'media delete',
    'tagset create',
    'tagset list',
    'tagclass create',
    'tagclass list',
    'tag create',
    'tag import',
    'tag export',
    'project create',
    'project add-media',
    'project remove-media',
    'job create',
    'job list',
    'job get',
    'job watch',
    'job stop',
    'job result upload',
    'job result list',
    'job result download',
    'perms grant',
    'perms list',
    'perms revoke',
  ]
  for (let i = 0; i < commands.length; i += 8) {
    await Promise.all(
      commands.slice(i, i + 8).map(async (c) => {
        const run = await w.mas([...c.split(' '), '--help'])
        assert.is(run.code, 0, c)
        assert.match(run.stdout, `$ mas ${c}`, c)
        assert.match(run.stdout, 'EXAMPLES', c)
        assert.match(run.stdout, '--json', c)
      }),
    )
  }
})

test.run()
