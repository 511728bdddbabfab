import '@fastify/cookie'
import { timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { Caller } from '../access.js'
import type { AppConfig } from '../config.js'
import type { DB } from '../db/schema.js'
import { localTimestamp } from '../db/time.js'
import { authenticationFailed, forbidden, notAuthenticated } from '../http/errors.js'
import { credentialKey, type CallerCache } from './callerCache.js'
import { refuseIfThrottled, verifyCredentials } from './credentials.js'
import { secretDigest } from './passwords.js'
import { loginLimits, type LoginLimits } from './throttle.js'

// The request's user, from HTTP Basic, `Authorization: Token <key>`, or the
// session cookie (in that order, as DRF tries its authentication classes).

/** How a request's caller was authenticated (a session's writes must echo the CSRF cookie), kept on the request. */
const SCHEME = Symbol('auth scheme')
type SchemeMarked = FastifyRequest & { [SCHEME]?: Scheme }
type Scheme = 'basic' | 'token' | 'session'

export const SESSION_COOKIE = 'sessionid'
export const CSRF_COOKIE = 'csrftoken'
export const CSRF_HEADER = 'x-csrftoken'

interface UserRow {
  id: number
  username: string
  is_admin: boolean
  is_active: boolean
}

function callerOf(u: UserRow): Caller {
  return { id: u.id, username: u.username, isAdmin: u.is_admin }
}

export async function authenticate(
  req: FastifyRequest,
  db: Kysely<DB>,
  config: AppConfig,
  callers: CallerCache,
  opts: { required?: boolean } = {},
): Promise<Caller | null> {
  const header = req.headers.authorization
  const [scheme, ...rest] = (header ?? '').trim().split(/\s+/)
  const lower = scheme?.toLowerCase()
  if (lower === 'basic') {
    const { username, password } = basicCredentials(rest)
    const limits = loginLimits(config)
    await refuseIfThrottled(db, limits, req.ip, username)
    return mark(
      req,
      'basic',
      await remembered(callers, credentialKey('basic', header!.trim()), () =>
        basic(db, limits, req.ip, username, password),
      ),
    )
  }
  if (lower === 'token')
    return mark(req, 'token', await remembered(callers, credentialKey('token', header!.trim()), () => token(db, rest)))
  const sessionKey = req.cookies?.[SESSION_COOKIE]
  if (sessionKey) {
    const user = await remembered(callers, credentialKey('session', sessionKey), () => sessionUser(db, sessionKey))
    if (user) return mark(req, 'session', user)
  }
  if (opts.required) throw notAuthenticated()
  return null
}

/** The caller of a credential seen within the last few seconds (see callerCache.ts), else `lookUp()`'s. */
async function remembered<C extends Caller | null>(
  cache: CallerCache,
  key: string,
  lookUp: () => Promise<C>,
): Promise<C> {
  const hit = cache.get(key)
  if (hit) return hit as C
  const generation = cache.generation
  const caller = await lookUp()
  if (caller) cache.set(key, caller, generation)
  return caller
}

function mark(req: FastifyRequest, scheme: Scheme, caller: Caller): Caller {
  ;(req as SchemeMarked)[SCHEME] = scheme
  return caller
}

/** The username and password of a Basic header's credentials, or the 401 DRF answers for a malformed one. */
function basicCredentials(rest: string[]): { username: string; password: string } {
  if (rest.length === 0) throw authenticationFailed('Invalid basic header. No credentials provided.')
  if (rest.length > 1) throw authenticationFailed('Invalid basic header. Credentials string should not contain spaces.')
  const decoded = Buffer.from(rest[0], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0 || !/^[A-Za-z0-9+/=]+$/.test(rest[0])) {
    throw authenticationFailed('Invalid basic header. Credentials not correctly base64 encoded.')
  }
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

async function basic(
  db: Kysely<DB>,
  limits: LoginLimits,
  address: string,
  username: string,
  password: string,
): Promise<Caller> {
  const check = await verifyCredentials(db, limits, address, username, password)
  if (!check.ok)
    throw authenticationFailed(check.reason === 'inactive' ? 'User inactive or deleted.' : 'Invalid username/password.')
  return callerOf(check.user)
}

async function token(db: Kysely<DB>, rest: string[]): Promise<Caller> {
  if (rest.length === 0) throw authenticationFailed('Invalid token header. No credentials provided.')
  if (rest.length > 1) throw authenticationFailed('Invalid token header. Token string should not contain spaces.')
  const key = rest[0]
  if (!/^[0-9a-f]{40}$/.test(key)) throw authenticationFailed('Invalid token.')
  const user = await db
    .selectFrom('tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['u.id', 'u.username', 'u.is_admin', 'u.is_active'])
    .where('t.digest', '=', secretDigest(key))
    .executeTakeFirst()
  if (!user) throw authenticationFailed('Invalid token.')
  if (!user.is_active) throw authenticationFailed('User inactive or deleted.')
  return callerOf(user)
}

async function sessionUser(db: Kysely<DB>, key: string): Promise<Caller | null> {
  if (key.length > 64) return null
  const user = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['u.id', 'u.username', 'u.is_admin', 'u.is_active'])
    .where('s.key', '=', secretDigest(key))
    .where('s.expires', '>', localTimestamp())
    .executeTakeFirst()
  return user && user.is_active ? callerOf(user) : null
}

/** Session-authenticated writes must echo the csrftoken cookie in X-CSRFToken. */
export function checkCsrf(req: FastifyRequest): void {
  if ((req as SchemeMarked)[SCHEME] !== 'session') return
  requireCsrf(req)
}

/**
 * The csrftoken cookie echoed in the X-CSRFToken header or, from an HTML form, the `csrfmiddlewaretoken`
 * field (`formToken`): a page of another site can make the browser send the cookie, never read it.
 */
export function requireCsrf(req: FastifyRequest, formToken?: unknown): void {
  const cookie = req.cookies?.[CSRF_COOKIE] ?? ''
  const sent = String(req.headers[CSRF_HEADER] ?? (typeof formToken === 'string' ? formToken : ''))
  if (!cookie || !sent || !sameSecret(cookie, sent)) throw forbidden('CSRF Failed: CSRF token missing or incorrect.')
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a),
    y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}
