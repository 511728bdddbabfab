import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

// The headers of the original's answers where following them costs nothing (docs/decisions.md §15): JSON as
// `application/json` without a charset (JSON is UTF-8 by definition), and `Vary: Accept, Cookie` on the
// API's paths, as DRF's content negotiation and Django's sessions add it.

const FASTIFY_JSON = 'application/json; charset=utf-8'

async function wireHeaders(app: FastifyInstance) {
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.getHeader('content-type') === FASTIFY_JSON) reply.header('content-type', 'application/json')
    if (req.url.startsWith('/api')) reply.header('Vary', 'Accept, Cookie')
    return payload
  })
}

export default fp(wireHeaders, { name: 'wire-headers' })
