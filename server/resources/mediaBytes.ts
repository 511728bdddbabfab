import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Caller } from '../access.js'
import { authenticate } from '../auth/authenticate.js'
import { ApiError, notAuthenticated, notFound } from '../http/errors.js'
import { parseRange } from '../http/range.js'
import { openAudio } from '../analysis/audioSource.js'
import type { WavLayout } from '../analysis/wavLayout.js'
import { contentTypeOf } from '../media/facts.js'
import { frameSpans, silencedWavBytes, type FrameSpan } from '../media/silence.js'
import { hearingOf } from '../media/speechPolicy.js'
import { mediaFileNamed } from '../named.js'
import type { EndpointDeps } from '../http/endpoint.js'
import { isStoredName } from '../storage/index.js'
import { jobResultFiles } from './jobResultFile.js'
import { mediaFiles } from './mediaFile.js'
import type { Reader, Records } from './core/records.js'

// GET /media/<name>: the bytes of a stored file, to whoever may read the
// record that names it (a media file: read on its library; a job result file:
// the job's owner), by any authentication scheme. Single byte ranges (206) let
// audio players seek; the file streams from storage. Anything the caller may
// not read is answered exactly like a name that does not exist (404). A recording of a library that keeps
// speech from its readers leaves as its speech policy says (server/media/speechPolicy.ts): withheld (403), or
// with its spans of speech silenced.

export const MEDIA_PREFIX = '/media/'

/** What names a stored file the caller may read: a media file (whose audio its library's speech policy gives out)
 * or a job result file. */
type Owner =
  | { mediaFile: { id: number; library_id: number; alias: string; speech_scanned_at: string | null } }
  | { resultFile: number }

async function readableOwner(records: Records, as: Reader, name: string): Promise<Owner | null> {
  const m = await records
    .readable(as, mediaFiles)
    .select(['r.id', 'r.library_id', 'r.alias', 'r.speech_scanned_at'])
    .where('r.file', '=', name)
    .limit(1)
    .executeTakeFirst()
  if (m) {
    const scanned = m.speech_scanned_at
    return {
      mediaFile: {
        id: Number(m.id),
        library_id: Number(m.library_id),
        alias: String(m.alias),
        speech_scanned_at: scanned === null ? null : String(scanned),
      },
    }
  }
  const resultFile = await records
    .readable(as, jobResultFiles)
    .select('r.id')
    .where('r.result_file', '=', name)
    .limit(1)
    .executeTakeFirst()
  return resultFile ? { resultFile: Number(resultFile.id) } : null
}

/** How the file's bytes leave: as stored, or (a WAV recording of a library that mutes speech) with its speech silenced. */
type Delivery = { silenced: null } | { silenced: { layout: WavLayout; spans: FrameSpan[] } }

async function deliveryOf(deps: EndpointDeps, caller: Caller, owner: Owner, name: string): Promise<Delivery> {
  if (!('mediaFile' in owner)) return { silenced: null }
  const hearing = await hearingOf(deps.db, caller, owner.mediaFile)
  if (hearing.kind === 'original') return { silenced: null }
  if (hearing.kind === 'withheld') throw new ApiError(403, { detail: hearing.reason })
  let layout: WavLayout | undefined
  try {
    layout = (await openAudio(deps.storage, name)).info.wav
  } catch {
    layout = undefined
  }
  if (!layout) {
    throw new ApiError(403, {
      detail: `${mediaFileNamed(owner.mediaFile)} holds human speech, which its library mutes for its readers, and mas silences only WAV recordings' bytes: its spectrogram is shown muted.`,
    })
  }
  return { silenced: { layout, spans: frameSpans(hearing.spans, layout.sampleRate) } }
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
      const owner = isStoredName(name)
        ? await readableOwner(deps.services.records, { db: deps.db, caller }, name)
        : null
      if (!owner) throw notFound()
      const info = await storage.stat(name)
      if (!info) throw notFound()
      const delivery = await deliveryOf(deps, caller, owner, name)

      const range = parseRange(req.headers.range, info.size)
      if (range === 'unsatisfiable') {
        throw new ApiError(
          416,
          { detail: 'Requested range not satisfiable.' },
          { 'Content-Range': `bytes */${info.size}` },
        )
      }
      reply.headers({
        'Content-Type': contentTypeOf(name),
        'Accept-Ranges': 'bytes',
        'Last-Modified': info.modified.toUTCString(),
        // silenced bytes are this caller's, and change with the library's speech tags: never kept
        'Cache-Control': delivery.silenced ? 'private, no-store' : 'private, max-age=3600',
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
      const bytes = storage.read(name, range ?? undefined)
      if (!delivery.silenced) return reply.send(bytes)
      return reply.send(silencedWavBytes(bytes, range?.start ?? 0, delivery.silenced.layout, delivery.silenced.spans))
    },
  })
}
