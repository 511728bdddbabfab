import type { IncomingMessage } from 'node:http'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeMetaData, makeTagClass, makeTagSet } from '../helpers/records.js'
import { cliWorld, json, type CliWorld } from './cli.js'
import { makeRecords } from '../helpers/world.js'

// Names remembered between commands: a loop of `mas tag create` with names asks the server for each name
// once; a renamed or deleted record is looked up again; another profile, login or user never gets them.

let w: CliWorld
let alice: TestUser
let bob: TestUser
let library: number
let robin: number
let aliceSet: number
/** the requests the server received, by method and path */
let requests: string[] = []

const ALICE_TAG = [
  'tag',
  'create',
  '--tag-set',
  'dawn chorus',
  '--media-file',
  'site1/0500.wav',
  '--tag-class',
  'robin',
  '--start',
  '1',
  '--end',
  '2',
  '--json',
]

/** `mas args` and the requests the server received while it ran. */
async function counted(args: string[], opts: Parameters<CliWorld['mas']>[1] = {}) {
  requests = []
  const run = await w.mas(args, opts)
  return { run, requests: [...requests] }
}

test.before(async () => {
  w = await cliWorld()
  w.t.app.server.on('request', (req: IncomingMessage) => {
    requests.push(`${req.method} ${req.url}`)
  })
  alice = await w.loggedIn('alice')
  bob = await w.t.user('bob')
  let file: number
  ;({
    library,
    tagSet: aliceSet,
    tagClass: robin,
    mediaFile: file,
  } = await makeRecords(w.t, alice, {
    library: 'season',
    tagSet: 'dawn chorus',
    tagClass: { className: 'robin' },
    mediaFile: { alias: 'site1/0500.wav', file: 'site1_0500.wav' },
  }))
  await makeMetaData(w.t.db, file, 'durationInSeconds', '60')
})
test.after(async () => {
  await w.close()
})

test('the first tag create looks its names up; the next ones make one request each', async () => {
  const first = await counted(ALICE_TAG)
  assert.is(first.run.code, 0, first.run.stderr)
  assert.ok(first.requests.length > 1, first.requests.join('\n'))
  for (let i = 0; i < 2; i++) {
    const next = await counted(ALICE_TAG)
    assert.is(next.run.code, 0, next.run.stderr)
    assert.equal(next.requests, ['POST /api/v0/tag/'])
    assert.is(json(next.run).tagClass, robin)
  }
})

test('a renamed class is looked up again, and the tag goes to the class of that name now', async () => {
  assert.is((await counted(ALICE_TAG)).run.code, 0)
  const renamed = await w.t.call('PATCH', `/api/v0/tagClass/${robin}/`, { as: alice, body: { className: 'erithacus' } })
  assert.is(renamed.statusCode, 200)
  const newRobin = await makeTagClass(w.t.db, alice, library, 'robin')
  const after = await counted(ALICE_TAG)
  assert.is(after.run.code, 0, after.run.stderr)
  assert.is(json(after.run).tagClass, newRobin)
  // refused at the old version, looked up afresh, created
  assert.is(after.requests[0], 'POST /api/v0/tag/')
  assert.ok(after.requests.length > 2, after.requests.join('\n'))
  // and remembered again
  assert.equal((await counted(ALICE_TAG)).requests, ['POST /api/v0/tag/'])
  robin = newRobin
})

test('a deleted tag set is looked up again: the command says no tag set has that name', async () => {
  const scratch = await makeTagSet(w.t.db, alice, library, 'scratch')
  const args = [
    'tag',
    'create',
    '--tag-set',
    'scratch',
    '--media-file',
    'site1/0500.wav',
    '--tag-class',
    'robin',
    '--start',
    '1',
    '--end',
    '2',
  ]
  assert.is((await counted(args)).run.code, 0)
  assert.is((await w.t.call('DELETE', `/api/v0/tagSet/${scratch}/`, { as: alice })).statusCode, 204)
  const gone = await counted(args)
  assert.is(gone.run.code, 1)
  assert.match(gone.run.stderr, /--tag-set: no tag set named "scratch"/)
})

test('another profile, or another login in the same profile, never gets the names another user looked up', async () => {
  assert.is((await counted(ALICE_TAG)).run.code, 0) // looked up again: a tag set was deleted since
  assert.equal((await counted(ALICE_TAG)).requests, ['POST /api/v0/tag/'])
  // bob, in the same home under a profile of his own, has a tag set, a class and a file of the same names
  const {
    tagSet: bobSet,
    tagClass: bobRobin,
    mediaFile: bobFile,
  } = await makeRecords(w.t, bob, {
    library: 'bob season',
    tagSet: 'dawn chorus',
    tagClass: { className: 'robin' },
    mediaFile: { alias: 'site1/0500.wav', file: 'bob_0500.wav' },
  })
  await makeMetaData(w.t.db, bobFile, 'durationInSeconds', '60')
  const login = await w.mas(
    ['login', '--server', w.server, '--username', 'bob', '--password-stdin', '--profile', 'bob'],
    { input: `${bob.password}\n` },
  )
  assert.is(login.code, 0, login.stderr)
  const asBob = await counted([...ALICE_TAG, '--profile', 'bob'])
  assert.is(asBob.run.code, 0, asBob.run.stderr)
  assert.ok(asBob.requests.length > 1, 'bob looks the names up himself')
  assert.equal(
    [json(asBob.run).tagSet, json(asBob.run).tagClass, json(asBob.run).mediaFile],
    [bobSet, bobRobin, bobFile],
  )
  // bob logs in over alice's default profile: alice's names are not his
  assert.is((await w.login(bob)).code, 0)
  const overAlice = await counted(ALICE_TAG)
  assert.is(overAlice.run.code, 0, overAlice.run.stderr)
  assert.ok(overAlice.requests.length > 1, "bob over alice's profile looks the names up again")
  assert.is(json(overAlice.run).tagSet, bobSet)
  // alice's token in MAS_TOKEN over that profile: alice's own names again, not bob's
  const byToken = await counted(ALICE_TAG, { env: { MAS_TOKEN: alice.token } })
  assert.is(byToken.run.code, 0, byToken.run.stderr)
  assert.equal([json(byToken.run).tagSet, json(byToken.run).tagClass], [aliceSet, robin])
})

test('the server refuses a request made at an old names version with 412, and says the current one', async () => {
  const now = await w.t.call('GET', '/api/v0/library/', { as: alice, headers: { 'mas-names-version': '*' } })
  assert.is(now.statusCode, 200)
  const version = String(now.headers['mas-names-version'])
  assert.match(version, /^\d+$/)
  assert.is(
    (await w.t.call('GET', '/api/v0/library/', { as: alice, headers: { 'mas-names-version': version } })).statusCode,
    200,
  )
  const old = await w.t.call('GET', '/api/v0/library/', {
    as: alice,
    headers: { 'mas-names-version': String(Number(version) - 1) },
  })
  assert.is(old.statusCode, 412)
  assert.is(old.headers['mas-names-version'], version)
  // without the header nothing changes
  const plain = await w.t.call('GET', '/api/v0/library/', { as: alice })
  assert.is(plain.statusCode, 200)
  assert.is(plain.headers['mas-names-version'], undefined)
})

test.run()
