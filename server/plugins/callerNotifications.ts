import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { listenForCallerChanges } from '../auth/callerNotifications.js'

// Hears of changes to users, tokens and sessions made by any process (see
// server/auth/callerNotifications.ts), so remembered callers are dropped within
// a second everywhere. Stopped before closing begins, so never after the
// database it listens to (requests still in flight then remember no callers,
// which costs them a query each and nothing else).

async function callerNotifications(app: FastifyInstance, opts: { databaseUrl: string }) {
  const stopListening = listenForCallerChanges(opts.databaseUrl, app.services.callers, app.log)
  app.addHook('preClose', async () => {
    await stopListening()
  })
}

export default fp(callerNotifications, { name: 'caller-notifications', decorators: { fastify: ['services'] } })
