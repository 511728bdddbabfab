import '@fastify/cookie'
import { randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.js'
import { localTimestamp } from '../db/time.js'
import type { Context, Endpoint } from '../http/endpoint.js'
import { badRequest } from '../http/errors.js'
import { MSG } from '../http/errors.js'
import { checkPassword } from './credentials.js'
import { newToken, secretDigest } from './passwords.js'
import { loginLimits } from './throttle.js'
import { CSRF_COOKIE, requireCsrf, SESSION_COOKIE } from './authenticate.js'

// Obtaining credentials: the token endpoint and the browser session login/logout.
// These answer callers who are not yet authenticated, so their bodies are kept
// small (LOGIN_BODY_BYTES) and refused beyond that before they are parsed.

/** A username, a password, a CSRF token and a `next` path fit many times over. */
export const LOGIN_BODY_BYTES = 8 * 1024

const credentialFields = {
  username: { type: 'string', required: true, description: 'Valid username for authentication' },
  password: { type: 'string', required: true, description: 'Valid password for authentication' },
} as const

function fieldsOf(body: unknown): Record<string, unknown> {
  return (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>
}

/** The user named by a username/password body, or a 400/429 answer. */
async function checkCredentials(ctx: Context, data: Record<string, unknown>): Promise<{ id: number }> {
  const errors: Record<string, string[]> = {}
  for (const f of ['username', 'password'] as const) {
    const v = data[f]
    if (v === undefined) errors[f] = [MSG.required]
    else if (typeof v !== 'string') errors[f] = [MSG.string]
    else if (v === '') errors[f] = [MSG.blank]
  }
  if (Object.keys(errors).length) throw badRequest(errors)
  const check = await checkPassword(
    ctx.db,
    loginLimits(ctx.config),
    ctx.req.ip,
    data.username as string,
    data.password as string,
  )
  if (!check.ok) throw badRequest({ non_field_errors: ['Unable to log in with provided credentials.'] })
  return { id: check.user.id }
}

/** The user's token, created on first request; concurrent first requests get the same one. */
export async function tokenFor(db: Kysely<DB>, userId: number): Promise<string> {
  const key = newToken()
  await db
    .insertInto('tokens')
    .values({ key, digest: secretDigest(key), user_id: userId, created: localTimestamp() })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute()
  const row = await db.selectFrom('tokens').select('key').where('user_id', '=', userId).executeTakeFirstOrThrow()
  return row.key
}

const CSRF_TOKEN = /^[A-Za-z0-9]{32,64}$/

function setCsrfCookie(req: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(CSRF_COOKIE, token, {
    path: '/',
    sameSite: 'lax',
    secure: req.protocol === 'https',
    maxAge: 365 * 86400,
  })
}

/** The login form, carrying the CSRF token that its POST must return (the cookie's, or a new one). */
function loginPage(req: FastifyRequest, reply: FastifyReply): string {
  const current = req.cookies?.[CSRF_COOKIE] ?? ''
  const token = CSRF_TOKEN.test(current) ? current : randomBytes(32).toString('hex')
  if (token !== current) setCsrfCookie(req, reply, token)
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>mas — log in</title></head>
<body><form method="post" action="/api-auth/login/">
<input type="hidden" name="csrfmiddlewaretoken" value="${token}">
<label>Username <input name="username" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Log in</button></form></body></html>
`
}

/** A new browser session of the user: its cookie, and a new CSRF token with it (as Django rotates it at login). */
export async function startSession(ctx: Context, userId: number): Promise<void> {
  const key = randomBytes(24).toString('hex')
  const days = ctx.config.sessionDays
  await ctx.db
    .insertInto('sessions')
    .values({
      key: secretDigest(key),
      user_id: userId,
      expires: localTimestamp(new Date(Date.now() + days * 86400_000)),
    })
    .execute()
  const secure = ctx.req.protocol === 'https'
  ctx.reply.setCookie(SESSION_COOKIE, key, { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: days * 86400 })
  setCsrfCookie(ctx.req, ctx.reply, randomBytes(32).toString('hex'))
}

const DETAIL = { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } }

export function authEndpoints(): Endpoint[] {
  return [
    {
      path: '/api-token-auth/',
      name: 'Obtain Auth Token',
      auth: false,
      bodyLimit: LOGIN_BODY_BYTES,
      methods: {
        POST: async (ctx) => {
          const user = await checkCredentials(ctx, fieldsOf(await ctx.body()))
          return { body: { token: await tokenFor(ctx.db, user.id) } }
        },
      },
      doc: {
        keys: ['api-token-auth'],
        actions: { POST: 'create' },
        fields: { POST: credentialFields },
        success: {
          POST: [
            {
              status: 200,
              description: 'The token of the user (the same one until it is removed)',
              body: {
                type: 'object',
                required: ['token'],
                properties: { token: { type: 'string', pattern: '^[0-9a-f]{40}$' } },
              },
            },
          ],
        },
      },
    },
    {
      path: '/api-auth/login/',
      name: 'Log in',
      auth: false,
      bodyLimit: LOGIN_BODY_BYTES,
      methods: {
        GET: async (ctx) => {
          ctx.reply.type('text/html; charset=utf-8')
          return { body: loginPage(ctx.req, ctx.reply) }
        },
        POST: async (ctx) => {
          // login CSRF: another site must not log a browser in to an account of its choosing
          const data = fieldsOf(await ctx.body())
          requireCsrf(ctx.req, data.csrfmiddlewaretoken)
          const user = await checkCredentials(ctx, data)
          await startSession(ctx, user.id)
          const next = typeof data.next === 'string' && isSameOriginPath(data.next) ? data.next : null
          if (next) return { status: 302, headers: { Location: next } }
          return { body: { detail: 'Logged in.' } }
        },
      },
      doc: {
        keys: ['api-auth', 'login'],
        actions: { POST: 'create' },
        openapiOnly: true,
        fields: { POST: credentialFields },
        description:
          'Session login (form fields username, password, optional next); sets the sessionid and csrftoken cookies. GET is the HTML form.',
        success: {
          POST: [
            { status: 200, description: 'Logged in', body: DETAIL },
            { status: 302, description: 'Logged in: to `next`', body: 'none' },
          ],
        },
      },
    },
    {
      path: '/api-auth/logout/',
      name: 'Log out',
      auth: false,
      bodyLimit: LOGIN_BODY_BYTES,
      // GET as the original service answers it; a POST is a form submission and carries the CSRF token
      methods: {
        GET: logout,
        POST: async (ctx) => {
          requireCsrf(ctx.req, fieldsOf(await ctx.body()).csrfmiddlewaretoken)
          return logout(ctx)
        },
      },
      doc: {
        keys: ['api-auth', 'logout'],
        actions: { GET: 'read', POST: 'create' },
        openapiOnly: true,
        description: 'End the session.',
        success: {
          GET: [{ status: 200, description: 'Logged out', body: DETAIL }],
          POST: [{ status: 200, description: 'Logged out', body: DETAIL }],
        },
      },
    },
  ]
}

async function logout(ctx: Context) {
  const key = ctx.req.cookies?.[SESSION_COOKIE]
  if (key) {
    await ctx.db.deleteFrom('sessions').where('key', '=', secretDigest(key)).execute()
    ctx.services.callers.forget()
  }
  ctx.reply.clearCookie(SESSION_COOKIE, { path: '/' })
  return { body: { detail: 'Logged out.' } }
}

/**
 * A `next` that stays on this site: a path from the root, never `//host` or `/\host`, with no control
 * characters, spaces or backslashes anywhere (browsers drop tabs and newlines from a Location, so
 * `/\t/evil.example` would be followed as `//evil.example`), and which resolves to this origin.
 */
export function isSameOriginPath(next: string): boolean {
  if (!/^\/(?![/\\])/.test(next) || /[\x00-\x20\x7f\\]/.test(next)) return false
  try {
    return new URL(next, 'http://mas.invalid').origin === 'http://mas.invalid'
  } catch {
    return false
  }
}
