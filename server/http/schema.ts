import type { Endpoint, EndpointDoc, Method } from './endpoint.js'
import { filterFields, labelOf, type FieldDef, type Fields } from './fields.js'

// The two schema documents, generated from the same endpoint table that
// registers the routes: the coreapi document DRF clients read at /api/, and an
// OpenAPI 3.1 document at /api/openapi.json. Nothing here is written by hand
// per resource.

type Json = Record<string, any>

const PAGE_FIELD = {
  name: 'page', location: 'query',
  schema: { _type: 'integer', title: 'Page', description: 'A page number within the paginated result set.' },
}

const pathOf = (ep: Endpoint) => ep.path.replace(/:(\w+)/g, '{$1}')
const hasId = (ep: Endpoint) => ep.path.includes(':id')
const WRITE_METHODS: Method[] = ['POST', 'PUT', 'PATCH']

function coreType(f: FieldDef): Json {
  switch (f.type) {
    case 'integer': case 'pk': return { _type: 'integer' }
    case 'float': return { _type: 'number' }
    case 'boolean': return { _type: 'boolean' }
    case 'choice': return { _type: 'enum', enum: [...(f.choices ?? [])] }
    case 'list': return { _type: 'array' }
    case 'object': return { _type: 'object' }
    default: return { _type: 'string' }
  }
}

function formFields(fields: Fields, method: Method): Json[] {
  return Object.entries(fields).filter(([, f]) => !f.readOnly).map(([name, f]) => ({
    name,
    ...(f.required && method !== 'PATCH' ? { required: true } : {}),
    location: 'form',
    schema: { ...coreType(f), title: labelOf(name, f), description: f.description ?? '' },
  }))
}

function coreLink(ep: Endpoint, doc: EndpointDoc, method: Method): Json {
  const fields: Json[] = []
  if (hasId(ep)) {
    fields.push({ name: 'id', required: true, location: 'path',
      schema: { _type: 'integer', title: 'ID', description: 'A unique integer value identifying this record.' } })
  }
  if (doc.list && method === 'GET') fields.push(PAGE_FIELD)
  const body = doc.fields?.[method]
  if (body && WRITE_METHODS.includes(method)) fields.push(...formFields(body, method))
  return {
    _type: 'link',
    url: pathOf(ep),
    action: method.toLowerCase(),
    ...(WRITE_METHODS.includes(method) ? { encoding: 'application/json' } : {}),
    ...(doc.description || ep.description ? { description: doc.description ?? ep.description } : {}),
    fields,
  }
}

/** Put `value` at `keys` in `tree`; a link and a group meeting at one key keep both, the link as `key_0`. */
function place(tree: Json, keys: string[], value: Json) {
  let node = tree
  for (let i = 0; i < keys.length - 1; i++) {
    const k = keys[i]
    if (node[k]?._type === 'link') { node[`${k}_0`] = node[k]; node[k] = {} }
    node[k] ??= {}
    node = node[k]
  }
  const last = keys[keys.length - 1]
  if (node[last] && node[last]._type !== 'link' && value._type === 'link') node[`${last}_0`] = value
  else node[last] = value
}

export function coreapiDocument(endpoints: Endpoint[], origin: string): Json {
  const doc: Json = { _type: 'document', _meta: { url: `${origin}/api/`, title: 'mas API' } }
  const api: Json = {}
  for (const ep of endpoints) {
    if (!ep.doc) continue
    for (const [method, action] of Object.entries(ep.doc.actions) as Array<[Method, string]>) {
      const link = coreLink(ep, ep.doc, method)
      if (ep.path.startsWith('/api/v0/')) place(api, [...ep.doc.keys, action], link)
      else place(doc, [...ep.doc.keys, action], link)
    }
  }
  doc.api = { v0: api }
  return doc
}

// ---- OpenAPI 3.1 ----

function jsonSchema(f: FieldDef): Json {
  const nullable = (s: Json) => (f.nullable ? { ...s, type: [s.type, 'null'] } : s)
  switch (f.type) {
    case 'integer': case 'pk': return nullable({ type: 'integer' })
    case 'float': return nullable({ type: 'number' })
    case 'boolean': return nullable({ type: 'boolean' })
    case 'datetime': return nullable({ type: 'string', format: 'date-time' })
    case 'choice': return nullable({ type: 'string', enum: [...(f.choices ?? [])] })
    case 'list': return { type: 'array', items: f.items === 'integer' ? { type: 'integer' } : {} }
    case 'object': return { type: 'object' }
    default: return nullable({ type: 'string', ...(f.maxLength ? { maxLength: f.maxLength } : {}) })
  }
}

function recordSchema(fields: Fields): Json {
  const properties: Json = {}
  for (const [name, f] of Object.entries(fields)) {
    if (f.writeOnly) continue
    properties[name] = { ...jsonSchema(f), title: labelOf(name, f), ...(f.readOnly ? { readOnly: true } : {}) }
  }
  return { type: 'object', properties }
}

function requestSchema(fields: Fields, method: Method): Json {
  const properties: Json = {}
  const required: string[] = []
  for (const [name, f] of Object.entries(fields)) {
    if (f.readOnly) continue
    properties[name] = { ...jsonSchema(f), title: labelOf(name, f), ...(f.writeOnly ? { writeOnly: true } : {}) }
    if (f.required && method !== 'PATCH') required.push(name)
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) }
}

const errorResponse = (description: string) => ({
  description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
})

function operation(ep: Endpoint, doc: EndpointDoc, method: Method): Json {
  const parameters: Json[] = []
  if (hasId(ep)) parameters.push({ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } })
  const isList = !!doc.list && method === 'GET'
  if (isList) {
    parameters.push(
      { name: 'page', in: 'query', schema: { oneOf: [{ type: 'integer', minimum: 1 }, { const: 'last' }] } },
      { name: 'page_size', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
      { name: 'ordering', in: 'query', schema: { type: 'string' }, description: 'field or -field, comma-separated' },
    )
    for (const [name, f] of filterFields(doc.record ?? {})) parameters.push({ name, in: 'query', schema: jsonSchema({ ...f, nullable: false }) })
    for (const [name, f] of Object.entries(doc.filters ?? {})) {
      parameters.push({ name, in: 'query', schema: jsonSchema({ ...f, nullable: false }), ...(f.description ? { description: f.description } : {}) })
    }
  }
  const record = doc.record ? recordSchema(doc.record) : { type: 'object' }
  const okBody = isList
    ? { type: 'object', required: ['count', 'next', 'previous', 'results'], properties: {
      count: { type: 'integer' }, next: { type: ['string', 'null'], format: 'uri' },
      previous: { type: ['string', 'null'], format: 'uri' }, results: { type: 'array', items: record } } }
    : record
  const responses: Json = {}
  if (method === 'DELETE') responses['204'] = { description: 'Deleted' }
  else if (method === 'POST' && doc.actions.POST === 'create') responses['201'] = { description: 'Created', content: { 'application/json': { schema: okBody } } }
  else responses['200'] = { description: 'OK', content: { 'application/json': { schema: okBody } } }
  responses['400'] = errorResponse('Invalid input: field errors or a JSON parse error')
  if (ep.auth !== false) responses['401'] = errorResponse('No or bad credentials')
  responses['403'] = errorResponse('Not allowed')
  responses['404'] = errorResponse('Not found, or not visible to the caller')
  const body = doc.fields?.[method]
  return {
    operationId: `${doc.keys.join('_')}_${doc.actions[method]}`.replace(/[^A-Za-z0-9_]/g, '_'),
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.keys[0]],
    parameters,
    ...(body && WRITE_METHODS.includes(method) ? { requestBody: { content: {
      'application/json': { schema: requestSchema(body, method) },
      'application/x-www-form-urlencoded': { schema: requestSchema(body, method) },
    } } } : {}),
    responses,
    ...(ep.auth === false ? { security: [] } : {}),
  }
}

export function openapiDocument(endpoints: Endpoint[], origin: string): Json {
  const paths: Json = {}
  for (const ep of endpoints) {
    if (!ep.doc) continue
    const item: Json = (paths[pathOf(ep)] ??= {})
    for (const method of Object.keys(ep.doc.actions) as Method[]) item[method.toLowerCase()] = operation(ep, ep.doc, method)
  }
  return {
    openapi: '3.1.0',
    info: { title: 'mas API', version: 'v0', description: 'Media Annotation Service' },
    servers: [{ url: origin }],
    security: [{ token: [] }, { basic: [] }, { session: [] }],
    paths,
    components: {
      securitySchemes: {
        token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token <key> from /api-token-auth/' },
        basic: { type: 'http', scheme: 'basic' },
        session: { type: 'apiKey', in: 'cookie', name: 'sessionid', description: 'writes also need X-CSRFToken' },
      },
      schemas: {
        Error: { type: 'object', additionalProperties: true, description: '{"detail": "..."} or {"field": ["message", ...]}' },
      },
    },
  }
}

/** The two document endpoints, over the whole endpoint table (themselves included). */
export function schemaEndpoints(all: () => Endpoint[]): Endpoint[] {
  return [
    {
      path: '/api/',
      name: 'Schema',
      methods: {
        GET: async (ctx) => {
          ctx.reply.type('application/coreapi+json')
          return { body: coreapiDocument(all(), ctx.origin) }
        },
      },
    },
    {
      path: '/api/openapi.json',
      name: 'OpenAPI',
      methods: { GET: async (ctx) => ({ body: openapiDocument(all(), ctx.origin) }) },
    },
  ]
}
