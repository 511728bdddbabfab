import { Writable } from 'node:stream'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { buildApp } from '../../server/app.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { sessionLogin } from '../helpers/session.js'

// Secrets stay secret: never in a log line, cookies a script cannot read and a
// browser sends only over HTTPS when served so, CSRF and token checks that
// accept only the exact secret. (The CLI's profile file modes: test/cli/auth.test.ts.)

const t = suiteApp(test)
let alice: TestUser
let admin: TestUser
let logged = ''
let logApp: FastifyInstance
let proxied: FastifyInstance

test.before(async () => {
  alice = await t.user('alice', { password: 'alice-Secret-Pass-0001' })
  admin = await t.user('admin', { admin: true })
  const stream = new Writable({
    write(chunk, _enc, cb) {
      logged += chunk.toString()
      cb()
    },
  })
  logApp = await buildApp({ database: t.database, config: t.app.config, logger: { level: 'trace', stream } })
  t.beforeClose(() => logApp.close())
  proxied = await buildApp({ database: t.database, config: { ...t.app.config, trustProxy: true } })
  t.beforeClose(() => proxied.close())
})

test('passwords, tokens, session keys and CSRF tokens never reach a log line', async () => {
  const password = 'alice-Secret-Pass-0001'
  const newPassword = 'brand-New-Secret-0002'
  const inject = (o: InjectOptions) => logApp.inject(o)
  const form = (o: Record<string, string>) => new URLSearchParams(o).toString()
  const json = { 'content-type': 'application/json' }

  const token = JSON.parse(
    (
      await inject({
        method: 'POST',
        url: '/api-token-auth/',
        headers: json,
        payload: JSON.stringify({ username: 'alice', password }),
      })
    ).body,
  ).token
  await inject({
    method: 'POST',
    url: '/api-token-auth/',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({ username: 'alice', password }),
  })
  await inject({
    method: 'POST',
    url: '/api-token-auth/',
    headers: json,
    payload: JSON.stringify({ username: 'alice', password: `${password}-wrong` }),
  })
  await inject({ method: 'GET', url: '/api/v0/library/', headers: { authorization: `Token ${token}` } })
  await inject({
    method: 'GET',
    url: '/api/v0/library/',
    headers: { authorization: `Basic ${Buffer.from(`alice:${password}`).toString('base64')}` },
  })
  await inject({ method: 'GET', url: '/api/v0/library/', headers: { authorization: `Token ${token.slice(0, 39)}0` } })
  const login = await sessionLogin(inject, 'alice', password)
  const session = login.cookies.sessionid
  const csrf = login.cookies.csrftoken
  await inject({
    method: 'POST',
    url: '/api/v0/library/',
    headers: { ...json, cookie: `sessionid=${session}; csrftoken=${csrf}`, 'x-csrftoken': csrf },
    payload: JSON.stringify({ name: 'via session' }),
  })
  await inject({
    method: 'POST',
    url: '/api/v0/library/',
    headers: { ...json, cookie: `sessionid=${session}; csrftoken=${csrf}` },
    payload: JSON.stringify({ name: 'no csrf' }),
  })
  const created = await inject({
    method: 'POST',
    url: '/api/v0/user/',
    headers: { ...json, ...admin.auth },
    payload: JSON.stringify({ username: 'carol', password: newPassword }),
  })
  assert.is(created.statusCode, 201, created.body)
  await inject({
    method: 'PATCH',
    url: `/api/v0/user/${JSON.parse(created.body).id}/`,
    headers: { ...json, ...admin.auth },
    payload: JSON.stringify({ password: `${newPassword}-again` }),
  })
  await inject({
    method: 'POST',
    url: '/api/v0/library/',
    headers: { ...json, ...admin.auth },
    payload: `{"name": "${password}", `,
  })

  assert.match(logged, /incoming request/)
  assert.match(logged, /request completed/)
  for (const secret of [
    password,
    newPassword,
    token,
    session,
    csrf,
    admin.token,
    Buffer.from(`alice:${password}`).toString('base64'),
  ]) {
    assert.not.ok(logged.includes(secret), `a secret in the log: ${secret.slice(0, 6)}...`)
  }
})

test('a logger with headers in its request lines still has Authorization and Cookie redacted', async () => {
  let lines = ''
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines += chunk.toString()
      cb()
    },
  })
  const app = await buildApp({
    database: t.database,
    config: t.app.config,
    logger: {
      level: 'info',
      stream,
      serializers: { req: (req: any) => ({ method: req.method, url: req.url, headers: req.headers }) },
    },
  })
  await app.inject({
    method: 'GET',
    url: '/api/v0/library/',
    headers: { ...alice.auth, cookie: 'sessionid=abcdef0123456789; csrftoken=zyxw9876', 'x-csrftoken': 'zyxw9876' },
  })
  await app.close()
  assert.match(lines, /"url":"\/api\/v0\/library\/"/)
  assert.match(lines, /\[redacted\]/)
  for (const secret of [alice.token, 'abcdef0123456789', 'zyxw9876']) assert.not.ok(lines.includes(secret), secret)
})

test('the session cookie is HttpOnly and SameSite=Lax; Secure only when served over HTTPS behind a trusted proxy', async () => {
  const plain = (await sessionLogin((o) => t.app.inject(o), 'alice', alice.password)).setCookie
  const session = plain.find((c) => c.startsWith('sessionid='))!
  assert.match(session, /; HttpOnly/i)
  assert.match(session, /; SameSite=Lax/i)
  assert.not.match(session, /; Secure/i)
  assert.match(
    plain.find((c) => c.startsWith('csrftoken='))!,
    /; SameSite=Lax/i,
  )

  // X-Forwarded-Proto is believed only with MAS_TRUST_PROXY
  const forwarded = { headers: { 'x-forwarded-proto': 'https' } }
  const spoofed = (await sessionLogin((o) => t.app.inject(o), 'alice', alice.password, forwarded)).setCookie
  assert.ok(spoofed.every((c) => !/; Secure/i.test(c)))
  const https = (await sessionLogin((o) => proxied.inject(o), 'alice', alice.password, forwarded)).setCookie
  assert.is(https.length, 2)
  for (const c of https) assert.match(c, /; Secure/i)
  assert.match(
    https.find((c) => c.startsWith('sessionid='))!,
    /; HttpOnly/i,
  )
})

test('CSRF and tokens: only the exact secret passes, a near miss of any length is refused', async () => {
  const { cookies } = await sessionLogin((o) => t.app.inject(o), 'alice', alice.password)
  const session = cookies.sessionid
  const csrf = cookies.csrftoken
  const post = (header: string | undefined) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v0/library/',
      payload: JSON.stringify({ name: `csrf-${header?.length}` }),
      headers: {
        'content-type': 'application/json',
        cookie: `sessionid=${session}; csrftoken=${csrf}`,
        ...(header === undefined ? {} : { 'x-csrftoken': header }),
      },
    })
  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'a' ? 'b' : 'a') + s.slice(i + 1)
  for (const near of [
    undefined,
    '',
    csrf.slice(0, -1),
    `${csrf}0`,
    flip(csrf, 0),
    flip(csrf, csrf.length - 1),
    csrf.toUpperCase(),
    `${csrf} `,
  ]) {
    const r = await post(near)
    assert.is(r.statusCode, 403, String(near))
    assert.equal(JSON.parse(r.body), { detail: 'CSRF Failed: CSRF token missing or incorrect.' })
  }
  assert.is((await post(csrf)).statusCode, 201)

  for (const near of [
    flip(alice.token, 0),
    flip(alice.token, 39),
    alice.token.slice(0, 39),
    `${alice.token}0`,
    alice.token.toUpperCase(),
  ]) {
    const r = await t.call('GET', '/api/v0/library/', { headers: { authorization: `Token ${near}` } })
    assert.is(r.statusCode, 401, near)
  }
  assert.is((await t.call('GET', '/api/v0/library/', { as: alice })).statusCode, 200)
})

test('no X-Powered-By or server banner on any kind of answer', async () => {
  for (const [method, url, as] of [
    ['GET', '/api/v0/library/', alice],
    ['GET', '/api/v0/library/', undefined],
    ['GET', '/nowhere', undefined],
    ['OPTIONS', '/api/v0/tag/', undefined],
    ['GET', '/healthz', undefined],
    ['POST', '/api/v0/tag/', alice],
  ] as const) {
    const res = await t.call(method, url, {
      as,
      body: method === 'POST' ? '{' : undefined,
      headers: method === 'POST' ? { 'content-type': 'application/json' } : {},
    })
    assert.is(res.headers['x-powered-by'], undefined)
    assert.is(res.headers.server, undefined)
    assert.is(res.headers['x-content-type-options'], 'nosniff')
  }
})

test.run()
