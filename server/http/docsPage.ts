import type { FastifyInstance } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { requestOrigin, type Endpoint } from './endpoint.js'
import { openapiDocument } from './schema.js'

// GET /api/docs: an API reference page (Swagger UI) over the OpenAPI document of
// server/http/schema.ts, where a person enters a token ("Authorize": `Token <key>`) and tries
// requests. The page, its files and the document it reads (/api/docs/json, the same as
// /api/openapi.json) need no login: they show only the API's shape, never a record; every
// request tried from the page needs a token like any other (docs/decisions.md).

export const DOCS_PREFIX = '/api/docs'

export async function registerDocsPage(app: FastifyInstance, endpoints: Endpoint[]): Promise<void> {
  await app.register(swagger, { mode: 'static', specification: { document: openapiDocument(endpoints, '') as never } })
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    uiConfig: { deepLinking: true, tryItOutEnabled: true, displayRequestDuration: true },
    // the servers of the document are where the page was loaded from
    transformSpecification: (spec, req) => ({ ...spec, servers: [{ url: requestOrigin(req) }] }),
  })
}
