import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { grant, makeLibrary, makeMediaFile, makeTagClass } from '../helpers/records.js'
import { cliWorld, type CliWorld } from './cli.js'

// Names a colleague may read, in the tables of a library shared with them: the sensors that made its
// recordings (docs/decisions.md §6) and the usernames of the people it shares with (`usernames/`, §22);
// against the original service, whose user/ is for site admins, a colleague's tables keep the ids.

let w: CliWorld
let owner: TestUser
let colleague: TestUser
let outsider: TestUser
let library: number
let sensor: number

test.before(async () => {
  w = await cliWorld()
  owner = await w.t.user('recordist')
  colleague = await w.t.user('colleague')
  outsider = await w.t.user('outsider')
  library = await makeLibrary(w.t.db, owner, 'heathland')
  sensor = (await w.t.call('POST', '/api/v0/sensor/', { as: owner, body: { name: 'AM-17', sensorArray: null } })).data
    .id
  await makeMediaFile(w.t.db, owner, library, { alias: 'north/0500.wav', file: 'north_0500.wav', sensor })
  await makeTagClass(w.t.db, owner, library, 'nightjar')
  await grant(w.t.db, owner, { user: colleague.id }, { library }, ['read'])
})
test.after(async () => {
  await w.close()
})

/** The lines of a table, cells split on runs of spaces. */
const rows = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/))

test('a colleague reading a shared library sees its sensor by name in media list', async () => {
  const home = w.newHome()
  assert.is((await w.login(colleague, home)).code, 0)
  const run = await w.mas(['media', 'list', '--library', 'heathland', '--columns', 'id,alias,sensor'], { home })
  assert.is(run.code, 0, run.stderr)
  assert.equal(rows(run.stdout), [
    ['ID', 'ALIAS', 'SENSOR'],
    [String(run.stdout.match(/\n(\d+)/)![1]), 'north/0500.wav', 'AM-17'],
  ])
})

test("the owner sees its own name as me; a colleague sees the owner's username", async () => {
  assert.is((await w.login(owner)).code, 0)
  const asOwner = await w.mas(['tagclass', 'list', '--library', 'heathland', '--columns', 'className,user'])
  assert.equal(rows(asOwner.stdout), [
    ['CLASSNAME', 'USER'],
    ['nightjar', 'me'],
  ])
  const home = w.newHome()
  await w.login(colleague, home)
  const asColleague = await w.mas(['tagclass', 'list', '--library', 'heathland', '--columns', 'className,user'], {
    home,
  })
  assert.equal(rows(asColleague.stdout), [
    ['CLASSNAME', 'USER'],
    ['nightjar', 'recordist'],
  ])
  const libraries = await w.mas(['library', 'list', '--columns', 'name,user'], { home })
  assert.equal(rows(libraries.stdout), [
    ['NAME', 'USER'],
    ['heathland', 'recordist'],
  ])
})

test("the owner's grants name the colleague; --json keeps the ids", async () => {
  const list = await w.mas(['perms', 'list', '--library', 'heathland', '--columns', 'bearer,createdBy'])
  assert.is(list.code, 0, list.stderr)
  assert.equal(rows(list.stdout), [
    ['BEARER', 'CREATEDBY'],
    ['user:colleague', 'me'],
  ])
  const json = JSON.parse((await w.mas(['perms', 'list', '--library', 'heathland', '--json'])).stdout)
  assert.equal(
    json.map((g: { bearer_id: number }) => g.bearer_id),
    [colleague.id],
  )
})

test('someone the library is not shared with learns no username from the server', async () => {
  const res = await w.t.call('GET', `/api/v0/usernames/?id=${owner.id},${colleague.id}`, { as: outsider })
  assert.is(res.statusCode, 200)
  assert.equal(res.data, [])
})

test("against a server without usernames/ (the original service) the users' names come from user/, where it answers", async () => {
  // A stand-in for the original: no usernames/ (404), user/ listing users as it does for a site admin.
  const original = createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.url?.startsWith('/api/v0/tagClass/'))
      json(200, {
        count: 1,
        next: null,
        previous: null,
        results: [{ id: 1, className: 'nightjar', displayName: '', library: 7, user: 42 }],
      })
    else if (req.url?.startsWith('/api/v0/library/7/'))
      json(200, { id: 7, name: 'heathland', user: 42, mediaFiles: [] })
    else if (req.url?.startsWith('/api/v0/library/'))
      json(200, { count: 1, next: null, previous: null, results: [{ id: 7, name: 'heathland', user: 42 }] })
    else if (req.url?.startsWith('/api/v0/userSettings/'))
      json(200, { count: 0, next: null, previous: null, results: [] })
    else if (req.url?.startsWith('/api/v0/user/'))
      json(200, { count: 1, next: null, previous: null, results: [{ id: 42, username: 'warden', groups: [] }] })
    else json(404, { detail: 'Not found.' })
  })
  await new Promise<void>((r) => original.listen(0, '127.0.0.1', r))
  try {
    const env = {
      MAS_SERVER: `http://127.0.0.1:${(original.address() as AddressInfo).port}`,
      MAS_TOKEN: colleague.token,
    }
    const run = await w.mas(['tagclass', 'list', '--library', '7', '--columns', 'className,user'], { env })
    assert.is(run.code, 0, run.stderr)
    assert.equal(rows(run.stdout), [
      ['CLASSNAME', 'USER'],
      ['nightjar', 'warden'],
    ])
  } finally {
    await new Promise((r) => original.close(r))
  }
})

test('someone the library is not shared with cannot read the sensor', async () => {
  const home = w.newHome()
  assert.is((await w.login(outsider, home)).code, 0)
  const run = await w.mas(['sensor', 'list', '--json'], { home })
  assert.is(run.code, 0, run.stderr)
  assert.equal(JSON.parse(run.stdout), [])
})

test.run()
