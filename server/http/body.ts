import '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { parseError, tooLarge, unsupportedMediaType } from './errors.js'

// Bodies are read lazily, after authentication, as DRF does: a parser error or
// an unsupported type is only reported to a caller who may make the request,
// and only by handlers that read a body.

const UNSUPPORTED = Symbol('unsupported media type')
const RAW_JSON = Symbol('raw json')
const PARSED = Symbol('parsed body')

interface Unsupported { [UNSUPPORTED]: string }
interface RawJson { [RAW_JSON]: string }

export function registerBodyParsers(app: FastifyInstance) {
  app.removeContentTypeParser(['application/json', 'text/plain'])
  app.addContentTypeParser(/^application\/(.+\+)?json$/, { parseAs: 'string' }, (_req, body, done) => {
    done(null, { [RAW_JSON]: body as string } satisfies RawJson)
  })
  app.addContentTypeParser('*', (req, payload, done) => {
    // drain the payload so the connection stays usable, then report the type when the body is read;
    // past the body limit it is 413 like any other body, rather than an endless drain
    const limit = req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? Infinity
    let received = 0
    let finished = false
    const finish = (err: Error | null, value?: unknown) => { if (!finished) { finished = true; done(err, value) } }
    payload.on('data', (chunk: Buffer) => {
      received += chunk.length
      if (received > limit) { payload.removeAllListeners('data'); payload.resume(); finish(tooLarge()) }
    })
    payload.on('end', () => finish(null, { [UNSUPPORTED]: String(req.headers['content-type'] ?? '') } satisfies Unsupported))
    payload.on('error', finish)
  })
}

/** The request body as data: JSON value, form fields, or multipart text fields. Empty: {}. */
export async function readBody(req: FastifyRequest): Promise<unknown> {
  const cached = (req as any)[PARSED]
  if (cached !== undefined) return cached
  const value = await parse(req)
  ;(req as any)[PARSED] = value
  return value
}

async function parse(req: FastifyRequest): Promise<unknown> {
  const body = req.body as unknown
  if (req.isMultipart?.()) {
    const fields: Record<string, unknown> = {}
    for await (const part of req.parts()) {
      if (part.type === 'file') { part.file.resume(); continue }
      // a value cut at the field size limit is refused, never stored shortened
      if (part.valueTruncated) throw tooLarge(`The field "${part.fieldname}" is too large.`)
      fields[part.fieldname] = part.value
    }
    return fields
  }
  if (body === undefined || body === null) return {}
  if (typeof body === 'object' && UNSUPPORTED in (body as object)) {
    throw unsupportedMediaType((body as Unsupported)[UNSUPPORTED].split(';')[0].trim())
  }
  if (typeof body === 'object' && RAW_JSON in (body as object)) {
    const text = (body as RawJson)[RAW_JSON]
    if (text.trim() === '') return {}
    try {
      return JSON.parse(text)
    } catch (e) {
      throw parseError((e as Error).message)
    }
  }
  return body
}
