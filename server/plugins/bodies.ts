import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import multipart from '@fastify/multipart'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { registerBodyParsers } from '../http/body.js'
import { cutOffSlowBodies } from '../http/slowClients.js'

// What a request may carry and how it is read: cookies, form and multipart
// bodies (one file part at most, of at most the upload limit), JSON with our
// own parser, and a minimum rate for every body (docs/architecture.md, "The app").

async function bodies(app: FastifyInstance) {
  const { config } = app
  cutOffSlowBodies(app, {
    minBytesPerSecond: config.minBodyBytesPerSecond,
    windowSeconds: config.bodyRateWindowSeconds,
  })
  await app.register(cookie)
  // no limit of its own: a route's (the app's, or a login route's smaller one) holds
  await app.register(formbody)
  await app.register(multipart, {
    limits: { fileSize: config.maxUploadBytes, files: 1, fields: 50, fieldSize: 1024 * 1024, parts: 60 },
  })
  registerBodyParsers(app)
}

export default fp(bodies, { name: 'bodies', decorators: { fastify: ['config'] } })
