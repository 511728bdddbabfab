import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { sessionLogin } from '../../helpers/session.js'
import { grant, makeLibrary } from '../../helpers/records.js'
import { importMedia } from '../../helpers/upload.js'
import { makeWav } from '../../helpers/wav.js'

// GET /media/<name>: who may fetch a stored media file, and byte ranges for seeking.

const t = suiteApp(test)
let owner: TestUser, grantee: TestUser, stranger: TestUser, admin: TestUser
let wav: Buffer
let path: string

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers })

test.before(async () => {
  owner = await t.user('olive')
  grantee = await t.user('grace')
  stranger = await t.user('sam')
  admin = await t.user('root', { admin: true })
  const lib = await makeLibrary(t.db, owner)
  await grant(t.db, owner, { user: grantee.id }, { library: lib }, ['read'])
  wav = makeWav({ seconds: 1, sampleRate: 8000 })
  const imported = await importMedia(t, owner, lib, wav)
  assert.is(imported.statusCode, 201)
  path = new URL(imported.data.url).pathname
  assert.is(path, `/media/${imported.data.file}`)
})

test('the owner gets the bytes with Content-Type, Content-Length and Accept-Ranges', async () => {
  const res = await get(path, owner.auth)
  assert.is(res.statusCode, 200)
  assert.is(res.headers['content-type'], 'audio/wav')
  assert.is(res.headers['accept-ranges'], 'bytes')
  assert.is(Number(res.headers['content-length']), wav.length)
  assert.ok(res.rawPayload.equals(wav))
  const head = await t.app.inject({ method: 'HEAD', url: path, headers: owner.auth })
  assert.is(head.statusCode, 200)
  assert.is(Number(head.headers['content-length']), wav.length)
  assert.is(head.rawPayload.length, 0)
})

test('a grantee by basic auth and by session, and a site admin, may fetch; a stranger gets 404, no credentials 401', async () => {
  const basic = `Basic ${Buffer.from(`${grantee.username}:${grantee.password}`).toString('base64')}`
  assert.is((await get(path, { authorization: basic })).statusCode, 200)

  const login = await sessionLogin((o) => t.app.inject(o), grantee.username, grantee.password)
  assert.is(login.response.statusCode, 200)
  const cookie = login.cookie
  const viaSession = await get(path, { cookie })
  assert.is(viaSession.statusCode, 200)
  assert.ok(viaSession.rawPayload.equals(wav))

  assert.is((await get(path, admin.auth)).statusCode, 200)
  const denied = await get(path, stranger.auth)
  assert.is(denied.statusCode, 404)
  assert.equal(JSON.parse(denied.body), { detail: 'Not found.' })
  const anonymous = await get(path)
  assert.is(anonymous.statusCode, 401)
  assert.is(anonymous.headers['www-authenticate'], 'Basic realm="api"')
})

test('single ranges answer 206 with Content-Range: first bytes, middle, open end, suffix', async () => {
  const size = wav.length
  const cases: Array<[string, number, number]> = [
    ['bytes=0-43', 0, 43],
    ['bytes=1000-1999', 1000, 1999],
    [`bytes=${size - 10}-`, size - 10, size - 1],
    ['bytes=-100', size - 100, size - 1],
    [`bytes=10-${size + 5000}`, 10, size - 1],
    [`bytes=-${size + 10}`, 0, size - 1],
  ]
  for (const [range, start, end] of cases) {
    const res = await get(path, { ...owner.auth, range })
    assert.is(res.statusCode, 206, range)
    assert.is(res.headers['content-range'], `bytes ${start}-${end}/${size}`)
    assert.is(Number(res.headers['content-length']), end - start + 1)
    assert.ok(res.rawPayload.equals(wav.subarray(start, end + 1)), range)
  }
})

test('unsatisfiable ranges are 416 with the size; other units, malformed and multiple ranges get the whole file', async () => {
  const size = wav.length
  for (const range of [
    `bytes=${size}-`,
    `bytes=${size + 100}-${size + 200}`,
    'bytes=500-100',
    'bytes=-0',
    'bytes=abc',
  ]) {
    const res = await get(path, { ...owner.auth, range })
    assert.is(res.statusCode, 416, range)
    assert.is(res.headers['content-range'], `bytes */${size}`)
    assert.equal(JSON.parse(res.body), { detail: 'Requested range not satisfiable.' })
  }
  for (const range of ['items=0-10', 'bytes 0-10', 'bytes=0-10,20-30']) {
    const res = await get(path, { ...owner.auth, range })
    assert.is(res.statusCode, 200, range)
    assert.is(res.rawPayload.length, size)
  }
  // a stranger learns nothing from a range either
  assert.is((await get(path, { ...stranger.auth, range: 'bytes=0-10' })).statusCode, 404)
})

test('names that are not stored names, traversal attempts and unknown names are 404', async () => {
  const attempts = [
    '/media/',
    '/media/nothing.wav',
    '/media/../package.json',
    '/media/..%2F..%2Fpackage.json',
    '/media/%2e%2e/%2e%2e/etc/passwd',
    '/media/.incoming/x.part',
    `${path}/..`,
    `${path}%00`,
    '/media//etc/passwd',
    `/media/${encodeURIComponent(path.slice('/media/'.length))}`.replace('%2F', '%2f') + 'x',
  ]
  for (const url of attempts) {
    const res = await get(url, admin.auth)
    assert.is(res.statusCode, 404, url)
  }
})

test.run()
