import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { InjectOptions } from 'fastify'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { sessionLogin } from '../../helpers/session.js'

const t = suiteApp(test, { loginFailures: 3, loginWindowSeconds: 60 })
let alice: TestUser
let admin: TestUser

const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` })
const inject = (o: InjectOptions) => t.app.inject(o)

test.before(async () => {
  alice = await t.user('alice')
  admin = await t.user('admin', { admin: true })
})

test('token endpoint answers the same token for form and JSON bodies, every time', async () => {
  const form = await t.call('POST', '/api-token-auth/', {
    body: 'username=alice&password=alice-pass',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  assert.is(form.statusCode, 200)
  assert.is(form.headers.allow, 'POST, OPTIONS')
  assert.match(form.data.token, /^[0-9a-f]{40}$/)
  assert.is(form.data.token, alice.token)
  const json = await t.call('POST', '/api-token-auth/', { body: { username: 'alice', password: 'alice-pass' } })
  assert.equal(json.data, { token: alice.token })
})

test('concurrent first token requests for one user get one token', async () => {
  const bob = await t.user('bob-first')
  await t.db.deleteFrom('tokens').where('user_id', '=', bob.id).execute()
  const answers = await Promise.all(
    Array.from({ length: 8 }, () =>
      t.call('POST', '/api-token-auth/', { body: { username: 'bob-first', password: 'bob-first-pass' } }),
    ),
  )
  assert.equal(
    new Set(answers.map((a) => a.data.token)).size,
    1,
    JSON.stringify(answers.map((a) => [a.statusCode, a.data])),
  )
  const rows = await t.db.selectFrom('tokens').selectAll().where('user_id', '=', bob.id).execute()
  assert.is(rows.length, 1)
})

test('token endpoint errors: bad password, missing fields, GET', async () => {
  const bad = await t.call('POST', '/api-token-auth/', { body: { username: 'alice', password: 'nope' } })
  assert.is(bad.statusCode, 400)
  assert.equal(bad.data, { non_field_errors: ['Unable to log in with provided credentials.'] })
  const missing = await t.call('POST', '/api-token-auth/')
  assert.is(missing.statusCode, 400)
  assert.equal(missing.data, { username: ['This field is required.'], password: ['This field is required.'] })
  const get = await t.call('GET', '/api-token-auth/')
  assert.is(get.statusCode, 405)
  assert.equal(get.data, { detail: 'Method "GET" not allowed.' })
})

test('failed logins are throttled per address and username with 429 and Retry-After; others are not', async () => {
  await t.user('carol')
  for (let i = 0; i < 3; i++) {
    const r = await t.call('POST', '/api-token-auth/', { body: { username: 'carol', password: 'wrong' } })
    assert.is(r.statusCode, 400)
  }
  const limited = await t.call('POST', '/api-token-auth/', { body: { username: 'carol', password: 'carol-pass' } })
  assert.is(limited.statusCode, 429)
  assert.ok(Number(limited.headers['retry-after']) >= 1)
  assert.match(limited.data.detail, /^Request was throttled\. Expected available in \d+ seconds?\.$/)
  // another username from the same address still logs in, and successes never count
  for (let i = 0; i < 5; i++) {
    const ok = await t.call('POST', '/api-token-auth/', { body: { username: 'alice', password: 'alice-pass' } })
    assert.is(ok.statusCode, 200)
  }
})

test('inactive users cannot authenticate by any scheme', async () => {
  const dave = await t.user('dave', { active: false })
  assert.is((await t.call('GET', '/api/v0/jobTypes/', { as: dave })).statusCode, 401)
  const viaBasic = await t.call('GET', '/api/v0/jobTypes/', { headers: basic('dave', 'dave-pass') })
  assert.is(viaBasic.statusCode, 401)
  const token = await t.call('POST', '/api-token-auth/', { body: { username: 'dave', password: 'dave-pass' } })
  assert.is(token.statusCode, 400)
})

test('HTTP Basic: accepted, wrong password and malformed headers rejected', async () => {
  const ok = await t.call('GET', '/api/v0/jobTypes/8/', { headers: basic('alice', 'alice-pass') })
  assert.is(ok.statusCode, 200)
  const wrong = await t.call('GET', '/api/v0/jobTypes/', { headers: basic('alice', 'wrong') })
  assert.is(wrong.statusCode, 401)
  assert.equal(wrong.data, { detail: 'Invalid username/password.' })
  const empty = await t.call('GET', '/api/v0/jobTypes/', { headers: { authorization: 'Basic' } })
  assert.equal(empty.data, { detail: 'Invalid basic header. No credentials provided.' })
})

test('Token header variants answer as DRF does', async () => {
  const unknown = await t.call('GET', '/api/v0/jobTypes/', { headers: { authorization: `Token ${'0'.repeat(40)}` } })
  assert.is(unknown.statusCode, 401)
  assert.equal(unknown.data, { detail: 'Invalid token.' })
  assert.is(unknown.headers['www-authenticate'], 'Basic realm="api"')
  const noKey = await t.call('GET', '/api/v0/jobTypes/', { headers: { authorization: 'Token' } })
  assert.equal(noKey.data, { detail: 'Invalid token header. No credentials provided.' })
  const spaces = await t.call('GET', '/api/v0/jobTypes/', { headers: { authorization: 'Token abc def' } })
  assert.equal(spaces.data, { detail: 'Invalid token header. Token string should not contain spaces.' })
  const bearer = await t.call('GET', '/api/v0/jobTypes/', { headers: { authorization: `Bearer ${alice.token}` } })
  assert.is(bearer.statusCode, 401)
  assert.equal(bearer.data, { detail: 'Authentication credentials were not provided.' })
})

test('session login sets HttpOnly sessionid and csrftoken; writes need X-CSRFToken; logout ends it', async () => {
  const login = await sessionLogin(inject, 'admin', 'admin-pass')
  assert.is(login.response.statusCode, 200)
  const session = login.setCookie.find((c) => c.startsWith('sessionid='))!
  assert.match(session, /HttpOnly/i)
  assert.match(session, /SameSite=Lax/i)
  const cookie = login.cookie
  const csrf = login.cookies.csrftoken
  assert.ok(csrf.length >= 32)

  const read = await t.call('GET', '/api/v0/user/', { headers: { cookie } })
  assert.is(read.statusCode, 200)

  const body = { username: 'erin', password: 'erin-pass' }
  const noCsrf = await t.call('POST', '/api/v0/user/', { body, headers: { cookie } })
  assert.is(noCsrf.statusCode, 403)
  assert.equal(noCsrf.data, { detail: 'CSRF Failed: CSRF token missing or incorrect.' })
  const wrongCsrf = await t.call('POST', '/api/v0/user/', {
    body,
    headers: { cookie, 'x-csrftoken': 'x'.repeat(csrf.length) },
  })
  assert.is(wrongCsrf.statusCode, 403)
  assert.is(await t.db.selectFrom('users').select('id').where('username', '=', 'erin').executeTakeFirst(), undefined)
  const withCsrf = await t.call('POST', '/api/v0/user/', { body, headers: { cookie, 'x-csrftoken': csrf } })
  assert.is(withCsrf.statusCode, 201)

  // token and basic callers never need CSRF
  const viaToken = await t.call('POST', '/api/v0/user/', {
    as: admin,
    body: { username: 'frank', password: 'frank-pass' },
  })
  assert.is(viaToken.statusCode, 201)

  const logout = await t.call('POST', '/api-auth/logout/', { headers: { cookie, 'x-csrftoken': csrf } })
  assert.is(logout.statusCode, 200)
  const after = await t.call('GET', '/api/v0/user/', { headers: { cookie } })
  assert.is(after.statusCode, 401)
})

test('session login with a next path redirects there; a foreign next is ignored', async () => {
  const go = (await sessionLogin(inject, 'alice', 'alice-pass', { fields: { next: '/api/v0/' } })).response
  assert.is(go.statusCode, 302)
  assert.is(go.headers.location, '/api/v0/')
  const foreign = (await sessionLogin(inject, 'alice', 'alice-pass', { fields: { next: '//evil.example/' } })).response
  assert.is(foreign.statusCode, 200)
  // what browsers would follow off-site once they drop tabs and newlines or read a backslash as a slash
  for (const next of [
    '/\t/evil.example',
    '/\n/evil.example',
    '/\r\n/evil.example',
    '/\\evil.example',
    '/a\\..\\..\\/evil.example',
    '/ /evil.example',
    '/\u0000/x',
    'https://evil.example/',
    'evil.example',
  ]) {
    const r = (await sessionLogin(inject, 'alice', 'alice-pass', { fields: { next } })).response
    assert.is(r.statusCode, 200, `next ${JSON.stringify(next)} redirected to ${r.headers.location}`)
    assert.is(r.headers.location, undefined)
  }
  const query = (await sessionLogin(inject, 'alice', 'alice-pass', { fields: { next: '/api/v0/tag/?page=2' } }))
    .response
  assert.equal([query.statusCode, query.headers.location], [302, '/api/v0/tag/?page=2'])
  const page = await t.call('GET', '/api-auth/login/')
  assert.is(page.statusCode, 200)
  assert.match(String(page.headers['content-type']), /text\/html/)
})

test('Django pbkdf2_sha256 hashes verify, so exported users can log in', async () => {
  // Django's hash of "secret" with salt "abc" and 1000 iterations
  const { pbkdf2Sync } = await import('node:crypto')
  const hash = pbkdf2Sync('secret', 'abc', 1000, 32, 'sha256').toString('base64')
  await t.db
    .insertInto('users')
    .values({ username: 'django', password: `pbkdf2_sha256$1000$abc$${hash}`, date_joined: '2020-01-01 00:00:00' })
    .execute()
  const ok = await t.call('POST', '/api-token-auth/', { body: { username: 'django', password: 'secret' } })
  assert.is(ok.statusCode, 200)
  const bad = await t.call('POST', '/api-token-auth/', { body: { username: 'django', password: 'Secret' } })
  assert.is(bad.statusCode, 400)
})

test('tokens and sessions are looked up by the sha256 of the secret', async () => {
  const { createHash } = await import('node:crypto')
  const row = await t.db
    .selectFrom('tokens')
    .select(['key', 'digest'])
    .where('user_id', '=', alice.id)
    .executeTakeFirstOrThrow()
  assert.is(row.digest, createHash('sha256').update(alice.token).digest('hex'))
  const session = (await sessionLogin(inject, 'alice', 'alice-pass')).cookies.sessionid
  const stored = await t.db.selectFrom('sessions').select('key').where('user_id', '=', alice.id).execute()
  assert.ok(stored.some((s) => s.key === createHash('sha256').update(session).digest('hex')))
  assert.not.ok(stored.some((s) => s.key === session))
})

test('passwords are stored as scrypt hashes, never in clear', async () => {
  const row = await t.db.selectFrom('users').select('password').where('id', '=', alice.id).executeTakeFirstOrThrow()
  assert.match(row.password, /^scrypt\$/)
  assert.not.match(row.password, /alice-pass/)
})

test.run()
