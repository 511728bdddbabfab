import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ApiClient } from '../../src/api.js'
import { tagSetReviews, tagSetTagPages } from '../../src/tagSetStream.js'

// mas tag export reads a tag set, and the decisions on its tags, from a mas server's NDJSON exports in one answer
// each, and from a server without them (the original, which answers 404 there) by paging tagSet/{id}/tags/ and
// tagReview/?tagSet=: the same records either way, the decisions in id order.

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

/** The original's pages of a list at `path` (and `query`), as many a page as the client asks for, and a 404 elsewhere. */
function pagesOf(path: string, query: Record<string, string>, records: readonly unknown[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://x')
    if (url.pathname !== path || Object.entries(query).some(([k, v]) => url.searchParams.get(k) !== v)) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ detail: 'Not found.' }))
      return
    }
    const page = Number(url.searchParams.get('page') ?? 1)
    const size = Number(url.searchParams.get('page_size'))
    const next = new URL(`http://${req.headers.host}${path}`)
    for (const [k, v] of Object.entries({ ...query, page: String(page + 1), page_size: String(size) }))
      next.searchParams.set(k, v)
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        count: records.length,
        next: page * size < records.length ? next.toString() : null,
        previous: null,
        results: records.slice((page - 1) * size, page * size),
      }),
    )
  }
}

/** The original's pages of tagSet/7/tags/. */
const paged = pagesOf('/api/v0/tagSet/7/tags/', {}, TAGS)

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

/** decisions of two reviewers, the second's written later: by id they are not grouped by tag */
const REVIEWS = [
  ...Array.from({ length: 1500 }, (_, i) => ({ id: i + 1, tag: i + 1, user: 1, decision: 'yes' })),
  ...Array.from({ length: 700 }, (_, i) => ({ id: 1501 + i, tag: 700 - i, user: 2, decision: 'no' })),
]

/** The original's pages of tagReview/?tagSet=7. */
const reviewPages = pagesOf('/api/v0/tagReview/', { tagSet: '7' }, REVIEWS)

test("a server that answers reviews.ndjson is read in one answer, its decisions (a tag's together) put in id order", async () => {
  const byTag = [...REVIEWS].sort((a, b) => a.tag - b.tag || a.id - b.id)
  const s = await serve((req, res) => {
    if (req.url !== '/api/v0/tagSet/7/reviews.ndjson') return reviewPages(req, res)
    res.writeHead(200, { 'content-type': 'application/x-ndjson', 'x-total-count': String(REVIEWS.length) })
    res.end(byTag.map((r) => `${JSON.stringify(r)}\n`).join(''))
  })
  try {
    assert.equal(await tagSetReviews(new ApiClient({ server: s.url, token: 't' }), 7), REVIEWS)
    assert.equal(s.paths, ['/api/v0/tagSet/7/reviews.ndjson'])
  } finally {
    await s.close()
  }
})

test('a server without it (404) is paged through tagReview/?tagSet=', async () => {
  const s = await serve(reviewPages)
  try {
    assert.equal(await tagSetReviews(new ApiClient({ server: s.url, token: 't' }), 7, 2), REVIEWS)
    assert.equal(s.paths, [
      '/api/v0/tagSet/7/reviews.ndjson',
      '/api/v0/tagReview/',
      '/api/v0/tagReview/',
      '/api/v0/tagReview/',
    ])
  } finally {
    await s.close()
  }
})

test.run()
