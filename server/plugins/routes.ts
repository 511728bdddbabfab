import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { authEndpoints } from '../auth/routes.js'
import { registerDocsPage } from '../http/docsPage.js'
import { isConnectionLost } from '../db/connectionLost.js'
import { DATABASE_RETRY_SECONDS } from '../http/errors.js'
import { registerReviewPage } from '../http/reviewPage.js'
import { loginCodeEndpoints } from '../auth/loginCodes.js'
import { registerEndpoint, requestOrigin, type Endpoint } from '../http/endpoint.js'
import { schemaEndpoints } from '../http/schema.js'
import { aliveWorkers, ALIVE_SECONDS } from '../jobs/heartbeat.js'
import { registerMediaRoutes } from '../resources/mediaBytes.js'
import { resourceEndpoints } from '../resources/index.js'
import { API } from '../resources/resource.js'

// The API's routes: authentication, every resource, the API root, the health
// check and the schema documents (built from the same endpoint table), the
// media files under /media/, and the API reference page at /api/docs.

async function routes(app: FastifyInstance) {
  const endpoints: Endpoint[] = [
    ...authEndpoints(),
    ...loginCodeEndpoints(),
    ...resourceEndpoints,
    apiRoot(resourceEndpoints),
    healthEndpoint,
  ]
  endpoints.push(...schemaEndpoints(() => endpoints))
  app.routeTable.endpoints = endpoints
  const deps = { db: app.db, config: app.config, storage: app.storage, services: app.services }
  for (const ep of endpoints) registerEndpoint(app, ep, deps)
  registerMediaRoutes(app, deps)
  await registerDocsPage(app, endpoints)
  registerReviewPage(app)
}

export default fp(routes, {
  name: 'routes',
  decorators: { fastify: ['config', 'db', 'storage', 'services', 'routeTable'] },
})

/** GET /healthz: 200 when the server reaches its database, with how many job workers are alive; 503 (and `"database": "unavailable"`) while it does not. */
const healthEndpoint: Endpoint = {
  path: '/healthz',
  name: 'Health',
  auth: false,
  healthCheck: true,
  methods: {
    GET: async (ctx) => {
      // twice: a pooled connection ended a moment ago says nothing about the database now
      for (let attempt = 1; ; attempt++) {
        try {
          return { body: { status: 'ok', database: 'ok', workers: await aliveWorkers(ctx.db) } }
        } catch (e) {
          if (!isConnectionLost(e)) throw e
          if (attempt === 2)
            return {
              status: 503,
              headers: { 'Retry-After': String(DATABASE_RETRY_SECONDS) },
              body: { status: 'unavailable', database: 'unavailable' },
            }
        }
      }
    },
  },
  doc: {
    keys: ['healthz'],
    actions: { GET: 'read' },
    openapiOnly: true,
    description: `The server is up and reaches its database; \`workers\`: how many job workers renewed their heartbeat in the last ${ALIVE_SECONDS} seconds.`,
    success: {
      GET: [
        {
          status: 200,
          description: 'ok',
          body: {
            type: 'object',
            required: ['status', 'database', 'workers'],
            properties: {
              status: { const: 'ok' },
              database: { const: 'ok' },
              workers: { type: 'integer', minimum: 0, description: 'job workers alive' },
            },
          },
        },
        {
          status: 503,
          description: 'the database is unreachable',
          body: {
            type: 'object',
            required: ['status', 'database'],
            properties: { status: { const: 'unavailable' }, database: { const: 'unavailable' } },
          },
        },
      ],
    },
  },
}

/** GET /api/v0/: the resource names and their list URLs, as DRF's router root shows them. */
function apiRoot(endpoints: Endpoint[]): Endpoint {
  const names = endpoints.map((e) => /^\/api\/v0\/([A-Za-z]+)\/$/.exec(e.path)?.[1]).filter((n): n is string => !!n)
  return {
    path: `${API}/`,
    name: 'Api Root',
    description: 'The default basic root view for DefaultRouter',
    methods: {
      GET: async (ctx) => ({
        body: Object.fromEntries(names.map((n) => [n, `${requestOrigin(ctx.req)}${API}/${n}/`])),
      }),
    },
    doc: {
      keys: ['root'],
      actions: { GET: 'read' },
      openapiOnly: true,
      description: 'The list URL of every resource, by name.',
      success: {
        GET: [
          {
            status: 200,
            description: 'Resource names to list URLs',
            body: { type: 'object', additionalProperties: { type: 'string' } },
          },
        ],
      },
    },
  }
}
