import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { Caller } from '../access.js'
import { authenticate } from '../auth/authenticate.js'
import type { DB } from '../db/schema.js'
import { ApiError, notAuthenticated, notFound } from '../http/errors.js'
import { parseRange } from '../http/range.js'
import { contentTypeOf } from '../media/facts.js'
import type { EndpointDeps } from '../http/endpoint.js'
import { isStoredName } from '../storage/index.js'
import { jobResultFiles } from './jobResultFile.js'
import { mediaFiles } from './mediaFile.js'
import { readable } from './resource.js'
import type { Accelerators } from './fast/index.js'

// GET /media/<name>: the bytes of a stored file, to whoever may read the
// record that names it (a media file: read on its library; a job result file:
// the job's owner), by any authentication scheme. Single byte ranges (206) let
// audio players seek; the file streams from storage. Anything the caller may
// not read is answered exactly like a name that does not exist (404).

export const MEDIA_PREFIX = '/media/'

/** The records that may name a stored file: the resource and the column holding the name. */
const OWNERS = [
  { resource: mediaFiles, column: 'file' },
  { resource: jobResultFiles, column: 'result_file' },
] as const

async function mayRead(db: Kysely<DB>, fast: Accelerators, caller: Caller, name: string): Promise<boolean> {
  for (const o of OWNERS) {
    const row = await readable(db, o.resource, caller, 'read', fast).select('r.id').where(`r.${o.column}`, '=', name)
      .limit(1).executeTakeFirst()
    if (row) return true
  }
  return false
}

export function registerMediaRoutes(app: FastifyInstance, deps: EndpointDeps) {
  const { storage } = deps
  app.route({
    method: ['GET', 'HEAD'],
    url: `${MEDIA_PREFIX}*`,
    exposeHeadRoute: false,
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      reply.header('Allow', 'GET, HEAD')
      const caller = await authenticate(req, deps.db, deps.config, deps.services.callers)
      if (!caller) throw notAuthenticated()
      const name = (req.params as Record<string, string>)['*'] ?? ''
      if (!isStoredName(name) || !(await mayRead(deps.db, deps.services.fast, caller, name))) throw notFound()
      const info = await storage.stat(name)
      if (!info) throw notFound()

      const range = parseRange(req.headers.range, info.size)
      if (range === 'unsatisfiable') {
        throw new ApiError(416, { detail: 'Requested range not satisfiable.' }, { 'Content-Range': `bytes */${info.size}` })
      }
      reply.headers({
        'Content-Type': contentTypeOf(name),
        'Accept-Ranges': 'bytes',
        'Last-Modified': info.modified.toUTCString(),
        'Cache-Control': 'private, max-age=3600',
        // a stored file is never a page of this site, whatever it contains
        'Content-Security-Policy': "default-src 'none'; sandbox",
      })
      if (range) {
        reply.code(206).headers({
          'Content-Range': `bytes ${range.start}-${range.end}/${info.size}`,
          'Content-Length': String(range.end - range.start + 1),
        })
      } else {
        reply.code(200).header('Content-Length', String(info.size))
      }
      if (req.method === 'HEAD' || info.size === 0) return reply.send()
      return reply.send(storage.read(name, range ?? undefined))
    },
  })
}
