import type { FastifyInstance } from 'fastify'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { buildApp } from '../../server/app.js'
import { ConfigError, parseTrustProxy, type TrustProxy } from '../../server/config.js'
import { api, suiteApp, type TestUser } from '../helpers/app.js'
import { makeLibrary } from '../helpers/records.js'

// MAS_TRUST_PROXY names the proxies whose X-Forwarded-* headers are believed (addresses, CIDR ranges or a
// number of hops); the client is the rightmost address that is not one of them. Headers forged by a
// client, whether it comes straight or through a trusted proxy, never choose the address the login limit
// counts against, nor the host of next/previous URLs.

const t = suiteApp(test)
let dana: TestUser
const apps: FastifyInstance[] = []
const PROXY = '10.9.0.1'

async function appTrusting(trustProxy: TrustProxy): Promise<FastifyInstance> {
  const app = await buildApp({ database: t.database, config: { ...t.app.config, trustProxy } })
  apps.push(app)
  return app
}

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`
function attempt(app: FastifyInstance, peer: string, forwardedFor: string | undefined, password: string) {
  return app
    .inject({
      method: 'GET',
      url: api('library/'),
      remoteAddress: peer,
      headers: { authorization: basic('dana', password), ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    })
    .then((r) => r.statusCode)
}

test.before(async () => {
  dana = await t.user('dana')
  await makeLibrary(t.db, dana)
  await makeLibrary(t.db, dana)
  t.beforeClose(async () => {
    for (const app of apps) await app.close()
  })
})

test('MAS_TRUST_PROXY takes addresses and CIDR ranges, a hop count, true or false; anything else is refused in one line', () => {
  assert.equal(parseTrustProxy('10.0.0.5, 10.1.0.0/16,::1'), ['10.0.0.5', '10.1.0.0/16', '::1'])
  assert.is(parseTrustProxy('2'), 2)
  assert.is(parseTrustProxy('true'), true)
  for (const off of [undefined, '', 'false', 'no']) assert.is(parseTrustProxy(off), false)
  for (const bad of ['banana', '10.0.0.0/33', '10.0.0.1,nope', '10.0.0/8', 'fe80::/129']) {
    assert.throws(
      () => parseTrustProxy(bad),
      (e: Error) => e instanceof ConfigError && /^MAS_TRUST_PROXY must be/.test(e.message) && !e.message.includes('\n'),
      bad,
    )
  }
})

test('a client straight to the server: a forged X-Forwarded-For changes nothing, the limit holds', async () => {
  const app = await appTrusting([PROXY])
  const codes: number[] = []
  for (let i = 0; i < 12; i++) codes.push(await attempt(app, '198.51.100.7', `192.0.2.${i}`, `wrong${i}`))
  assert.equal(codes, [...Array(10).fill(401), 429, 429])
  assert.is(await attempt(app, '198.51.100.7', '192.0.2.200', dana.password), 429)
  const rows = await t.db
    .selectFrom('login_failures')
    .select('address')
    .distinct()
    .where('address', 'like', '19%')
    .execute()
  assert.equal(
    rows.map((r) => r.address),
    ['198.51.100.7'],
  )
})

test('through a trusted proxy: the client is the rightmost untrusted hop, whatever it put to the left', async () => {
  const app = await appTrusting(['10.9.0.0/24'])
  const codes: number[] = []
  for (let i = 0; i < 12; i++) codes.push(await attempt(app, PROXY, `192.0.2.${i}, 203.0.113.5, 10.9.0.7`, `wrong${i}`))
  assert.equal(codes, [...Array(10).fill(401), 429, 429])
  // another client through the same proxy is served
  assert.is(await attempt(app, PROXY, '203.0.113.6', dana.password), 200)
  const rows = await t.db
    .selectFrom('login_failures')
    .select('address')
    .distinct()
    .where('address', 'like', '203.%')
    .execute()
  assert.equal(
    rows.map((r) => r.address),
    ['203.0.113.5'],
  )
})

test('a hop count: the given number of nearest peers are proxies', async () => {
  const app = await appTrusting(1)
  const codes: number[] = []
  for (let i = 0; i < 11; i++) codes.push(await attempt(app, '10.10.0.1', `192.0.2.${i}, 203.0.113.40`, `wrong${i}`))
  assert.equal(codes, [...Array(10).fill(401), 429])
  assert.is(await attempt(app, '10.10.0.1', '203.0.113.41', dana.password), 200)
})

test('next/previous URLs follow X-Forwarded-Host and -Proto from a trusted proxy only', async () => {
  const app = await appTrusting([PROXY])
  const page = async (peer: string) =>
    JSON.parse(
      (
        await app.inject({
          method: 'GET',
          url: api('library/?page_size=1'),
          remoteAddress: peer,
          headers: {
            ...dana.auth,
            host: 'mas.internal',
            'x-forwarded-host': 'data.example.org',
            'x-forwarded-proto': 'https',
          },
        })
      ).body,
    ).next as string
  assert.match(await page(PROXY), /^https:\/\/data\.example\.org\/api\/v0\/library\/\?/)
  assert.match(await page('198.51.100.8'), /^http:\/\/mas\.internal\/api\/v0\/library\/\?/)
})

test.run()
