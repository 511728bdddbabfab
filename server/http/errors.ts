// One error type for every rejected request: a status and a body in the
// shapes Django REST framework clients expect.

export type FieldErrors = Record<string, string[] | FieldErrors[] | unknown>

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, unknown> | unknown[],
    readonly headers: Record<string, string> = {},
  ) {
    super(!Array.isArray(body) && typeof body.detail === 'string' ? body.detail : `HTTP ${statusCode}`)
  }
}

/** The challenge of a 401, the original's (DRF's BasicAuthentication, first of its schemes): clients that log in
 * only when challenged for Basic (Python's HTTPBasicAuthHandler, wget, curl --anyauth) send their credentials
 * then; a token client sends its header anyway. */
export const BASIC_CHALLENGE = 'Basic realm="api"'

const detail = (status: number, message: string, headers?: Record<string, string>) =>
  new ApiError(status, { detail: message }, headers)

export const notFound = () => detail(404, 'Not found.')
export const invalidPage = () => detail(404, 'Invalid page.')
export const forbidden = (message = 'You do not have permission to perform this action.') => detail(403, message)
export const notAuthenticated = () =>
  detail(401, 'Authentication credentials were not provided.', { 'WWW-Authenticate': BASIC_CHALLENGE })
export const authenticationFailed = (message: string) => detail(401, message, { 'WWW-Authenticate': BASIC_CHALLENGE })
export const methodNotAllowed = (method: string) => detail(405, `Method "${method}" not allowed.`)
export const unsupportedMediaType = (type: string) => detail(415, `Unsupported media type "${type}" in request.`)
export const tooLarge = (message = 'Request body is too large.') => detail(413, message)
/** a bulk request over MAS_MAX_BULK_ITEMS (`mas tag import` reads the limit from the message) */
export const tooManyItems = (max: number, items: number) =>
  tooLarge(`A bulk request takes at most ${max} items (MAS_MAX_BULK_ITEMS); this one has ${items}.`)
/** a multipart text part cut at its size limit: refused, never stored shortened nor dropped */
export const fieldTooLarge = (name: string) => tooLarge(`The field "${name}" is too large.`)
export const throttled = (seconds: number) =>
  detail(429, `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`, {
    'Retry-After': String(seconds),
  })
/** seconds a client is asked to wait before trying again while the database is unreachable */
export const DATABASE_RETRY_SECONDS = 5
export const databaseUnavailable = () =>
  detail(503, 'The database is unavailable; try again shortly.', { 'Retry-After': String(DATABASE_RETRY_SECONDS) })
export const parseError = (message: string) => detail(400, `JSON parse error - ${message}`)
export const badRequest = (errors: FieldErrors | unknown[]) => new ApiError(400, errors)
export const fieldError = (field: string, message: string) => badRequest({ [field]: [message] })

export { MSG } from '../values.js'
