import { randomBytes } from 'node:crypto'
import { localTimestamp } from '../db/time.js'
import type { Endpoint } from '../http/endpoint.js'
import { badRequest } from '../http/errors.js'
import { secretDigest } from './passwords.js'
import { LOGIN_BODY_BYTES, startSession } from './routes.js'

// Login codes (docs/decisions.md §19): a caller with a token (the CLI's `mas review open`) asks for a code, puts it
// in a page's URL fragment (which browsers never send to a server), and the page exchanges it once for a browser
// session of that caller. A code lives a short while and is gone once used; the token itself never enters a URL.

export const LOGIN_CODE_SECONDS = 120

const CODE = /^[0-9a-f]{40}$/
const INVALID = 'Invalid or expired code.'

export function loginCodeEndpoints(): Endpoint[] {
  return [
    {
      path: '/api/v0/loginCode/',
      name: 'Login Code',
      description: `A one-time code (valid ${LOGIN_CODE_SECONDS} s) that a page exchanges at /api-auth/code/ for a session of the caller.`,
      methods: {
        POST: async (ctx) => {
          const code = randomBytes(20).toString('hex')
          const expires = localTimestamp(new Date(Date.now() + LOGIN_CODE_SECONDS * 1000))
          await ctx.db.deleteFrom('login_codes').where('expires', '<', localTimestamp()).execute()
          await ctx.db
            .insertInto('login_codes')
            .values({ digest: secretDigest(code), user_id: ctx.caller.id, expires })
            .execute()
          return { status: 201, body: { code, expires } }
        },
      },
      doc: {
        keys: ['loginCode'],
        actions: { POST: 'create' },
        openapiOnly: true,
        success: {
          POST: [{ status: 201, description: 'The code', body: { type: 'object', required: ['code', 'expires'] } }],
        },
      },
    },
    {
      path: '/api-auth/code/',
      name: 'Log in with a code',
      auth: false,
      bodyLimit: LOGIN_BODY_BYTES,
      methods: {
        POST: async (ctx) => {
          const body = await ctx.body()
          const code =
            body && typeof body === 'object' && !Array.isArray(body)
              ? (body as Record<string, unknown>).code
              : undefined
          if (typeof code !== 'string' || !CODE.test(code)) throw badRequest({ code: [INVALID] })
          const used = await ctx.db
            .deleteFrom('login_codes')
            .where('digest', '=', secretDigest(code))
            .where('expires', '>=', localTimestamp())
            .returning('user_id')
            .executeTakeFirst()
          if (!used) throw badRequest({ code: [INVALID] })
          const user = await ctx.db
            .selectFrom('users')
            .select('id')
            .where('id', '=', used.user_id)
            .where('is_active', '=', true)
            .executeTakeFirst()
          if (!user) throw badRequest({ code: [INVALID] })
          await startSession(ctx, user.id)
          return { body: { detail: 'Logged in.' } }
        },
      },
      doc: {
        keys: ['api-auth', 'code'],
        actions: { POST: 'create' },
        openapiOnly: true,
        description: 'Exchange a login code (from loginCode/) for a session: sets the sessionid and csrftoken cookies.',
        success: { POST: [{ status: 200, description: 'Logged in', body: { type: 'object', required: ['detail'] } }] },
      },
    },
  ]
}
