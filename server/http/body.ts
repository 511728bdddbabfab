import '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { COLUMNS_TYPE, columnRowsOf } from './columnRows.js'
import { fieldTooLarge, parseError, tooLarge, tooManyItems, unsupportedMediaType } from './errors.js'

// Bodies are read lazily, after authentication, as DRF does: a parser error or
// an unsupported type is only reported to a caller who may make the request,
// and only by handlers that read a body.

const UNSUPPORTED = Symbol('unsupported media type')
const RAW_JSON = Symbol('raw json')
/** request -> its parsed body, so a handler may read it more than once */
const parsedBodies = new WeakMap<FastifyRequest, unknown>()

interface Unsupported {
  [UNSUPPORTED]: string
}
interface RawJson {
  [RAW_JSON]: string
}

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
    const finish = (err: Error | null, value?: unknown) => {
      if (!finished) {
        finished = true
        done(err, value)
      }
    }
    payload.on('data', (chunk: Buffer) => {
      received += chunk.length
      if (received > limit) {
        payload.removeAllListeners('data')
        payload.resume()
        finish(tooLarge())
      }
    })
    payload.on('end', () =>
      finish(null, { [UNSUPPORTED]: String(req.headers['content-type'] ?? '') } satisfies Unsupported),
    )
    payload.on('error', finish)
  })
}

/** The request body as data: JSON value, form fields, or multipart text fields. Empty: {}. With `accept` 'columns'
 * (a bulk create), a column-wise body (`COLUMNS_TYPE`) is read as ColumnRows; elsewhere that type is a 415. */
export async function readBody(req: FastifyRequest, accept?: 'columns'): Promise<unknown> {
  const cached = parsedBodies.get(req)
  if (cached !== undefined) return cached
  const value = await parse(req, accept)
  parsedBodies.set(req, value)
  return value
}

/**
 * Multipart on a route that takes only a small body (one for callers not yet authenticated): its declared
 * length and every field within that body limit, a few fields and no file, so what is kept in memory stays
 * within the limit too. Elsewhere the app's multipart limits hold.
 */
function smallMultipart(
  req: FastifyRequest,
): { limits: { fieldSize: number; fields: number; parts: number; files: number } } | undefined {
  const limit = req.routeOptions.bodyLimit
  if (!limit || limit >= (req.server.initialConfig.bodyLimit ?? Infinity)) return undefined
  if (Number(req.headers['content-length'] ?? 0) > limit) throw tooLarge()
  return { limits: { fieldSize: limit, fields: 8, parts: 8, files: 0 } }
}

async function parse(req: FastifyRequest, accept?: 'columns'): Promise<unknown> {
  const body = req.body as unknown
  if (req.isMultipart?.()) {
    const fields: Record<string, unknown> = {}
    for await (const part of req.parts(smallMultipart(req))) {
      if (part.type === 'file') {
        part.file.resume()
        continue
      }
      // a value cut at the field size limit is refused, never stored shortened
      if (part.valueTruncated) throw fieldTooLarge(part.fieldname)
      fields[part.fieldname] = part.value
    }
    return fields
  }
  if (body === undefined || body === null) return {}
  if (typeof body === 'object' && UNSUPPORTED in (body as object)) {
    throw unsupportedMediaType((body as Unsupported)[UNSUPPORTED].split(';')[0].trim())
  }
  if (typeof body === 'object' && RAW_JSON in (body as object)) {
    const columns = mediaType(req) === COLUMNS_TYPE
    if (columns && accept !== 'columns') throw unsupportedMediaType(COLUMNS_TYPE)
    const text = (body as RawJson)[RAW_JSON]
    if (text.trim() === '' && !columns) return {}
    const { deeperAt, items } = scanJson(text, MAX_JSON_DEPTH)
    if (deeperAt) throw parseError(`nested deeper than ${MAX_JSON_DEPTH} levels at character ${deeperAt}`)
    // an array of more records than one request may make is refused before it is parsed
    const maxItems = req.server.config.maxBulkItems
    if (items > maxItems) throw tooManyItems(maxItems, items)
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch (e) {
      throw parseError((e as Error).message)
    }
    return columns ? columnRowsOf(data, maxItems) : data
  }
  return body
}

/** The request's media type, without its parameters, in lower case. */
const mediaType = (req: FastifyRequest) =>
  String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase()

/** Deeper JSON than any record of the API needs; deeper nesting is refused before it is parsed. */
export const MAX_JSON_DEPTH = 64

const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COMMA = 0x2c,
  OPEN_ARRAY = 0x5b,
  CLOSE_ARRAY = 0x5d,
  OPEN_OBJECT = 0x7b,
  CLOSE_OBJECT = 0x7d

/**
 * The position (1-based) where `text` nests arrays and objects deeper than `max`, or 0. A scan of the
 * text, building nothing: parsing deeply nested JSON first costs the server seconds of its thread and
 * gigabytes of memory for a body of a few megabytes, before any error could be reported.
 */
export function nestingBeyond(text: string, max: number): number {
  return scanJson(text, max).deeperAt
}

/** What a scan of JSON text finds before it is parsed: where it nests deeper than `maxDepth` (0: nowhere),
 * and, when it is an array, how many items it has (-1 for anything else). */
export function scanJson(text: string, maxDepth: number): { deeperAt: number; items: number } {
  let depth = 0
  let items = -1
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (items === 0 && depth === 1 && c > 0x20 && c !== CLOSE_ARRAY) items = 1
    if (c === QUOTE) {
      // a string, passed over to its closing quote (found by the engine's search: a bulk body is mostly strings)
      i = stringEnd(text, i)
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (depth === 0 && c === OPEN_ARRAY && items === -1) items = 0
      if (++depth > maxDepth) return { deeperAt: i + 1, items }
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--
    } else if (c === COMMA && depth === 1 && items > 0) {
      items++
    }
  }
  return { deeperAt: 0, items }
}

/** Where the string opened at `open` ends: its next quote not escaped (after an even number of backslashes), or the
 * text's end when it is not closed (JSON.parse then says so). */
function stringEnd(text: string, open: number): number {
  for (let end = text.indexOf('"', open + 1); end >= 0; end = text.indexOf('"', end + 1)) {
    let slashes = 0
    while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++
    if (slashes % 2 === 0) return end
  }
  return text.length
}
