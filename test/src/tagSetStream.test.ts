import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ApiClient } from '../../src/api.js'
import { tagSetTagPages } from '../../src/tagSetStream.js'

// mas tag export reads a tag set from a mas server's NDJSON export in one answer, and from a server without it
// (the original, which answers 404 there) by paging tagSet/{id}/tags/: the same tags either way.

const TAGS = Array.from({ length: 2500 }, (_, i) => ({ id: i + 1, tagSet: 7, startTime: i }))

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; paths: string[]; close: () => Promise<void> }> {
  const paths: string[] = []
  const server = createServer((req, res) => {
    paths.push(req.url!.split('?')[0])
    handler(req, res)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    close: () => new Promise((r) => server.close(() => r())),
  }
}

/** The original's pages of tagSet/7/tags/, 1,000 a page (what the client asks for), and a 404 elsewhere. */
function paged(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url!, 'http://x')
  if (url.pathname !== '/api/v0/tagSet/7/tags/') {
    res.writeHead(404, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ detail: 'Not found.' }))
    return
  }
  const page = Number(url.searchParams.get('page') ?? 1)
  const size = Number(url.searchParams.get('page_size'))
  const next =
    page * size < TAGS.length
      ? `http://${req.headers.host}/api/v0/tagSet/7/tags/?page=${page + 1}&page_size=${size}`
      : null
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(
    JSON.stringify({ count: TAGS.length, next, previous: null, results: TAGS.slice((page - 1) * size, page * size) }),
  )
}

async function exported(url: string): Promise<{ tags: unknown[]; count?: number }> {
  const tags: unknown[] = []
  let count: number | undefined
  for await (const batch of tagSetTagPages(new ApiClient({ server: url, token: 't' }), 7, (n) => {
    count = n
  }))
    tags.push(...batch)
  return { tags, count }
}

test('a server that answers tags.ndjson is read in one answer', async () => {
  const s = await serve((req, res) => {
    if (req.url !== '/api/v0/tagSet/7/tags.ndjson') return paged(req, res)
    res.writeHead(200, { 'content-type': 'application/x-ndjson', 'x-total-count': String(TAGS.length) })
    res.end(TAGS.map((t) => `${JSON.stringify(t)}\n`).join(''))
  })
  try {
    assert.equal(await exported(s.url), { tags: TAGS, count: TAGS.length })
    assert.equal(s.paths, ['/api/v0/tagSet/7/tags.ndjson'])
  } finally {
    await s.close()
  }
})

test('a server without it (404) is paged through tagSet/{id}/tags/', async () => {
  const s = await serve(paged)
  try {
    assert.equal(await exported(s.url), { tags: TAGS, count: TAGS.length })
    assert.equal(s.paths, [
      '/api/v0/tagSet/7/tags.ndjson',
      '/api/v0/tagSet/7/tags/',
      '/api/v0/tagSet/7/tags/',
      '/api/v0/tagSet/7/tags/',
    ])
  } finally {
    await s.close()
  }
})

test.run()
