import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify'
import type { Kysely } from 'kysely'
import { configFromEnv, type AppConfig, type TrustProxy } from './config.js'
import type { Database } from './db/database.js'
import type { DB } from './db/schema.js'
import { openStorage, type Storage } from './storage/index.js'
import { answerClientError } from './http/clientErrors.js'
import { withoutFormatSuffix } from './http/formatSuffix.js'
import bodies from './plugins/bodies.js'
import callerNotifications from './plugins/callerNotifications.js'
import errorAnswers from './plugins/errors.js'
import inFlightTracking from './plugins/inFlight.js'
import maintenance from './plugins/maintenance.js'
import namesVersionCheck from './plugins/namesVersion.js'
import refusalReasons from './plugins/refusalReasons.js'
import routeTable from './plugins/routeTable.js'
import routes from './plugins/routes.js'
import securityHeaders from './plugins/securityHeaders.js'
import wireHeaders from './plugins/wireHeaders.js'
import { appServices, closeServices, type AppServices } from './services.js'

export type { RouteTable } from './plugins/routeTable.js'

// The app: server options from the configuration, then one plugin per concern
// (docs/architecture.md, "The app"). The database, the storage and the configuration
// reach plugins and handlers as decorators of the app.

export interface BuildOptions {
  database: Database
  config?: Partial<AppConfig>
  logger?: FastifyServerOptions['logger']
  /** how fastify logs requests: server/log.ts's one readable line per request, or fastify's own */
  logController?: FastifyServerOptions['logController']
  /** close the database when the app closes (the server command does; tests share theirs) */
  ownsDatabase?: boolean
  /** the storage the app uses, made from the one the configuration names (tests wrap it to watch its reads) */
  storage?: (configured: Storage) => Storage
}

/** Headers, body fields and cookies that never reach a log line. */
export const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrftoken"]',
  'res.headers["set-cookie"]',
  'password',
  'token',
  '*.password',
  '*.token',
]

declare module 'fastify' {
  interface FastifyInstance {
    config: AppConfig
    db: Kysely<DB>
    storage: Storage
    services: AppServices
  }
}

export async function buildApp(opts: BuildOptions): Promise<FastifyInstance> {
  const config = configFromEnv(process.env, opts.config)
  const headersMs = config.headersTimeoutSeconds * 1000
  const app = Fastify({
    logger: withRedaction(opts.logger),
    ...(opts.logController ? { logController: opts.logController } : {}),
    // a path that is not valid percent-encoded UTF-8, or an id longer than any id: a missing record
    frameworkErrors: (_error, _req, reply) => {
      ;(reply as FastifyReply).code(404).send({ detail: 'Not found.' })
    },
    // a request too broken to reach a route still gets a `{"detail": …}` body
    clientErrorHandler: answerClientError,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: config.maxBodyBytes,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    rewriteUrl: (req) => withoutFormatSuffix(req.url ?? '/'),
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
  app.decorate('db', opts.database.db)
  app.decorate('storage', opts.storage ? opts.storage(openStorage(config)) : openStorage(config))
  app.decorate('services', appServices(config.accelerators, opts.database.copyOut))
  app.addHook('onClose', () => closeServices(app.services))
  await app.register(routeTable)
  await app.register(inFlightTracking)
  await app.register(refusalReasons)
  await app.register(securityHeaders)
  await app.register(wireHeaders)
  await app.register(bodies)
  await app.register(errorAnswers)
  await app.register(namesVersionCheck)
  await app.register(routes)
  await app.register(maintenance)
  await app.register(callerNotifications, { databaseUrl: opts.database.url })
  if (opts.ownsDatabase) {
    app.addHook('onClose', async () => {
      await app.inFlight.idle(CLOSE_WAIT_MS)
      await opts.database.close()
    })
  }
  return app
}

/** A hop count as fastify applies it (its types take no number): the nearest `hops` peers are proxies. */
function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust
}

/** how long closing waits for handlers still running before it closes the database under them */
const CLOSE_WAIT_MS = 10_000

/** Logger options with secrets redacted (unless the caller chose its own redaction). */
function withRedaction(logger: BuildOptions['logger']): BuildOptions['logger'] {
  if (!logger) return false
  const base = logger === true ? {} : logger
  return 'redact' in base ? base : { ...base, redact: { paths: REDACT, censor: '[redacted]' } }
}
