import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { InFlight } from '../http/inFlight.js'

// Counts what is still being answered, so that closing the app can wait for it
// before it closes the database (docs/architecture.md, "The app"): a request
// counts from its headers until its connection is done with it, and its handler
// until it returns (it may go on after a client has left).

declare module 'fastify' {
  interface FastifyInstance {
    inFlight: InFlight
  }
}

async function inFlightTracking(app: FastifyInstance) {
  const inFlight = new InFlight()
  app.decorate('inFlight', inFlight)
  app.addHook('onRequest', (_req, reply, done) => {
    reply.raw.once('close', inFlight.request())
    done()
  })
  app.addHook('onRoute', (route) => {
    const handler = route.handler
    route.handler = function (this: FastifyInstance, req, reply) {
      return inFlight.run(() => handler.call(this, req, reply))
    }
  })
}

export default fp(inFlightTracking, { name: 'in-flight' })
