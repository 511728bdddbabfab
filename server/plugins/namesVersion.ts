import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.js'
import { ApiError } from '../http/errors.js'

// The names version (docs/decisions.md, "Fast per command"): a client that remembers the ids of names
// sends `Mas-Names-Version: V` (the version it learned them at; `*` to learn it); the answer carries
// the current version in the same header, and a request made at another version is refused with 412
// before anything else is done, so the client looks its names up again and repeats it. Requests without
// the header are answered as always.

export const NAMES_VERSION_HEADER = 'mas-names-version'

export async function namesVersion(db: Kysely<DB>): Promise<string> {
  const row = await db.selectFrom('names_version').select('version').executeTakeFirstOrThrow()
  return String(row.version)
}

async function namesVersionCheck(app: FastifyInstance) {
  app.addHook('onRequest', async (req, reply) => {
    const sent = req.headers[NAMES_VERSION_HEADER]
    if (typeof sent !== 'string' || !req.url.startsWith('/api/')) return
    const current = await namesVersion(app.db)
    reply.header(NAMES_VERSION_HEADER, current)
    if (sent !== '*' && sent !== current) {
      throw new ApiError(
        412,
        { detail: `Names have changed since version ${sent} (now ${current}): look them up again.` },
        { [NAMES_VERSION_HEADER]: current },
      )
    }
  })
}

export default fp(namesVersionCheck, { name: 'names-version', decorators: { fastify: ['db'] } })
