import type { Endpoint, EndpointDoc, Method, SuccessDoc } from './endpoint.js'
import { COLUMNS_TYPE } from './columnRows.js'
import { coreapiDocument, hasId, pathOf, WRITE_METHODS, type Json } from './coreapiDocument.js'
import { filterFields, INT_MAX, INT_MIN, labelOf, type FieldDef, type Fields } from './fields.js'

// The two schema documents, generated from the same endpoint table that
// registers the routes: the coreapi document DRF clients read at /api/ (./coreapiDocument.ts), and an
// OpenAPI 3.1 document at /api/openapi.json. Nothing here is written by hand
// per resource.

const TIMESTAMP_OUT = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$'
const TIMESTAMP_IN = '^\\s*\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,6})?)?\\s*$'
/** A string that is not blank (the server refuses one of only white space). */
const NOT_BLANK = '\\S'

/** The JSON schema of a field's values: `input` for what a request may send, else what a record holds. */
function jsonSchema(f: FieldDef, input = false): Json {
  const nullable = (s: Json) => (f.nullable ? { ...s, type: [s.type, 'null'] } : s)
  const range = (s: Json) => ({
    ...s,
    ...(f.min !== undefined ? { minimum: f.min } : {}),
    ...(f.max !== undefined ? { maximum: f.max } : {}),
  })
  switch (f.type) {
    case 'integer':
      return nullable(range({ type: 'integer', ...(input ? { minimum: INT_MIN, maximum: INT_MAX } : {}) }))
    // the id of a record of `x-references` that the caller can read (else 400 naming the field)
    case 'pk':
      return nullable({
        type: 'integer',
        ...(input ? { minimum: 1, maximum: INT_MAX, 'x-references': f.target?.().name } : {}),
      })
    case 'float':
      return nullable(range({ type: 'number' }))
    case 'boolean':
      return nullable({ type: 'boolean' })
    case 'datetime':
      return nullable({ type: 'string', pattern: input ? TIMESTAMP_IN : TIMESTAMP_OUT })
    case 'choice':
      return nullable({ type: 'string', enum: [...(f.choices ?? [])] })
    case 'list':
      return { type: 'array', items: f.items === 'integer' ? { type: 'integer' } : {} }
    case 'object':
      return nullable({ type: 'object', ...(f.items === 'string' ? { additionalProperties: { type: 'string' } } : {}) })
    default: {
      if (!input) return nullable({ type: 'string' })
      const patterns = [...(f.allowBlank ? [] : [NOT_BLANK]), ...(f.pattern ? [f.pattern] : [])]
      return nullable({
        type: 'string',
        ...(f.allowBlank ? {} : { minLength: 1 }),
        ...(f.maxLength ? { maxLength: f.maxLength } : {}),
        ...(patterns.length === 1
          ? { pattern: patterns[0] }
          : patterns.length
            ? { allOf: patterns.map((pattern) => ({ pattern })) }
            : {}),
      })
    }
  }
}

function recordSchema(fields: Fields): Json {
  const properties: Json = {}
  for (const [name, f] of Object.entries(fields)) {
    if (f.writeOnly) continue
    properties[name] = { ...jsonSchema(f), title: labelOf(name, f), ...(f.readOnly ? { readOnly: true } : {}) }
  }
  // every record is answered with every field (null where it has no value)
  return { type: 'object', properties, required: Object.keys(properties) }
}

function requestSchema(fields: Fields, method: Method): Json {
  const properties: Json = {}
  const required: string[] = []
  for (const [name, f] of Object.entries(fields)) {
    if (f.readOnly) continue
    properties[name] = {
      ...jsonSchema(f, true),
      title: labelOf(name, f),
      ...(f.writeOnly ? { writeOnly: true } : {}),
      ...(f.description ? { description: f.description } : {}),
    }
    if (f.required && method !== 'PATCH') required.push(name)
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) }
}

/** A multipart/form-data body: the fields as parts, the one named `file` holding the bytes. */
function multipartBody(request: Json, file: string): Json {
  const fields = request.properties as Record<string, Json>
  const part = fields[file] ?? {}
  const properties = {
    ...fields,
    [file]: {
      title: part.title,
      description: part.description,
      type: 'string',
      contentMediaType: 'application/octet-stream',
    },
  }
  const required = [...new Set([...((request.required as string[] | undefined) ?? []), file])]
  return {
    'multipart/form-data': {
      schema: { ...request, properties, required },
      encoding: { [file]: { contentType: 'application/octet-stream, audio/*' } },
    },
  }
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
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
    for (const [name, f] of filterFields(doc.record ?? {}))
      parameters.push({ name, in: 'query', schema: jsonSchema({ ...f, nullable: false }) })
  }
  if (method === 'GET') {
    for (const [name, f] of Object.entries(doc.filters ?? {})) {
      parameters.push({
        name,
        in: 'query',
        ...(f.required ? { required: true } : {}),
        schema: jsonSchema({ ...f, nullable: false }),
        ...(f.description ? { description: f.description } : {}),
      })
    }
  }
  const skips = !!doc.skipsDuplicates && method === 'POST'
  if (skips) {
    parameters.push({
      name: 'onDuplicate',
      in: 'query',
      schema: { enum: ['create', 'skip'] },
      description: 'skip: records identical to a stored one are not created again; the answer is {results, skipped}',
    })
  }
  if (doc.bulk && method === 'POST') {
    parameters.push({
      name: 'fields',
      in: 'query',
      schema: { type: 'string' },
      description: "comma-separated: the answer's records hold only these fields (fields=id: the ids alone)",
    })
  }
  const record = doc.record ? recordSchema(doc.record) : { type: 'object' }
  const okBody = isList
    ? {
        type: 'object',
        required: ['count', 'next', 'previous', 'results'],
        properties: {
          count: { type: 'integer' },
          next: { type: ['string', 'null'], format: 'uri' },
          previous: { type: ['string', 'null'], format: 'uri' },
          results: { type: 'array', items: record },
        },
      }
    : record
  const bulk = !!doc.bulk && method === 'POST'
  const json = (schema: Json) => ({ 'application/json': { schema } })
  // with ?fields=: each record holds only the fields named, so a bulk resource's create answers records that may
  // lack any of them
  const picked = bulk ? { ...(okBody as Json), required: [], minProperties: 1 } : okBody
  const answer = ({ status, description, body = 'record', also = [] }: SuccessDoc) => {
    const skipped = {
      type: 'object',
      required: ['results', 'skipped'],
      description: 'with onDuplicate=skip',
      properties: {
        results: {
          type: 'array',
          items: picked,
          description: 'in input order; a skipped item answered with the stored record',
        },
        skipped: {
          type: 'array',
          items: { type: 'integer', minimum: 0 },
          description: 'indexes of the items not created again',
        },
      },
    }
    // anyOf with the skipping answer: a record's schema (no required fields) also takes {results, skipped}
    const schema =
      body === 'record'
        ? bulk
          ? skips
            ? { anyOf: [picked, { type: 'array', items: picked }, skipped] }
            : { oneOf: [picked, { type: 'array', items: picked }] }
          : okBody
        : body
    const binary = Object.fromEntries(
      also.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]),
    )
    return [String(status), { description, ...(schema === 'none' ? {} : { content: { ...json(schema), ...binary } }) }]
  }
  const success: SuccessDoc[] =
    doc.success?.[method] ??
    (method === 'DELETE'
      ? [{ status: 204, description: 'Deleted', body: 'none' }]
      : method === 'POST' && doc.actions.POST === 'create'
        ? [{ status: 201, description: bulk ? 'Created: the record, or the array of records' : 'Created' }]
        : [{ status: 200, description: 'OK' }])
  const responses: Json = Object.fromEntries(success.map(answer))
  responses['400'] = bulk
    ? {
        description: 'Invalid input; for an array, one error object per item (empty for valid ones), nothing written',
        content: json({
          oneOf: [
            { $ref: '#/components/schemas/Error' },
            { type: 'array', items: { $ref: '#/components/schemas/Error' } },
          ],
        }),
      }
    : errorResponse('Invalid input: field errors or a JSON parse error')
  if (ep.auth !== false) responses['401'] = errorResponse('No or bad credentials')
  responses['403'] = errorResponse('Not allowed')
  responses['404'] = errorResponse('Not found, or not visible to the caller')
  const body = doc.fields?.[method]
  const takesBody = WRITE_METHODS.includes(method)
  // any request may carry a body: too large or of a type no parser takes
  responses['413'] = errorResponse(
    'Body, upload, text part or bulk array too large (MAS_MAX_BODY_BYTES, MAS_MAX_UPLOAD_BYTES, MAS_MAX_BULK_ITEMS)',
  )
  responses['415'] = errorResponse('Unsupported Content-Type')
  // failed password attempts (Basic credentials on any request, or a login) are throttled
  responses['429'] = {
    ...errorResponse('Too many failed logins from this address or for this username'),
    headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds to wait' } },
  }
  // a client's remembered names are out of date (server/plugins/namesVersion.ts)
  responses['412'] = {
    ...errorResponse(
      'Sent with a Mas-Names-Version other than the current one: a record known by name was renamed or deleted since',
    ),
    headers: { 'Mas-Names-Version': { schema: { type: 'string' }, description: 'the current names version' } },
  }
  // the database connection was lost or could not be made (docs/decisions.md §16)
  responses['503'] ??= {
    ...errorResponse('The database is unavailable; try again after Retry-After seconds'),
    headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds to wait' } },
  }
  const request = body && takesBody ? requestSchema(body, method) : null
  return {
    operationId: `${doc.keys.join('_')}_${doc.actions[method]}`.replace(/[^A-Za-z0-9_]/g, '_'),
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.keys[0]],
    parameters,
    ...(request
      ? {
          requestBody: {
            ...(doc.upload ? { required: true } : {}),
            content: doc.upload
              ? multipartBody(request, doc.upload)
              : {
                  'application/json': {
                    schema: bulk ? { oneOf: [request, { type: 'array', minItems: 1, items: request }] } : request,
                  },
                  ...(bulk ? { [COLUMNS_TYPE]: { schema: COLUMNS_SCHEMA } } : {}),
                  'application/x-www-form-urlencoded': { schema: request },
                },
          },
        }
      : {}),
    responses,
    ...(ep.auth === false ? { security: [] } : {}),
  }
}

/** A bulk create's items written column by column (columnRows.ts). */
const COLUMNS_SCHEMA: Json = {
  type: 'object',
  description:
    'The array of `count` items whose item i has every field of `same` and the i-th value of each field of `each`; answered as that array is.',
  required: ['count'],
  properties: {
    count: { type: 'integer', minimum: 1 },
    same: { type: 'object', description: 'the fields every item gives alike' },
    each: {
      type: 'object',
      description: 'the other fields: of each, one value per item',
      additionalProperties: { type: 'array' },
    },
  },
}

export function openapiDocument(endpoints: Endpoint[], origin: string): Json {
  const paths: Json = {}
  for (const ep of endpoints) {
    if (!ep.doc) continue
    const item = (paths[pathOf(ep)] ??= {}) as Json
    for (const method of Object.keys(ep.doc.actions) as Method[])
      item[method.toLowerCase()] = operation(ep, ep.doc, method)
  }
  return {
    openapi: '3.1.0',
    info: { title: 'mas API', version: 'v0', description: 'Media Annotation Service' },
    servers: [{ url: origin }],
    security: [{ token: [] }, { basic: [] }, { session: [] }],
    paths,
    components: {
      securitySchemes: {
        token: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'Token <key> from /api-token-auth/',
        },
        basic: { type: 'http', scheme: 'basic' },
        session: { type: 'apiKey', in: 'cookie', name: 'sessionid', description: 'writes also need X-CSRFToken' },
      },
      schemas: {
        Error: {
          type: 'object',
          additionalProperties: true,
          description: '{"detail": "..."} or {"field": ["message", ...]}',
        },
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
          return { body: coreapiDocument(all(), ctx.origin, ctx.caller) }
        },
      },
      doc: {
        keys: ['schema'],
        actions: { GET: 'coreapi' },
        openapiOnly: true,
        description:
          'The coreapi document (application/coreapi+json) that DRF clients read; it leaves out links the caller may not use.',
        success: {
          GET: [
            {
              status: 200,
              description: 'The coreapi document',
              body: { type: 'object', required: ['_type'], properties: { _type: { const: 'document' } } },
            },
          ],
        },
      },
    },
    {
      path: '/api/openapi.json',
      name: 'OpenAPI',
      // no login: the document shows the API's shape, never a record (as the page at /api/docs, docs/decisions.md)
      auth: false,
      methods: { GET: async (ctx) => ({ body: openapiDocument(all(), ctx.origin) }) },
      doc: {
        keys: ['schema'],
        actions: { GET: 'openapi' },
        openapiOnly: true,
        description: 'This document.',
        success: {
          GET: [
            {
              status: 200,
              description: 'The OpenAPI 3.1 document',
              body: { type: 'object', required: ['openapi', 'paths'] },
            },
          ],
        },
      },
    },
  ]
}
