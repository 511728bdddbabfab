import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import FormData from 'form-data'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ApiClient, ApiError, ConnectionError, describeError, mapLimit, normalizeServer } from '../../src/api.js'

// The client against a real HTTP server that answers like the original service
// (JSON labelled text/html), pages, and fails now and then.

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void

async function serve(handler: Handler): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => {
      body += c
    })
    req.on('end', () => handler(req, res, body))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  }
}

const html = (res: ServerResponse, status: number, data: unknown) => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' })
  res.end(JSON.stringify(data))
}

test('JSON sent as text/html is parsed; the token goes in the Authorization header', async () => {
  let auth: string | undefined
  const s = await serve((req, res) => {
    auth = req.headers.authorization
    html(res, 200, { id: 1, name: 'x' })
  })
  try {
    const api = new ApiClient({ server: s.url, token: 'abc' })
    assert.equal(await api.get('library/1/'), { id: 1, name: 'x' })
    assert.is(auth, 'Token abc')
  } finally {
    await s.close()
  }
})

test('all() follows next links across every page', async () => {
  const s = await serve((req, res) => {
    const url = new URL(req.url!, 'http://x')
    const page = Number(url.searchParams.get('page') ?? 1)
    const next = page < 3 ? `http://${req.headers.host}/api/v0/tag/?page=${page + 1}` : null
    html(res, 200, { count: 5, next, previous: null, results: page < 3 ? [page * 2 - 1, page * 2] : [5] })
  })
  try {
    assert.equal(await new ApiClient({ server: s.url }).all('tag/'), [1, 2, 3, 4, 5])
  } finally {
    await s.close()
  }
})

test('all() with pages ahead asks for several numbered pages at once and keeps their order; other lists follow next', async () => {
  let open = 0
  let most = 0
  const asked: number[] = []
  const s = await serve((req, res) => {
    const url = new URL(req.url!, 'http://x')
    const page = Number(url.searchParams.get('page') ?? 1)
    asked.push(page)
    open++
    most = Math.max(most, open)
    // later pages answer sooner than earlier ones
    setTimeout(
      () => {
        open--
        const first = (page - 1) * 3 + 1
        const results = Array.from({ length: Math.min(3, 20 - first + 1) }, (_r, i) => first + i)
        const next = page < 7 ? `http://${req.headers.host}/api/v0/tagReview/?page=${page + 1}&tagSet=1` : null
        html(res, 200, { count: 20, next, previous: null, results })
      },
      page === 1 ? 0 : 40 - 5 * page,
    )
  })
  const cursor = await serve((req, res) => {
    const url = new URL(req.url!, 'http://x')
    const at = url.searchParams.get('cursor')
    const next = at === null ? `http://${req.headers.host}/api/v0/tagReview/?cursor=b` : null
    html(res, 200, { count: 4, next, previous: null, results: at === null ? [1, 2] : [3, 4] })
  })
  try {
    const api = new ApiClient({ server: s.url })
    const all = Array.from({ length: 20 }, (_r, i) => i + 1)
    assert.equal(await api.all('tagReview/', {}, undefined, undefined, 4), all)
    assert.is(most, 4)
    assert.equal(
      [...asked].sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7],
    )
    asked.length = 0
    most = 0
    assert.equal(await api.all('tagReview/'), all)
    assert.is(most, 1)
    assert.equal(asked, [1, 2, 3, 4, 5, 6, 7])
    assert.equal(
      await new ApiClient({ server: cursor.url }).all('tagReview/', {}, undefined, undefined, 4),
      [1, 2, 3, 4],
    )
  } finally {
    await s.close()
    await cursor.close()
  }
})

test('502/503/504 are retried for idempotent requests and not for a plain POST', async () => {
  let calls = 0
  const s = await serve((_req, res) => {
    calls++
    calls < 3 ? html(res, 503, { detail: 'busy' }) : html(res, 200, { ok: true })
  })
  try {
    const api = new ApiClient({ server: s.url, retries: 4, backoffMs: 1 })
    assert.equal(await api.get('x/'), { ok: true })
    assert.is(calls, 3)
    calls = 0
    try {
      await api.post('x/', {})
      assert.unreachable()
    } catch (err) {
      assert.instance(err, ApiError)
      assert.is((err as ApiError).status, 503)
    }
    assert.is(calls, 1)
    calls = 0
    assert.equal(await api.post('x/', {}, { retry: true }), { ok: true })
  } finally {
    await s.close()
  }
})

test('an unreachable server is a ConnectionError naming it', async () => {
  const api = new ApiClient({ server: 'http://127.0.0.1:9', retries: 1, backoffMs: 1 })
  try {
    await api.get('x/')
    assert.unreachable()
  } catch (err) {
    assert.instance(err, ConnectionError)
    assert.match((err as Error).message, /^Cannot reach the server at http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/)
  }
})

test('upload sends the multipart form with the token, retries 503 and a dropped connection with a fresh body, and reads the answer', async () => {
  const bytes = Buffer.alloc(300_000, 7)
  const received: { auth?: string; type?: string; length: number; hasFile: boolean }[] = []
  let calls = 0
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      calls++
      const body = Buffer.concat(chunks)
      received.push({
        auth: req.headers.authorization,
        type: req.headers['content-type'],
        length: Number(req.headers['content-length']),
        hasFile: body.includes(bytes),
      })
      if (calls === 1) return html(res, 503, { detail: 'busy' })
      if (calls === 2) return req.socket.destroy()
      html(res, 201, { id: 42, alias: 'a.wav' })
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    const api = new ApiClient({ server: url, token: 'abc', retries: 4, backoffMs: 1 })
    let built = 0
    const answer = await api.upload(
      'library/1/mediaFiles/import/',
      () => {
        built++
        const form = new FormData()
        form.append('alias', 'a.wav')
        form.append('file', bytes, { filename: 'a.wav', knownLength: bytes.length })
        return form
      },
      { retry: true },
    )
    assert.is(answer.status, 201)
    assert.equal(answer.data, { id: 42, alias: 'a.wav' })
    assert.is(built, 3)
    for (const r of received) {
      assert.is(r.auth, 'Token abc')
      assert.match(String(r.type), /^multipart\/form-data; boundary=/)
      assert.ok(r.length > bytes.length)
      assert.ok(r.hasFile)
    }
    // without retry, the first answer is the answer
    calls = 0
    const plain = () => {
      const form = new FormData()
      form.append('alias', 'b.wav')
      return form
    }
    assert.is((await api.upload('x/', plain)).status, 503)
    assert.is(calls, 1)
  } finally {
    await new Promise((r) => server.close(r))
  }
})

test('an upload to an unreachable server is a ConnectionError naming it', async () => {
  const api = new ApiClient({ server: 'http://127.0.0.1:9', retries: 1, backoffMs: 1 })
  try {
    await api.upload('x/', () => new FormData(), { retry: true })
    assert.unreachable()
  } catch (err) {
    assert.instance(err, ConnectionError)
    assert.match((err as Error).message, /^Cannot reach the server at http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/)
  }
})

test('error answers become one line: 401 says run mas login, field errors per field', () => {
  assert.is(describeError(401, { detail: 'Invalid token.' }), 'Not authenticated (Invalid token.): run mas login')
  assert.is(describeError(403, { detail: 'No.' }), 'Forbidden: No.')
  assert.is(describeError(404, { detail: 'Not found.' }), 'Not found.')
  // a 404 on a record's path names the record
  const missing = (path: string, body: unknown = { detail: 'Not found.' }) =>
    new ApiError(404, body, 'GET', `http://h/api/v0/${path}`).message
  assert.is(missing('mediaFile/99999/'), 'media file 99999 not found')
  assert.is(missing('library/3/mediaFiles/'), 'library 3 not found')
  assert.is(missing('userSettings/4/'), 'user settings 4 not found')
  assert.is(missing('jobs/7/', undefined), 'job 7 not found')
  assert.is(
    missing('tag/5/', { detail: 'Tag class 9 is not in this library.' }),
    'Not found: Tag class 9 is not in this library.',
  )
  assert.is(missing('tag/'), 'Not found.')
  assert.is(
    describeError(400, { name: ['This field is required.'], library: ['Invalid pk "9" - object does not exist.'] }),
    'Rejected (400): name: This field is required.; library: Invalid pk "9" - object does not exist.',
  )
  assert.is(
    describeError(400, [{}, { startTime: ['A valid number is required.'] }]),
    'Rejected (400): item 2: startTime: A valid number is required.',
  )
  assert.is(describeError(500, '<html>oops</html>'), 'Server error (500)')
})

test('server addresses are normalised; mapLimit keeps order and the limit', async () => {
  assert.is(normalizeServer('example.org:8000/'), 'http://example.org:8000')
  assert.is(normalizeServer('https://x.org/api/v0/'), 'https://x.org')
  let running = 0
  let peak = 0
  const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
    running++
    peak = Math.max(peak, running)
    await new Promise((r) => setTimeout(r, n))
    running--
    return n * 10
  })
  assert.equal(out, [50, 10, 40, 20, 30])
  assert.is(peak, 2)
})

test.run()
