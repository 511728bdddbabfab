import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

// Headers on every answer: no content sniffing, no framing, no referrer beyond
// this origin. Answers sent while the app closes end their connection, so a
// client's kept-alive connection does not hold the close up until it times out.

async function securityHeaders(app: FastifyInstance) {
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onSend', async (_req, reply) => {
    if (closing) reply.header('Connection', 'close')
    reply.header('X-Content-Type-Options', 'nosniff')
    reply.header('X-Frame-Options', 'DENY')
    reply.header('Referrer-Policy', 'same-origin')
  })
}

export default fp(securityHeaders, { name: 'security-headers' })
