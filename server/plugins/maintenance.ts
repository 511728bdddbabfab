import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { startMaintenance } from '../maintenance.js'

// The housekeeping timers of a running server (see server/maintenance.ts), stopped when the app closes.

async function maintenance(app: FastifyInstance) {
  const stop = startMaintenance(app.db, app.config, app.storage, app.log)
  app.addHook('onClose', async () => {
    stop()
  })
}

export default fp(maintenance, { name: 'maintenance', decorators: { fastify: ['config', 'db', 'storage'] } })
