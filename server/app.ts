import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import multipart from '@fastify/multipart'
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify'
import { authEndpoints } from './auth/routes.js'
import { configFromEnv, type AppConfig } from './config.js'
import type { Database } from './db/database.js'
import { registerBodyParsers } from './http/body.js'
import { answerClientError } from './http/clientErrors.js'
import { registerEndpoint, requestOrigin, type Endpoint } from './http/endpoint.js'
import { registerMediaRoutes } from './media/serve.js'
import { ApiError, tooLarge, unsupportedMediaType } from './http/errors.js'
import { InFlight } from './http/inFlight.js'
import { startMaintenance } from './maintenance.js'
import { listenForCallerChanges } from './auth/callerNotifications.js'
import { schemaEndpoints } from './http/schema.js'
import { cutOffSlowBodies } from './http/slowClients.js'
import { resourceEndpoints } from './resources/index.js'
import { API } from './resources/resource.js'

export interface BuildOptions {
  database: Database
  config?: Partial<AppConfig>
  logger?: FastifyServerOptions['logger']
  /** close the database when the app closes (the server command does; tests share theirs) */
  ownsDatabase?: boolean
}

/** Headers, body fields and cookies that never reach a log line. */
export const REDACT = [
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrftoken"]',
  'res.headers["set-cookie"]', 'password', 'token', '*.password', '*.token',
]

/** What the app serves: every route as registered, and the endpoint table behind most of them. */
export interface RouteTable {
  routes: Array<{ url: string; methods: string[] }>
  endpoints: Endpoint[]
}

declare module 'fastify' {
  interface FastifyInstance { routeTable: RouteTable; config: AppConfig }
}

export async function buildApp(opts: BuildOptions): Promise<FastifyInstance> {
  const config = configFromEnv(process.env, opts.config)
  const db = opts.database.db
  const headersMs = config.headersTimeoutSeconds * 1000
  const app = Fastify({
    logger: withRedaction(opts.logger),
    // a path that is not valid percent-encoded UTF-8, or an id longer than any id: a missing record
    frameworkErrors: (_error, _req, reply) => { (reply as FastifyReply).code(404).send({ detail: 'Not found.' }) },
    // a request too broken to reach a route still gets a `{"detail": …}` body
    clientErrorHandler: answerClientError,
    trustProxy: config.trustProxy,
    bodyLimit: config.maxBodyBytes,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    requestIdHeader: false,
    // Slow clients: headers must be complete within headersTimeout, a socket
    // silent for idleTimeout is closed, and a body must keep a minimum rate
    // (cutOffSlowBodies). No cap on a whole request's duration, so an upload
    // of a large file over a slow but steady link still completes.
    connectionTimeout: config.idleTimeoutSeconds * 1000,
    requestTimeout: 0,
    http: { headersTimeout: headersMs, connectionsCheckingInterval: Math.max(100, Math.min(headersMs / 4, 5000)) },
  })
  app.decorate('config', config)
  const routeTable: RouteTable = { routes: [], endpoints: [] }
  app.decorate('routeTable', routeTable)
  // a request counts from its headers until its connection is done with it, and its handler until it
  // returns (it may go on after a client has left)
  const inFlight = new InFlight()
  app.addHook('onRequest', (req, reply, done) => {
    reply.raw.once('close', inFlight.begin())
    done()
  })
  app.addHook('onRoute', (r) => {
    routeTable.routes.push({ url: r.url, methods: ([] as string[]).concat(r.method) })
    const handler = r.handler
    r.handler = function (this: unknown, req, reply) { return inFlight.run(() => handler.call(this as any, req, reply)) }
  })
  cutOffSlowBodies(app, { minBytesPerSecond: config.minBodyBytesPerSecond, windowSeconds: config.bodyRateWindowSeconds })

  await app.register(cookie)
  // no limit of its own: a route's (the app's, or a login route's smaller one) holds
  await app.register(formbody)
  await app.register(multipart, {
    limits: { fileSize: config.maxUploadBytes, files: 1, fields: 50, fieldSize: 1024 * 1024, parts: 60 },
  })
  registerBodyParsers(app)

  // answers sent while the app closes end their connection, so a client's kept-alive connection does not
  // hold the close up until it times out
  let closing = false
  app.addHook('preClose', async () => { closing = true })
  app.addHook('onSend', async (_req, reply) => {
    if (closing) reply.header('Connection', 'close')
    reply.header('X-Content-Type-Options', 'nosniff')
    reply.header('X-Frame-Options', 'DENY')
    reply.header('Referrer-Policy', 'same-origin')
  })

  app.setErrorHandler((error: FastifyError | ApiError, req, reply) => {
    const allow = (req.routeOptions?.config as { allow?: string } | undefined)?.allow
    if (allow) reply.header('Allow', allow)
    const api = asApiError(error as FastifyError, req.headers['content-type'])
    if (api) {
      reply.headers(api.headers)
      return reply.code(api.statusCode).send(api.body)
    }
    req.log.error({ err: error, reqId: req.id }, 'unexpected error')
    return reply.code(500).send({ detail: 'A server error occurred.' })
  })
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ detail: 'Not found.' }))

  const endpoints: Endpoint[] = [
    ...authEndpoints(),
    ...resourceEndpoints,
    apiRoot(resourceEndpoints),
    healthEndpoint,
  ]
  endpoints.push(...schemaEndpoints(() => endpoints))
  routeTable.endpoints = endpoints
  for (const ep of endpoints) registerEndpoint(app, ep, { db, config })
  registerMediaRoutes(app, { db, config })

  const stopMaintenance = startMaintenance(db, config, app.log)
  app.addHook('onClose', async () => { stopMaintenance() })
  // stopped before closing begins, so never after the database it listens to (requests still in flight
  // then remember no callers, which costs them a query each and nothing else)
  const stopListening = listenForCallerChanges(opts.database.url, db, app.log)
  app.addHook('preClose', async () => { await stopListening() })
  if (opts.ownsDatabase) {
    app.addHook('onClose', async () => {
      await inFlight.idle(CLOSE_WAIT_MS)
      await opts.database.close()
    })
  }
  return app
}

/** how long closing waits for handlers still running before it closes the database under them */
const CLOSE_WAIT_MS = 10_000

/** Logger options with secrets redacted (unless the caller chose its own redaction). */
function withRedaction(logger: BuildOptions['logger']): BuildOptions['logger'] {
  if (!logger) return false
  const base = logger === true ? {} : logger
  return 'redact' in base ? base : { ...base, redact: { paths: REDACT, censor: '[redacted]' } }
}

/** GET /healthz: answers when the server can reach its database. */
const healthEndpoint: Endpoint = {
  path: '/healthz',
  name: 'Health',
  auth: false,
  methods: {
    GET: async (ctx) => {
      await ctx.db.selectFrom('job_status_types').select('id').limit(1).execute()
      return { body: { status: 'ok' } }
    },
  },
  doc: {
    keys: ['healthz'], actions: { GET: 'read' }, openapiOnly: true, description: 'The server is up and reaches its database.',
    success: { GET: [{ status: 200, description: 'ok', body: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } } }] },
  },
}

/** GET /api/v0/: the resource names and their list URLs, as DRF's router root shows them. */
function apiRoot(endpoints: Endpoint[]): Endpoint {
  const names = endpoints
    .map((e) => /^\/api\/v0\/([A-Za-z]+)\/$/.exec(e.path)?.[1])
    .filter((n): n is string => !!n)
  return {
    path: `${API}/`,
    name: 'Api Root',
    description: 'The default basic root view for DefaultRouter',
    methods: {
      GET: async (ctx) => ({ body: Object.fromEntries(names.map((n) => [n, `${requestOrigin(ctx.req)}${API}/${n}/`])) }),
    },
    doc: {
      keys: ['root'], actions: { GET: 'read' }, openapiOnly: true, description: 'The list URL of every resource, by name.',
      success: { GET: [{ status: 200, description: 'Resource names to list URLs', body: { type: 'object', additionalProperties: { type: 'string' } } }] },
    },
  }
}

/** Errors raised by fastify, its plugins or the database, as the API's error shapes; null for a real 500. */
function asApiError(error: FastifyError & { code?: string }, contentType?: string): ApiError | null {
  if (error instanceof ApiError) return error
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return tooLarge(error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'Request body is too large.' : error.message)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(String(contentType ?? '').split(';')[0].trim())
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return unsupportedMediaType(String(contentType ?? '').split(';')[0].trim())
    case '23505': // unique_violation
      return new ApiError(400, { non_field_errors: ['A record with these values already exists.'] })
    case '23503': // foreign_key_violation
      return new ApiError(400, { non_field_errors: ['A referenced record does not exist.'] })
    case '22P02': case '22003': case '22007': case '22008': case '22021': case '54000':
      return new ApiError(400, { non_field_errors: ['Invalid value.'] })
  }
  // busboy's own errors on a malformed multipart body (no boundary, cut short...) carry no code
  if (/^Multipart: |multipart data|Boundary required|Malformed part header/i.test(error.message ?? '')) {
    return new ApiError(400, { detail: `Multipart form parse error - ${error.message}` })
  }
  const status = (error as FastifyError).statusCode
  if (status && status >= 400 && status < 500) return new ApiError(status, { detail: error.message })
  return null
}
