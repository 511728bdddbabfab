import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { refusalReason } from '../http/refusalReason.js'

// The reason of each refused request (4xx), read from the answer as it is sent, for its log line
// (server/log.ts): whichever handler refused it, the body the client read is what the log says.

declare module 'fastify' {
  interface FastifyRequest {
    refusal: string | null
  }
}

async function refusalReasons(app: FastifyInstance) {
  app.decorateRequest('refusal', null)
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode >= 400 && reply.statusCode < 500) req.refusal = refusalReason(payload)
    return payload
  })
}

export default fp(refusalReasons, { name: 'refusal-reasons' })
