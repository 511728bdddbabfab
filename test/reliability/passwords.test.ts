import { pbkdf2Sync } from 'node:crypto'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { buildApp } from '../../server/app.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { sessionLogin } from '../helpers/session.js'

// Every way of presenting a password (HTTP Basic on any route, the token
// endpoint, the session login) goes through one brute-force limit kept in the
// database — per address and username, and per address across usernames — and
// one password verification whether the user exists or not. A new password or
// a deactivation ends the user's tokens and sessions.

const t = suiteApp(test)
let carol: TestUser
let admin: TestUser
/** a second app on the same database: another server process or host */
let other: FastifyInstance

const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` })
const from = (address: string) => (o: InjectOptions) => t.app.inject({ ...o, remoteAddress: address })
const get = (address: string, headers: Record<string, string>, app: FastifyInstance = t.app) =>
  app.inject({ method: 'GET', url: '/api/v0/library/', headers, remoteAddress: address })
const tokenLogin = (address: string, username: string, password: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api-token-auth/',
    remoteAddress: address,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ username, password }),
  })

test.before(async () => {
  carol = await t.user('carol')
  admin = await t.user('admin', { admin: true })
  other = await buildApp({ database: t.database, config: t.app.config })
  t.beforeClose(() => other.close())
})

test('Basic auth: ten failures, then 429 with Retry-After before the password is checked; the real user elsewhere gets in', async () => {
  const address = '10.1.0.1'
  const codes: number[] = []
  for (let i = 0; i < 10; i++) codes.push((await get(address, basic('carol', `wrong${i}`))).statusCode)
  assert.equal(codes, Array(10).fill(401))
  const limited = await get(address, basic('carol', carol.password))
  assert.is(limited.statusCode, 429)
  assert.ok(Number(limited.headers['retry-after']) >= 1 && Number(limited.headers['retry-after']) <= 60)
  assert.match(JSON.parse(limited.body).detail, /^Request was throttled\. Expected available in \d+ seconds?\.$/)
  assert.is((await get('10.1.0.2', basic('carol', carol.password))).statusCode, 200)
  // a token or a session is never throttled, from the throttled address too
  assert.is((await get(address, carol.auth)).statusCode, 200)
  const session = await sessionLogin(from('10.1.0.3'), 'carol', carol.password)
  assert.is((await get(address, { cookie: session.cookie })).statusCode, 200)
})

test('failures by Basic, token login and session login count together', async () => {
  const address = '10.2.0.1'
  for (let i = 0; i < 4; i++) assert.is((await get(address, basic('carol', `nope${i}`))).statusCode, 401)
  for (let i = 0; i < 3; i++) assert.is((await tokenLogin(address, 'carol', `nope${i}`)).statusCode, 400)
  for (let i = 0; i < 3; i++)
    assert.is((await sessionLogin(from(address), 'carol', `nope${i}`)).response.statusCode, 400)
  assert.is((await tokenLogin(address, 'carol', carol.password)).statusCode, 429)
  assert.is((await sessionLogin(from(address), 'carol', carol.password)).response.statusCode, 429)
  assert.is((await get(address, basic('carol', carol.password))).statusCode, 429)
})

test('the limit is kept in the database: failures through two servers count together', async () => {
  const address = '10.3.0.1'
  for (let i = 0; i < 5; i++) assert.is((await get(address, basic('carol', `x${i}`))).statusCode, 401)
  for (let i = 0; i < 5; i++) assert.is((await get(address, basic('carol', `y${i}`), other)).statusCode, 401)
  assert.is((await get(address, basic('carol', carol.password))).statusCode, 429)
  assert.is((await get(address, basic('carol', carol.password), other)).statusCode, 429)
  const rows = await t.db.selectFrom('login_failures').select('pair').where('address', '=', address).execute()
  assert.is(rows.length, 10)
  assert.ok(
    rows.every((r) => !r.pair.includes('carol')),
    'usernames are kept only as digests',
  )
})

test('password spraying: fifty failures from one address across usernames, then 429 for any username', async () => {
  const address = '10.4.0.1'
  for (let i = 0; i < 50; i++) {
    const r = await get(address, basic(`user${i}`, 'Summer2026!'))
    assert.is(r.statusCode, 401, `attempt ${i}`)
  }
  assert.is((await get(address, basic('carol', carol.password))).statusCode, 429)
  assert.is((await tokenLogin(address, 'someone-new', 'Summer2026!')).statusCode, 429)
  assert.is((await get('10.4.0.2', basic('carol', carol.password))).statusCode, 200)
})

/** the password verifications made while `work` runs */
async function verificationsDuring(work: () => Promise<unknown>): Promise<number> {
  let seen = 0
  const listener = () => {
    seen++
  }
  subscribe('mas:password-verified', listener)
  try {
    await work()
  } finally {
    unsubscribe('mas:password-verified', listener)
  }
  return seen
}

test('100 concurrent wrong passwords for one user: at most 10 are checked, the rest 429', async () => {
  const address = '10.21.0.1'
  let codes: number[] = []
  const verified = await verificationsDuring(async () => {
    codes = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? get(address, basic('carol', `guess${i}`)) : tokenLogin(address, 'carol', `guess${i}`)).then(
          (r) => r.statusCode,
        ),
      ),
    )
  })
  const checked = codes.filter((c) => c !== 429)
  assert.ok(checked.length <= 10, `${checked.length} passwords checked: ${codes.join(',')}`)
  assert.ok(verified <= 10, `${verified} verifications`)
  assert.ok(checked.every((c) => c === 401 || c === 400))
  assert.is((await get(address, basic('carol', carol.password))).statusCode, 429)
})

test('100 concurrent guesses sprayed across usernames: at most 50 are checked', async () => {
  const address = '10.20.0.1'
  let codes: number[] = []
  const verified = await verificationsDuring(async () => {
    codes = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        get(address, basic(`sprayed${i}`, 'Winter2026!')).then((r) => r.statusCode),
      ),
    )
  })
  const checked = codes.filter((c) => c !== 429)
  assert.ok(checked.length <= 50, `${checked.length} passwords checked`)
  assert.ok(verified <= 50, `${verified} verifications`)
  assert.ok(checked.every((c) => c === 401))
  // a success forgives its own attempt: the right password from a fresh address, twice at once, is two 200s
  const right = await Promise.all([
    get('10.20.0.2', basic('carol', carol.password)),
    get('10.20.0.2', basic('carol', carol.password)),
  ])
  assert.equal(
    right.map((r) => r.statusCode),
    [200, 200],
  )
  assert.is(
    (await t.db.selectFrom('login_failures').select('id').where('address', '=', '10.20.0.2').execute()).length,
    0,
  )
})

test('an unknown username costs one password verification, by every scheme', async () => {
  const seen: string[] = []
  const listener = (m: unknown) => {
    seen.push((m as { scheme: string }).scheme)
  }
  subscribe('mas:password-verified', listener)
  try {
    await get('10.5.0.1', basic('nobody-here', 'guess'))
    await tokenLogin('10.5.0.1', 'nobody-here', 'guess')
    await sessionLogin(from('10.5.0.1'), 'nobody-here', 'guess')
    assert.equal(seen, ['scrypt', 'scrypt', 'scrypt'])
    seen.length = 0
    await get('10.5.0.2', basic('carol', 'wrong'))
    await tokenLogin('10.5.0.2', 'carol', 'wrong')
    assert.equal(seen, ['scrypt', 'scrypt'])
  } finally {
    unsubscribe('mas:password-verified', listener)
  }
})

test('a Django pbkdf2_sha256 hash is replaced by scrypt at the first successful login, and keeps working', async () => {
  const hash = pbkdf2Sync('secret', 'abc', 1000, 32, 'sha256').toString('base64')
  await t.db
    .insertInto('users')
    .values({ username: 'imported', password: `pbkdf2_sha256$1000$abc$${hash}`, date_joined: '2020-01-01 00:00:00' })
    .execute()
  const stored = async () =>
    (await t.db.selectFrom('users').select('password').where('username', '=', 'imported').executeTakeFirstOrThrow())
      .password
  assert.is((await tokenLogin('10.6.0.1', 'imported', 'wrong')).statusCode, 400)
  assert.match(await stored(), /^pbkdf2_sha256\$/)
  assert.is((await tokenLogin('10.6.0.1', 'imported', 'secret')).statusCode, 200)
  assert.match(await stored(), /^scrypt\$16384\$8\$1\$/)
  assert.is((await get('10.6.0.1', basic('imported', 'secret'))).statusCode, 200)
  assert.is((await tokenLogin('10.6.0.1', 'imported', 'secret')).statusCode, 200)
})

test("a new password or a deactivation ends the user's tokens and sessions; the next login issues a new token", async () => {
  const dora = await t.user('dora')
  const session = await sessionLogin(from('10.7.0.1'), 'dora', dora.password)
  assert.is((await get('10.7.0.1', { cookie: session.cookie })).statusCode, 200)
  const changed = await t.call('PATCH', `/api/v0/user/${dora.id}/`, { as: admin, body: { password: 'dora-new-pass' } })
  assert.is(changed.statusCode, 200)
  const old = await get('10.7.0.1', dora.auth)
  assert.equal([old.statusCode, JSON.parse(old.body).detail], [401, 'Invalid token.'])
  assert.is((await get('10.7.0.1', { cookie: session.cookie })).statusCode, 401)
  const fresh = await tokenLogin('10.7.0.1', 'dora', 'dora-new-pass')
  const token = JSON.parse(fresh.body).token
  assert.match(token, /^[0-9a-f]{40}$/)
  assert.is.not(token, dora.token)
  assert.is((await get('10.7.0.1', { authorization: `Token ${token}` })).statusCode, 200)

  const again = await sessionLogin(from('10.7.0.1'), 'dora', 'dora-new-pass')
  assert.is(
    (await t.call('PATCH', `/api/v0/user/${dora.id}/`, { as: admin, body: { is_active: false } })).statusCode,
    200,
  )
  assert.is((await get('10.7.0.1', { authorization: `Token ${token}` })).statusCode, 401)
  assert.is((await get('10.7.0.1', { cookie: again.cookie })).statusCode, 401)
  const left = await t.db.selectFrom('tokens').select('key').where('user_id', '=', dora.id).execute()
  const sessions = await t.db.selectFrom('sessions').select('key').where('user_id', '=', dora.id).execute()
  assert.equal([left.length, sessions.length], [0, 0])
  // other users' tokens are untouched
  assert.is((await get('10.7.0.1', carol.auth)).statusCode, 200)
})

test('login CSRF: the session login needs the csrftoken cookie echoed, and rotates it; logout by POST too', async () => {
  const address = '10.8.0.1'
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
  const post = (headers: Record<string, string>, fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: '/api-auth/login/',
      remoteAddress: address,
      payload: form(fields),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    })
  const csrfFailed = { detail: 'CSRF Failed: CSRF token missing or incorrect.' }
  const bare = await post({}, { username: 'carol', password: carol.password })
  assert.equal([bare.statusCode, JSON.parse(bare.body)], [403, csrfFailed])
  assert.ok(![bare.headers['set-cookie']].flat().some((c) => String(c).startsWith('sessionid=')))

  const page = await t.app.inject({ method: 'GET', url: '/api-auth/login/', remoteAddress: address })
  const token = /csrftoken=([A-Za-z0-9]+)/.exec(String(page.headers['set-cookie']))![1]
  assert.match(page.body, new RegExp(`name="csrfmiddlewaretoken" value="${token}"`))
  const nearMiss = token.slice(0, -1) + (token.endsWith('a') ? 'b' : 'a')
  const wrong = await post(
    { cookie: `csrftoken=${token}` },
    { csrfmiddlewaretoken: nearMiss, username: 'carol', password: carol.password },
  )
  assert.is(wrong.statusCode, 403)
  const viaHeader = await post(
    { cookie: `csrftoken=${token}`, 'x-csrftoken': token },
    { username: 'carol', password: carol.password },
  )
  assert.is(viaHeader.statusCode, 200)
  const rotated = /csrftoken=([A-Za-z0-9]+)/.exec(String(viaHeader.headers['set-cookie']))![1]
  assert.is.not(rotated, token)

  const session = await sessionLogin(from(address), 'carol', carol.password)
  const noCsrf = await t.app.inject({ method: 'POST', url: '/api-auth/logout/', headers: { cookie: session.cookie } })
  assert.is(noCsrf.statusCode, 403)
  assert.is((await get(address, { cookie: session.cookie })).statusCode, 200)
  const out = await t.app.inject({ method: 'GET', url: '/api-auth/logout/', headers: { cookie: session.cookie } })
  assert.is(out.statusCode, 200)
  assert.is((await get(address, { cookie: session.cookie })).statusCode, 401)
})

test.run()
