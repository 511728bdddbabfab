import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { grant, makeLibrary, makeMediaFile, makeTagClass } from '../helpers/records.js'
import { cliWorld, type CliWorld } from './cli.js'

// Names a colleague may read, in the tables of a library shared with them: the sensors that made its
// recordings (docs/decisions.md §6); usernames stay for site admins, as in the original.

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
  sensor = (await w.t.call('POST', '/api/v0/sensor/', { as: owner, body: { name: 'AM-17', sensorArray: null } })).data.id
  await makeMediaFile(w.t.db, owner, library, { alias: 'north/0500.wav', file: 'north_0500.wav', sensor })
  await makeTagClass(w.t.db, owner, library, 'nightjar')
  await grant(w.t.db, owner, { user: colleague.id }, { library }, ['read'])
})
test.after(async () => { await w.close() })

/** The lines of a table, cells split on runs of spaces. */
const rows = (stdout: string) => stdout.trim().split('\n').map((line) => line.trim().split(/\s{2,}/))

test('a colleague reading a shared library sees its sensor by name in media list', async () => {
  const home = w.newHome()
  assert.is((await w.login(colleague, home)).code, 0)
  const run = await w.mas(['media', 'list', '--library', 'heathland', '--columns', 'id,alias,sensor'], { home })
  assert.is(run.code, 0, run.stderr)
  assert.equal(rows(run.stdout), [['ID', 'ALIAS', 'SENSOR'], [String(run.stdout.match(/\n(\d+)/)![1]), 'north/0500.wav', 'AM-17']])
})

test('the owner sees its own name as me; a colleague sees the owner\'s id (usernames are for site admins)', async () => {
  assert.is((await w.login(owner)).code, 0)
  const asOwner = await w.mas(['tagclass', 'list', '--library', 'heathland', '--columns', 'className,user'])
  assert.equal(rows(asOwner.stdout), [['CLASSNAME', 'USER'], ['nightjar', 'me']])
  const home = w.newHome()
  await w.login(colleague, home)
  const asColleague = await w.mas(['tagclass', 'list', '--library', 'heathland', '--columns', 'className,user'], { home })
  assert.equal(rows(asColleague.stdout), [['CLASSNAME', 'USER'], ['nightjar', String(owner.id)]])
})

test('someone the library is not shared with cannot read the sensor', async () => {
  const home = w.newHome()
  assert.is((await w.login(outsider, home)).code, 0)
  const run = await w.mas(['sensor', 'list', '--json'], { home })
  assert.is(run.code, 0, run.stderr)
  assert.equal(JSON.parse(run.stdout), [])
})

test.run()
