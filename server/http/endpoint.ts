import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { Caller } from '../access.js'
import type { DB } from '../db/schema.js'
import type { AppConfig } from '../config.js'
import type { Storage } from '../storage/index.js'
import { authenticate, checkCsrf } from '../auth/authenticate.js'
import { isConnectionLost } from '../db/connectionLost.js'
import { methodNotAllowed } from './errors.js'
import { readBody } from './body.js'
import { JsonText } from './jsonText.js'
import { labelOf, type FieldDef } from './fields.js'

// One path of the API with the methods it accepts. Registering it gives every
// path the same conventions: Allow on every answer, OPTIONS metadata without
// authentication, HEAD as GET without a body, 405 for the rest, authentication
// and CSRF before any handler runs, and a lazily parsed body.

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const
const ORDER: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

export interface Context {
  req: FastifyRequest
  reply: FastifyReply
  db: Kysely<DB>
  config: AppConfig
  /** where media and result files live (the app's one storage) */
  storage: Storage
  caller: Caller
  params: Record<string, string>
  query: Record<string, string>
  /** scheme://host of this request, for absolute URLs */
  origin: string
  /** the parsed request body: JSON, form or multipart fields; with 'columns', a column-wise bulk body as ColumnRows
   * (http/columnRows.ts), which is a 415 to any other reader */
  body(accept?: 'columns'): Promise<unknown>
  /** what the app keeps between requests: its caller cache, accelerators, batches and page boundaries. Its type is
   * the one app.ts decorates the app with (server/services.ts), named through fastify's declaration of the
   * instance so that this layer names nothing of the resources above it (docs/architecture.md, "Per-app state") */
  services: FastifyInstance['services']
}

export interface Result {
  status?: number
  body?: unknown
  headers?: Record<string, string>
}

/** What every handler of the app is given besides its request. */
export interface EndpointDeps {
  db: Kysely<DB>
  config: AppConfig
  storage: Storage
  services: Context['services']
}

export type Handler = (ctx: Context) => Promise<Result>

/** Field metadata for OPTIONS `actions` and the schema documents. */
export type ActionFields = Record<string, FieldDef>

export interface SuccessDoc {
  status: number
  description: string
  body?: 'record' | 'none' | Record<string, unknown>
  /** other content types the answer may have instead of JSON (e.g. image/png) */
  also?: string[]
}

export interface EndpointDoc {
  /** path of keys in the coreapi document under api > v0, e.g. ['tag'] or ['project', 'mediaFiles'] */
  keys: string[]
  /** coreapi action name per method: list, create, read, update, partial_update, delete, or a custom one */
  actions: Partial<Record<Method, string>>
  /** request fields per method */
  fields?: Partial<Record<Method, ActionFields>>
  /** response record fields (for list/read answers) */
  record?: ActionFields
  list?: boolean
  /** query parameters of GET: of a list, those beyond the equality filters of `record` (e.g. `alias__startswith`) */
  filters?: ActionFields
  description?: string
  /** the success answers of a method, when not the usual ones (201 for create, 204 for delete, 200 else);
   * `body`: 'record' (the record, default), 'none', or a JSON schema */
  success?: Partial<Record<Method, SuccessDoc[]>>
  /** POST also takes a JSON array of records, answered with an array (bulk create) */
  bulk?: boolean
  /** POST takes `?onDuplicate=skip`: records identical to stored ones are not created again */
  skipsDuplicates?: boolean
  /** the request body is multipart/form-data only, the file in the part of this name beside the other fields */
  upload?: string
  /** in the OpenAPI document only: not a link of the coreapi document (which keeps the original's shape) */
  openapiOnly?: boolean
  /** methods only site admins may use: left out of other callers' coreapi documents, as the original does */
  adminOnly?: Method[]
}

export interface Endpoint {
  path: string
  /** OPTIONS `name`, e.g. 'Tag List' */
  name: string
  description?: string
  methods: Partial<Record<Method, Handler>>
  /** false: no authentication (token endpoint, login) */
  auth?: boolean
  /** largest body in bytes, below the app's (413 beyond, before it is parsed) */
  bodyLimit?: number
  /** OPTIONS `actions` for an authenticated caller who may write here */
  options?: (ctx: Context) => Promise<Record<string, ActionFields> | undefined>
  /** The methods the caller may use on this path's record, told on OPTIONS to a request that asks for them
   * (`Mas-Permitted-Methods: *`, see PERMITTED_HEADER) */
  permitted?: (ctx: Context) => Promise<Method[]>
  /** asked often by probes and clients: answered 200, it is counted rather than logged (server/log.ts) */
  healthCheck?: boolean
  doc?: EndpointDoc
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the Allow header of the route's path */
    allow?: string
    /** the route is a health check (Endpoint.healthCheck) */
    healthCheck?: boolean
  }
}

/** Asked for on OPTIONS with the value `*`, answered with the methods the authenticated caller may use on the
 * record, written as Allow is (docs/decisions.md §22). A request without it is answered as always: the original's
 * OPTIONS answer and the Allow header old scripts read stay as they are. */
export const PERMITTED_HEADER = 'mas-permitted-methods'

export function allowHeader(ep: Endpoint): string {
  const methods: string[] = ORDER.filter((m) => ep.methods[m])
  if (ep.methods.GET) methods.push('HEAD')
  methods.push('OPTIONS')
  return methods.join(', ')
}

/** The permitted methods as Allow lists a path's: in its order, with HEAD beside GET and OPTIONS always. */
function permittedHeader(methods: Method[]): string {
  const out: string[] = ORDER.filter((m) => methods.includes(m))
  if (methods.includes('GET')) out.push('HEAD')
  out.push('OPTIONS')
  return out.join(', ')
}

export function requestOrigin(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`
}

export function registerEndpoint(app: FastifyInstance, ep: Endpoint, deps: EndpointDeps) {
  const allow = allowHeader(ep)
  app.route({
    method: [...ALL_METHODS],
    url: ep.path,
    exposeHeadRoute: false,
    config: { allow, healthCheck: ep.healthCheck === true },
    ...(ep.bodyLimit ? { bodyLimit: ep.bodyLimit } : {}),
    handler: async (req, reply) => {
      reply.header('Allow', allow)
      const method = req.method === 'HEAD' ? 'GET' : (req.method as Method | 'OPTIONS')
      const base = {
        req,
        reply,
        db: deps.db,
        config: deps.config,
        storage: deps.storage,
        services: deps.services,
        params: req.params as Record<string, string>,
        query: normaliseQuery(req.query),
        origin: requestOrigin(req),
        body: (accept?: 'columns') => readBody(req, accept),
      }
      if (method === 'OPTIONS') {
        let caller: Caller | null = null
        try {
          caller = await authenticate(req, deps.db, deps.config, deps.services.callers)
        } catch {
          caller = null
        }
        const meta: Record<string, unknown> = {
          name: ep.name,
          description: ep.description ?? '',
          renders: ['application/json'],
          parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
        }
        if (caller && ep.options) {
          const actions = await ep.options({ ...base, caller })
          if (actions) meta.actions = optionsActions(actions)
        }
        if (caller && ep.permitted && req.headers[PERMITTED_HEADER] === '*') {
          reply.header(PERMITTED_HEADER, permittedHeader(await ep.permitted({ ...base, caller })))
        }
        return reply.code(200).send(meta)
      }
      const handler = ep.methods[method]
      const run = async () => {
        const caller =
          ep.auth === false
            ? anonymous
            : await authenticate(req, deps.db, deps.config, deps.services.callers, { required: true })
        if (!handler) throw methodNotAllowed(req.method)
        if (method !== 'GET') checkCsrf(req)
        return handler({ ...base, caller: caller as Caller })
      }
      const result = method === 'GET' ? await retriedOnceIfConnectionLost(run, reply) : await run()
      if (result.headers) reply.headers(result.headers)
      reply.code(result.status ?? 200)
      if (result.body instanceof JsonText) return reply.type('application/json').send(result.body.text)
      return result.body === undefined ? reply.send() : reply.send(result.body)
    },
  })
}

/** A read whose database connection was lost (a restarted database, a terminated session) runs once more, on the
 * connection the pool gives next; a second loss is answered 503 (docs/decisions.md §16). */
async function retriedOnceIfConnectionLost(run: () => Promise<Result>, reply: FastifyReply): Promise<Result> {
  try {
    return await run()
  } catch (e) {
    if (!isConnectionLost(e) || reply.sent) throw e
    return run()
  }
}

const anonymous: Caller = { id: 0, username: '', isAdmin: false }

function normaliseQuery(q: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries((q ?? {}) as Record<string, unknown>)) {
    // a repeated parameter counts by its last value, as in Django's QueryDict
    out[k] = Array.isArray(v) ? String(v[v.length - 1]) : String(v)
  }
  return out
}

const OPTION_TYPES: Record<string, string> = {
  integer: 'integer',
  float: 'float',
  boolean: 'boolean',
  string: 'string',
  datetime: 'datetime',
  pk: 'field',
  choice: 'choice',
  list: 'list',
  object: 'nested object',
}

function optionsActions(actions: Record<string, ActionFields>) {
  const out: Record<string, unknown> = {}
  for (const [method, fields] of Object.entries(actions)) {
    const f: Record<string, unknown> = {}
    for (const [name, def] of Object.entries(fields)) {
      if (def.writeOnly && def.readOnly) continue
      f[name] = {
        type: OPTION_TYPES[def.type],
        required: !!def.required && !def.readOnly,
        read_only: !!def.readOnly,
        label: labelOf(name, def),
        ...(def.maxLength ? { max_length: def.maxLength } : {}),
        ...(def.choices ? { choices: def.choices.map((c) => ({ value: c, display_name: c })) } : {}),
      }
    }
    out[method] = f
  }
  return out
}
