import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { COLUMNS_TYPE } from '../../server/http/columnRows.js'
import addFormatsModule from 'ajv-formats'
import type { FastifyInstance } from 'fastify'
import type { Endpoint } from '../../server/http/endpoint.js'
import { openapiDocument } from '../../server/http/schema.js'

// Every JSON answer of an app under test checked against the app's own
// OpenAPI document: the status is declared for that operation, the body
// matches the declared schema, the content type is JSON. /media/ bytes and
// HTML pages are left out. A violation turns the answer into a 500 naming it
// (so the test that caused it fails on its status or body) and is kept: closing
// the app lists them and makes the run exit non-zero.

type Json = Record<string, any>
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void

interface Operation {
  path: string
  pattern: RegExp
  methods: Json
}

export class OpenApiChecker {
  readonly violations: string[] = []
  private readonly operations: Operation[]
  private readonly ajv: Ajv2020
  private readonly compiled = new Map<string, ValidateFunction>()

  constructor(endpoints: Endpoint[]) {
    const doc = openapiDocument(endpoints, 'http://localhost')
    this.ajv = new Ajv2020({ strict: false, allErrors: false })
    addFormats(this.ajv)
    this.ajv.addSchema({ $id: 'openapi', components: doc.components }, 'openapi')
    this.operations = Object.entries(doc.paths as Record<string, Json>).map(([path, methods]) => ({
      path,
      methods,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`),
    }))
  }

  /** The problem with this answer, or null. `sent` is the JSON body of the request, when it had one, of type `sentType`. */
  check(
    method: string,
    url: string,
    status: number,
    contentType: string,
    payload: string,
    sent?: unknown,
    sentType = 'application/json',
  ): string | null {
    const bare = url.split('?')[0]
    // the API reference page's and the review page's own files (scripts, styles, the document it reads) are not API answers
    if (
      method === 'HEAD' ||
      method === 'OPTIONS' ||
      bare.startsWith('/media/') ||
      bare.startsWith('/api/docs') ||
      bare.startsWith('/review/') ||
      /^text\/html/.test(contentType)
    )
      return null
    // a path without its final slash answers as the one with it (design: wire conventions)
    const op =
      this.operations.find((o) => o.pattern.test(bare)) ?? this.operations.find((o) => o.pattern.test(`${bare}/`))
    const path = op?.path ?? bare
    if (!op) {
      // a path the API does not have: 404 in the usual error shape
      return status === 404
        ? this.body(ERROR, contentType, payload, `${method} ${path} 404`)
        : `${method} ${path}: not in the OpenAPI document (status ${status})`
    }
    const operation = op.methods[method.toLowerCase()]
    if (!operation) {
      // authentication (401, and 429 once a client's failed passwords are throttled) answers before the method does
      return status === 405 || status === 401 || status === 429
        ? this.body(ERROR, contentType, payload, `${method} ${op.path} ${status}`)
        : `${method} ${op.path}: no such operation in the OpenAPI document (status ${status})`
    }
    const response = operation.responses[String(status)]
    if (!response)
      return `${method} ${op.path}: status ${status} is not declared (declared: ${Object.keys(operation.responses).join(', ')})`
    const unsent = status < 300 ? missingRequired(operation, sent, sentType) : null
    if (unsent) return `${method} ${op.path} ${status}: accepted without ${unsent}, which the document calls required`
    const type = contentType.split(';')[0].trim()
    if (type && !/json/.test(type) && response.content?.[type]) return null
    const schema = response.content?.['application/json']?.schema
    if (!schema) return payload === '' ? null : `${method} ${op.path} ${status}: a body where none is declared`
    return this.body(schema, contentType, payload, `${method} ${op.path} ${status}`)
  }

  private body(schema: Json, contentType: string, payload: string, where: string): string | null {
    if (!/^application\/(json|coreapi\+json)/.test(contentType))
      return `${where}: content type ${contentType || 'none'}, not JSON`
    let data: unknown
    try {
      data = JSON.parse(payload)
    } catch {
      return `${where}: the body is not JSON`
    }
    const key = JSON.stringify(schema)
    let validate = this.compiled.get(key)
    if (!validate) {
      validate = this.ajv.compile(JSON.parse(key.replaceAll('"#/components/', '"openapi#/components/')))
      this.compiled.set(key, validate)
    }
    if (validate(data)) return null
    const e = validate.errors?.[0]
    return `${where}: the body does not match the schema: ${e?.instancePath || '(root)'} ${e?.message} (${JSON.stringify(e?.params)})`
  }

  /** Check every answer of `app` (added before it is ready). */
  install(app: FastifyInstance): void {
    app.addHook('onSend', async (req, reply, payload) => {
      if (typeof payload !== 'string' && payload !== null && payload !== undefined && !Buffer.isBuffer(payload))
        return payload
      const text = payload === null || payload === undefined ? '' : String(payload)
      const problem = this.check(
        req.method,
        req.url,
        reply.statusCode,
        String(reply.getHeader('content-type') ?? ''),
        text,
        sentJson(req.body),
        String(req.headers['content-type'] ?? ''),
      )
      if (!problem) return payload
      this.violations.push(problem)
      process.stderr.write(`OpenAPI violation: ${problem}\n`)
      reply.code(500)
      reply.type('application/json')
      return JSON.stringify({ detail: `OpenAPI violation: ${problem}` })
    })
  }
}

const ERROR = { $ref: '#/components/schemas/Error' }

/** A JSON request body as the app keeps it until a handler reads it (its text, under a symbol of server/http/body.ts). */
function sentJson(body: unknown): unknown {
  if (body === null || typeof body !== 'object') return undefined
  const text = Object.getOwnPropertySymbols(body)
    .map((s) => (body as Record<symbol, unknown>)[s])
    .find((v) => typeof v === 'string')
  if (typeof text !== 'string') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A field the request's schema requires that an accepted JSON body (or an item of an array, or a column-wise body's
 * items) lacked; an accepted column-wise body where the document declares none. */
function missingRequired(operation: Json, sent: unknown, sentType: string): string | null {
  const content = operation.requestBody?.content
  const schema = content?.['application/json']?.schema
  const columns = sentType.split(';')[0].trim() === COLUMNS_TYPE
  if (columns && !content?.[COLUMNS_TYPE]) return `the declaration of ${COLUMNS_TYPE}`
  if (!schema || sent === undefined || sent === null || typeof sent !== 'object') return null
  const request = (schema.oneOf?.[0] ?? schema) as Json
  const required: string[] = request.required ?? []
  const { same, each } = sent as { same?: object; each?: object }
  for (const item of columns ? [{ ...same, ...each }] : Array.isArray(sent) ? sent : [sent]) {
    if (item === null || typeof item !== 'object') continue
    const lacks = required.find((name) => !Object.prototype.hasOwnProperty.call(item, name))
    if (lacks) return lacks
  }
  return null
}
