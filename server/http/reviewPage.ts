import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'

// GET /review/: the review page (README, "Reviewing machine tags"), a page of plain web components served as
// they are written (page/review/: no build step, nothing fetched from elsewhere). It speaks the API with the
// browser's session, so it shows and allows exactly what the caller's permissions do; the files themselves
// hold nothing of anybody's data and need no login (the page logs in).

export const REVIEW_PREFIX = '/review/'

const FILES: Record<string, string> = {
  '': 'text/html; charset=utf-8',
  'review.js': 'text/javascript; charset=utf-8',
  'review.css': 'text/css; charset=utf-8',
}

const folder = new URL('../../../page/review/', import.meta.url)

export function registerReviewPage(app: FastifyInstance): void {
  const texts = new Map(
    Object.keys(FILES).map((name) => [name, readFileSync(new URL(name || 'index.html', folder), 'utf8')]),
  )
  for (const [name, type] of Object.entries(FILES)) {
    app.get(`${REVIEW_PREFIX}${name}`, async (_req, reply) => {
      reply.type(type).header('cache-control', 'no-cache')
      return texts.get(name)
    })
  }
}
