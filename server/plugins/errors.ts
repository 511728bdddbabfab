import type { FastifyError, FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { isConnectionLost } from '../db/connectionLost.js'
import { AccessRefused } from '../access.js'
import {
  ApiError,
  BASIC_CHALLENGE,
  databaseUnavailable,
  forbidden,
  tooLarge,
  unsupportedMediaType,
} from '../http/errors.js'

// Every error answer in the API's shapes (docs/decisions.md, "Errors"): our own
// ApiErrors as they are, the domain's refusals (AccessRefused) as 403s, errors of fastify, its plugins and PostgreSQL mapped to
// 4xx answers, a lost database connection a 503, anything else a logged 500 with a body that tells nothing.

async function errorAnswers(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError | ApiError, req, reply) => {
    const allow = req.routeOptions?.config?.allow
    if (allow) reply.header('Allow', allow)
    const api = asApiError(error as FastifyError, req.headers['content-type'])
    if (api) {
      if (api.statusCode === 503) req.log.warn({ err: error, reqId: req.id }, 'database unavailable')
      reply.headers(pageChallenge(req.headers['x-requested-with'], api.headers))
      return reply.code(api.statusCode).send(api.body)
    }
    req.log.error({ err: error, reqId: req.id }, 'unexpected error')
    return reply.code(500).send({ detail: 'A server error occurred.' })
  })
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ detail: 'Not found.' }))
}

export default fp(errorAnswers, { name: 'error-answers' })

/**
 * A page's own script (X-Requested-With: XMLHttpRequest, as scripts mark their requests) is challenged for a
 * token instead of Basic: a browser answers a Basic challenge to a script with its own login dialog, over the
 * page (the review page logs in with its form).
 */
function pageChallenge(
  requestedWith: string | string[] | undefined,
  headers: Record<string, string>,
): Record<string, string> {
  if (requestedWith !== 'XMLHttpRequest' || headers['WWW-Authenticate'] !== BASIC_CHALLENGE) return headers
  return { ...headers, 'WWW-Authenticate': 'Token' }
}

/** Errors raised by fastify, its plugins or the database, as the API's error shapes; null for a real 500. */
function asApiError(error: FastifyError & { code?: string }, contentType?: string): ApiError | null {
  if (error instanceof ApiError) return error
  if (error instanceof AccessRefused) return forbidden(error.message)
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return tooLarge(error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'Request body is too large.' : error.message)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(
        String(contentType ?? '')
          .split(';')[0]
          .trim(),
      )
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return unsupportedMediaType(
        String(contentType ?? '')
          .split(';')[0]
          .trim(),
      )
    case '23505': // unique_violation
      return new ApiError(400, { non_field_errors: ['A record with these values already exists.'] })
    case '23503': // foreign_key_violation
      return new ApiError(400, { non_field_errors: ['A referenced record does not exist.'] })
    case '22P02':
    case '22003':
    case '22007':
    case '22008':
    case '22021':
    case '54000':
      return new ApiError(400, { non_field_errors: ['Invalid value.'] })
  }
  // busboy's own errors on a malformed multipart body (no boundary, cut short...) carry no code
  if (/^Multipart: |multipart data|Boundary required|Malformed part header/i.test(error.message ?? '')) {
    return new ApiError(400, { detail: `Multipart form parse error - ${error.message}` })
  }
  const status = (error as FastifyError).statusCode
  if (status && status >= 400 && status < 500) return new ApiError(status, { detail: error.message })
  // the database went away under the request (docs/decisions.md §16); a client's own broken socket is a 4xx above
  if (isConnectionLost(error)) return databaseUnavailable()
  return null
}
