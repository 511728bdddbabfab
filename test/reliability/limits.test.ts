import { connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { buildApp } from '../../server/app.js'
import { scanJson } from '../../server/http/body.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { multipart as rawMultipart } from '../helpers/hostile.js'
import { importMedia, multipart, storedFiles } from '../helpers/upload.js'
import { makeWav } from '../helpers/wav.js'
import { databaseState, makeRecords } from '../helpers/world.js'

// Every limit answers with its status and leaves nothing behind, and a client
// that holds a connection open by trickling bytes is cut off while the server
// keeps answering everyone else. Small limits here; the defaults are in config.

const BODY_LIMIT = 64 * 1024
const UPLOAD_LIMIT = 256 * 1024

const t = suiteApp(test, {
  maxBodyBytes: BODY_LIMIT,
  maxUploadBytes: UPLOAD_LIMIT,
  headersTimeoutSeconds: 1,
  minBodyBytesPerSecond: 64,
  bodyRateWindowSeconds: 1,
})
let alice: TestUser
let base: string
let refs: { tagSet: number; mediaFile: number; tagClass: number; library: number }

test.before(async () => {
  const { owner, ...records } = await makeRecords(t, 'alice')
  alice = owner
  refs = records
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
})

const tag = (i: number) => ({ ...refs, startTime: i, endTime: i + 1, minFrequency: 10, maxFrequency: 20 })

test('a JSON, form or other body over the limit is 413 {detail} and writes nothing', async () => {
  const before = await databaseState(t)
  const many = Array.from({ length: 2000 }, (_, i) => tag(i))
  const json = await t.call('POST', '/api/v0/tag/', { as: alice, body: many })
  assert.ok(JSON.stringify(many).length > BODY_LIMIT)
  assert.is(json.statusCode, 413)
  assert.equal(Object.keys(json.data), ['detail'])
  const form = await t.call('POST', '/api/v0/library/', {
    as: alice,
    body: `name=${'x'.repeat(BODY_LIMIT)}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  assert.is(form.statusCode, 413)
  const other = await t.call('POST', '/api/v0/library/', {
    as: alice,
    body: 'x'.repeat(BODY_LIMIT + 1),
    headers: { 'content-type': 'text/plain' },
  })
  assert.is(other.statusCode, 413)
  assert.is(await databaseState(t), before)
  // just under the limit is fine
  const fits = await t.call('POST', '/api/v0/tag/', { as: alice, body: many.slice(0, 100) })
  assert.is(fits.statusCode, 201, fits.body)
})

test('a bulk request over MAS_MAX_BULK_ITEMS is 413 naming the limit, before it is parsed; one at the limit is taken', async () => {
  const app = await buildApp({ database: t.database, config: { ...t.app.config, maxBulkItems: 5 } })
  t.beforeClose(() => app.close())
  const before = await databaseState(t)
  const post = (body: unknown) =>
    app.inject({
      method: 'POST',
      url: '/api/v0/tag/',
      headers: { ...alice.auth, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    })
  const over = await post(Array.from({ length: 6 }, (_, i) => tag(5000 + i)))
  assert.equal(
    [over.statusCode, JSON.parse(over.body)],
    [413, { detail: 'A bulk request takes at most 5 items (MAS_MAX_BULK_ITEMS); this one has 6.' }],
  )
  assert.is(await databaseState(t), before)
  assert.is((await post(Array.from({ length: 5 }, (_, i) => tag(5000 + i)))).statusCode, 201)
  // the default, 10,000: an array past it is refused whatever its items (here too small to be valid)
  const items = '{},'.repeat(10_001).slice(0, -1)
  const big = await t.app.inject({
    method: 'POST',
    url: '/api/v0/tag/',
    headers: { ...alice.auth, 'content-type': 'application/json' },
    payload: `[${items}]`,
  })
  assert.is(big.statusCode, 413, big.body)
  assert.match(JSON.parse(big.body).detail, /at most 10000 items/)
  const atLimit = await t.app.inject({
    method: 'POST',
    url: '/api/v0/tag/',
    headers: { ...alice.auth, 'content-type': 'application/json' },
    payload: `[${'{},'.repeat(10_000).slice(0, -1)}]`,
  })
  assert.is(atLimit.statusCode, 400)
})

test('scanning JSON counts the items of a top-level array only', () => {
  const items = (text: string) => scanJson(text, 64).items
  assert.is(items('[]'), 0)
  assert.is(items(' [ ] '), 0)
  assert.is(items('[1]'), 1)
  assert.is(items('[{"a":[1,2,3],"b":"x,y"},"[,]",[4,5]]'), 3)
  assert.is(items('{"a":[1,2]}'), -1)
  assert.is(items('"[1,2]"'), -1)
})

test('multipart: too many parts, too many fields, an oversized field or file is 413; nothing is stored', async () => {
  const before = await databaseState(t)
  const files = storedFiles(t)
  const url = `/api/v0/library/${refs.library}/mediaFiles/import/`
  const wav = makeWav({ seconds: 0.1 })
  const send = (payload: Buffer, boundary = 'LimitBoundary') =>
    t.app.inject({
      method: 'POST',
      url,
      payload,
      headers: { ...alice.auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
    })

  const manyParts = rawMultipart(
    [
      ...Array.from({ length: 70 }, (_, i) => ({ name: `p${i}`, content: 'v' })),
      { name: 'file', filename: 'a.wav', content: wav },
    ],
    'LimitBoundary',
    false,
  )
  const parts = await send(manyParts)
  assert.is(parts.statusCode, 413, parts.body)
  assert.equal(Object.keys(JSON.parse(parts.body)), ['detail'])

  const bigField = rawMultipart(
    [
      { name: 'alias', content: 'a'.repeat(1024 * 1024 + 10) },
      { name: 'file', filename: 'a.wav', content: wav },
    ],
    'LimitBoundary',
    false,
  )
  const field = await t.app.inject({
    method: 'POST',
    url: '/api/v0/library/',
    payload: bigField,
    headers: { ...alice.auth, 'content-type': 'multipart/form-data; boundary=LimitBoundary' },
  })
  assert.is(field.statusCode, 413, field.body)
  // beside a file (an import): refused naming the part, not imported under the file's name
  const fieldWithFile = await send(bigField)
  assert.equal(
    [fieldWithFile.statusCode, JSON.parse(fieldWithFile.body)],
    [413, { detail: 'The field "alias" is too large.' }],
  )

  const big = await importMedia(t, alice, refs.library, Buffer.concat([wav, Buffer.alloc(UPLOAD_LIMIT)]))
  assert.is(big.statusCode, 413, big.body)

  const twoFiles = multipart({ file: { data: wav, filename: 'a.wav' }, other: { data: wav, filename: 'b.wav' } })
  const two = await t.app.inject({
    method: 'POST',
    url,
    payload: twoFiles.payload,
    headers: { ...twoFiles.headers, ...alice.auth },
  })
  assert.is(two.statusCode, 413, two.body)

  assert.is(await databaseState(t), before)
  assert.equal(storedFiles(t), files)
})

test('page_size is capped at 1000; junk page sizes fall back to 100', async () => {
  const rows = Array.from({ length: 1005 }, (_, i) => ({
    user_id: alice.id,
    creation_date: '2026-01-01 00:00:00',
    tag_class_id: refs.tagClass,
    tag_set_id: refs.tagSet,
    media_file_id: refs.mediaFile,
    start_time: i,
    end_time: i + 1,
    min_frequency: 1,
    max_frequency: 2,
    strength: 0,
  }))
  await t.db.insertInto('tags').values(rows).execute()
  const huge = await t.call('GET', '/api/v0/tag/?page_size=1000000', { as: alice })
  assert.is(huge.statusCode, 200)
  assert.is(huge.data.results.length, 1000)
  assert.ok(huge.data.count > 1000)
  assert.match(huge.data.next, /page=2/)
  for (const junk of ['0', '-5', 'abc', '1e3', '']) {
    const res = await t.call('GET', `/api/v0/tag/?page_size=${junk}`, { as: alice })
    assert.is(res.statusCode, 200)
    assert.is(res.data.results.length, 100, junk)
  }
})

/** A raw connection that writes `text` one byte per `everyMs`; resolves with what the server answered when it closed. */
function trickle(text: string, everyMs: number): { done: Promise<{ answer: string; sent: number }>; socket: Socket } {
  const url = new URL(base)
  const socket = connect(Number(url.port), url.hostname)
  let answer = ''
  let sent = 0
  let closed = false
  socket.on('data', (d) => {
    answer += d.toString()
  })
  socket.on('error', () => {})
  const done = new Promise<{ answer: string; sent: number }>((resolve) => {
    socket.on('close', () => {
      closed = true
      resolve({ answer, sent })
    })
  })
  ;(async () => {
    await new Promise((r) => socket.once('connect', r))
    for (const ch of text) {
      if (closed) return
      socket.write(ch)
      sent++
      await delay(everyMs)
    }
  })().catch(() => {})
  return { done, socket }
}

/** A generous bound, far above the configured limits and below node's defaults (60 s), so a lost limit fails. */
const CUT_OFF_WITHIN_MS = 20_000

/** The server still answers others while `pending` has not settled (at least once), and `pending`'s result. */
async function servedMeanwhile<T>(pending: Promise<T>): Promise<{ result: T; served: number }> {
  let settled = false
  let served = 0
  let timer: NodeJS.Timeout | undefined
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the slow client was not cut off')), CUT_OFF_WITHIN_MS)
  })
  const watched = Promise.race([pending, bound]).finally(() => {
    settled = true
    clearTimeout(timer)
  })
  while (!settled || served === 0) {
    const res = await fetch(`${base}/api/v0/library/`, { headers: alice.auth })
    assert.is(res.status, 200)
    await res.arrayBuffer()
    served++
    await delay(100)
  }
  return { result: await watched, served }
}

test('headers sent a byte a second: the connection is cut off (408) while others are served', async () => {
  const headers = `GET /api/v0/library/ HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${alice.auth.authorization}\r\nX-Padding: ${'p'.repeat(200)}\r\n\r\n`
  const slow = trickle(headers, 1000)
  const { result, served } = await servedMeanwhile(slow.done)
  assert.ok(result.sent < headers.length, 'the whole request got through')
  assert.match(result.answer, /^HTTP\/1\.1 408/)
  assert.ok(served >= 1)
})

test('a body sent a byte a second is cut off, while a slow but steady upload completes', async () => {
  const body = JSON.stringify({ name: 'x'.repeat(500) })
  const head = `POST /api/v0/library/ HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${alice.auth.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
  const url = new URL(base)
  const socket = connect(Number(url.port), url.hostname)
  socket.on('error', () => {})
  await new Promise((r) => socket.once('connect', r))
  socket.write(head)
  let sent = 0
  let closed = false
  const done = new Promise<void>((resolve) =>
    socket.on('close', () => {
      closed = true
      resolve()
    }),
  )
  ;(async () => {
    for (const ch of body) {
      if (closed) return
      socket.write(ch)
      sent++
      await delay(1000)
    }
  })().catch(() => {})
  const { served } = await servedMeanwhile(done)
  assert.ok(sent < body.length, 'the trickled body got through')
  assert.ok(served >= 1)
  const count = Number(
    (
      await t.db
        .selectFrom('libraries')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('name', '=', 'x'.repeat(500))
        .executeTakeFirstOrThrow()
    ).n,
  )
  assert.is(count, 0)

  // 200 bytes every 100 ms is well above the minimum rate: the request completes
  const steady = JSON.stringify({ name: 'steady-library', padding: 's'.repeat(3000) })
  const res = await new Promise<string>((resolve, reject) => {
    const s = connect(Number(url.port), url.hostname)
    let answer = ''
    s.on('data', (d) => {
      answer += d.toString()
      if (answer.includes('\r\n\r\n')) {
        resolve(answer)
        s.destroy()
      }
    })
    s.on('error', reject)
    s.once('connect', () => void sendSlowly().catch(reject))
    const sendSlowly = async () => {
      s.write(
        `POST /api/v0/library/ HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${alice.auth.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${steady.length}\r\n\r\n`,
      )
      for (let i = 0; i < steady.length; i += 200) {
        s.write(steady.slice(i, i + 200))
        await delay(100)
      }
    }
  })
  assert.match(res, /^HTTP\/1\.1 201/)
})

test.run()
