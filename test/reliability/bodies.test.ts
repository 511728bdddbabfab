import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { MAX_JSON_DEPTH, nestingBeyond } from '../../server/http/body.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { multipart } from '../helpers/upload.js'

// Bodies are bounded before they are parsed: the routes that answer callers
// not yet authenticated take at most 8 KiB, and JSON nested deeper than 64
// levels is refused without building it. Requests too broken to reach a route
// get a `{"detail": …}` body like every other error.

const t = suiteApp(test)
let alice: TestUser
let port: number

test.before(async () => {
  alice = await t.user('alice')
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  port = (t.app.server.address() as AddressInfo).port
})

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

test('a 30 MB nested body to the token route is 413, whatever its declared type', async () => {
  const body = nested(15 * 1024 * 1024)
  for (const type of ['application/json', 'application/x-www-form-urlencoded', 'text/plain']) {
    const res = await t.call('POST', '/api-token-auth/', { body, headers: { 'content-type': type } })
    assert.equal([res.statusCode, res.data], [413, { detail: 'Request body is too large.' }], type)
  }
  const login = await t.call('POST', '/api-auth/login/', { body, headers: { 'content-type': 'application/json' } })
  assert.is(login.statusCode, 413)
})

test('multipart to the login routes: small fields work, a file or a large body is 413', async () => {
  const ok = multipart({ username: 'alice', password: alice.password })
  const res = await t.app.inject({ method: 'POST', url: '/api-token-auth/', payload: ok.payload, headers: ok.headers })
  assert.equal([res.statusCode, JSON.parse(res.body).token], [200, alice.token])
  const withFile = multipart({
    username: 'alice',
    password: alice.password,
    file: { data: Buffer.alloc(100), filename: 'x.bin' },
  })
  const file = await t.app.inject({
    method: 'POST',
    url: '/api-token-auth/',
    payload: withFile.payload,
    headers: withFile.headers,
  })
  assert.is(file.statusCode, 413)
  const big = multipart({ username: 'alice', password: 'x'.repeat(20_000) })
  const large = await t.app.inject({
    method: 'POST',
    url: '/api-token-auth/',
    payload: big.payload,
    headers: big.headers,
  })
  assert.is(large.statusCode, 413)
})

test('JSON nested deeper than 64 levels is 400 with a detail; 64 levels are parsed as usual', async () => {
  const json = { 'content-type': 'application/json' }
  const deep = await t.call('POST', '/api/v0/tag/', { as: alice, body: `{"a": ${nested(100)}}`, headers: json })
  assert.is(deep.statusCode, 400)
  assert.match(deep.data.detail, /^JSON parse error - nested deeper than 64 levels/)
  const deepTokenLogin = await t.call('POST', '/api-token-auth/', { body: nested(100), headers: json })
  assert.equal([deepTokenLogin.statusCode, typeof deepTokenLogin.data.detail], [400, 'string'])
  // within the limit: the request is answered on its merits (here, field errors)
  const fine = await t.call('POST', '/api/v0/tag/', {
    as: alice,
    body: `{"a": ${nested(MAX_JSON_DEPTH - 1)}}`,
    headers: json,
  })
  assert.is(fine.statusCode, 400)
  assert.not.ok(typeof fine.data.detail === 'string' && /nested/.test(fine.data.detail))
})

test('nesting is counted outside strings only', () => {
  assert.is(nestingBeyond(JSON.stringify({ s: '['.repeat(500), t: '{{{{"\\"[[[' }), 3), 0)
  assert.is(nestingBeyond('[[[[', 3), 4)
  assert.is(nestingBeyond('{"a":[{"b":[1]}]}', 4), 0)
  assert.is(nestingBeyond('{"a":[{"b":[1]}]}', 3), 12)
})

/** What the server answers on a raw connection to `raw` bytes. */
function rawExchange(raw: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let answer = ''
    socket.setEncoding('utf8')
    socket.on('data', (d) => {
      answer += d
    })
    socket.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve(answer) : reject(err),
    )
    socket.on('close', () => resolve(answer))
    socket.end(raw)
  })
}

function parseAnswer(answer: string): { status: number; type: string; body: unknown } {
  const [head, body] = answer.split('\r\n\r\n')
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
    type: /content-type: ([^\r\n]+)/i.exec(head)?.[1] ?? '',
    body: JSON.parse(body),
  }
}

test('malformed HTTP is answered with a {"detail": …} body: garbage request line, bad Content-Length, 20 KB header', async () => {
  const garbage = parseAnswer(await rawExchange('GARBAGE\x01 NOT HTTP\r\n\r\n'))
  assert.equal([garbage.status, garbage.type], [400, 'application/json'])
  assert.equal(garbage.body, { detail: 'Malformed request.' })

  const length = parseAnswer(
    await rawExchange('POST /api/v0/tag/ HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n{}'),
  )
  assert.equal([length.status, length.body], [400, { detail: 'Malformed request: invalid Content-Length.' }])

  const header = parseAnswer(
    await rawExchange(`GET /api/v0/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`),
  )
  assert.equal([header.status, header.body], [431, { detail: 'Request header fields too large.' }])

  // and the server goes on serving
  const ok = await fetch(`http://127.0.0.1:${port}/api/v0/library/`, { headers: alice.auth })
  assert.is(ok.status, 200)
})

test.run()
