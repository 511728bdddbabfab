import '@fastify/cookie'
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.js'
import { localTimestamp } from '../db/time.js'
import type { Context, Endpoint } from '../http/endpoint.js'
import { badRequest, throttled } from '../http/errors.js'
import { MSG } from '../http/errors.js'
import { forgetCallers } from './callerCache.js'
import { burnPasswordCheck, newToken, secretDigest, verifyPassword } from './passwords.js'
import { FailureThrottle } from './throttle.js'
import { CSRF_COOKIE, SESSION_COOKIE } from './authenticate.js'

// Obtaining credentials: the token endpoint and the browser session login/logout.

const credentialFields = {
  username: { type: 'string', required: true, description: 'Valid username for authentication' },
  password: { type: 'string', required: true, description: 'Valid password for authentication' },
} as const

/** The user named by a username/password body, or a 400/429 answer; failures are throttled. */
async function checkCredentials(ctx: Context, throttle: FailureThrottle): Promise<{ id: number }> {
  const body = await ctx.body()
  const data = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>
  const errors: Record<string, string[]> = {}
  for (const f of ['username', 'password'] as const) {
    const v = data[f]
    if (v === undefined) errors[f] = [MSG.required]
    else if (typeof v !== 'string') errors[f] = [MSG.string]
    else if (v === '') errors[f] = [MSG.blank]
  }
  if (Object.keys(errors).length) throw badRequest(errors)
  const username = data.username as string
  const password = data.password as string
  const key = `${ctx.req.ip}|${username}`
  const wait = throttle.retryAfter(key)
  if (wait > 0) throw throttled(wait)
  const user = await ctx.db.selectFrom('users').select(['id', 'password', 'is_active'])
    .where('username', '=', username).executeTakeFirst()
  const valid = user ? await verifyPassword(password, user.password) : (await burnPasswordCheck(password), false)
  if (!user || !valid || !user.is_active) {
    throttle.fail(key)
    throw badRequest({ non_field_errors: ['Unable to log in with provided credentials.'] })
  }
  return { id: user.id }
}

/** The user's token, created on first request; concurrent first requests get the same one. */
export async function tokenFor(db: Kysely<DB>, userId: number): Promise<string> {
  const key = newToken()
  await db.insertInto('tokens').values({ key, digest: secretDigest(key), user_id: userId, created: localTimestamp() })
    .onConflict((oc) => oc.column('user_id').doNothing()).execute()
  const row = await db.selectFrom('tokens').select('key').where('user_id', '=', userId).executeTakeFirstOrThrow()
  return row.key
}

const LOGIN_PAGE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>mas — log in</title></head>
<body><form method="post" action="/api-auth/login/">
<label>Username <input name="username" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Log in</button></form></body></html>
`

const DETAIL = { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } }

export function authEndpoints(throttle: FailureThrottle): Endpoint[] {
  return [
    {
      path: '/api-token-auth/',
      name: 'Obtain Auth Token',
      auth: false,
      methods: {
        POST: async (ctx) => {
          const user = await checkCredentials(ctx, throttle)
          return { body: { token: await tokenFor(ctx.db, user.id) } }
        },
      },
      doc: {
        keys: ['api-token-auth'], actions: { POST: 'create' }, fields: { POST: credentialFields },
        success: { POST: [{ status: 200, description: 'The token of the user (the same one until it is removed)',
          body: { type: 'object', required: ['token'], properties: { token: { type: 'string', pattern: '^[0-9a-f]{40}$' } } } }] },
      },
    },
    {
      path: '/api-auth/login/',
      name: 'Log in',
      auth: false,
      methods: {
        GET: async (ctx) => {
          ctx.reply.type('text/html; charset=utf-8')
          return { body: LOGIN_PAGE }
        },
        POST: async (ctx) => {
          const user = await checkCredentials(ctx, throttle)
          const key = randomBytes(24).toString('hex')
          const days = ctx.config.sessionDays
          await ctx.db.insertInto('sessions')
            .values({ key: secretDigest(key), user_id: user.id, expires: localTimestamp(new Date(Date.now() + days * 86400_000)) })
            .execute()
          const secure = ctx.req.protocol === 'https'
          ctx.reply.setCookie(SESSION_COOKIE, key, { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: days * 86400 })
          ctx.reply.setCookie(CSRF_COOKIE, randomBytes(32).toString('hex'), { path: '/', sameSite: 'lax', secure, maxAge: 365 * 86400 })
          const body = (await ctx.body()) as Record<string, unknown>
          const next = typeof body.next === 'string' && /^\/(?![/\\])/.test(body.next) ? body.next : null
          if (next) return { status: 302, headers: { Location: next } }
          return { body: { detail: 'Logged in.' } }
        },
      },
      doc: {
        keys: ['api-auth', 'login'], actions: { POST: 'create' }, openapiOnly: true, fields: { POST: credentialFields },
        description: 'Session login (form fields username, password, optional next); sets the sessionid and csrftoken cookies. GET is the HTML form.',
        success: { POST: [{ status: 200, description: 'Logged in', body: DETAIL }, { status: 302, description: 'Logged in: to `next`', body: 'none' }] },
      },
    },
    {
      path: '/api-auth/logout/',
      name: 'Log out',
      auth: false,
      methods: { GET: logout, POST: logout },
      doc: {
        keys: ['api-auth', 'logout'], actions: { GET: 'read', POST: 'create' }, openapiOnly: true, description: 'End the session.',
        success: { GET: [{ status: 200, description: 'Logged out', body: DETAIL }], POST: [{ status: 200, description: 'Logged out', body: DETAIL }] },
      },
    },
  ]
}

async function logout(ctx: Context) {
  const key = ctx.req.cookies?.[SESSION_COOKIE]
  if (key) {
    await ctx.db.deleteFrom('sessions').where('key', '=', secretDigest(key)).execute()
    forgetCallers(ctx.db)
  }
  ctx.reply.clearCookie(SESSION_COOKIE, { path: '/' })
  return { body: { detail: 'Logged out.' } }
}
