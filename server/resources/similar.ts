import { libraryAllows } from '../access.js'
import { audioInMemory } from '../analysis/audioSource.js'
import { UnsupportedAudioError } from '../analysis/audioErrors.js'
import { checkParameters } from '../analysis/parameters.js'
import { BUILTIN_KIND } from '../analysis/similar/store.js'
import {
  clipVector,
  kindNamed,
  nearestWindows,
  NothingToSearch,
  stretchVector,
  type SimilarSearch,
  type SimilarWindow,
  type Span,
} from '../analysis/similar/search.js'
import { insertQueuedJob } from '../analysis/state.js'
import { TRAIN_CLASSIFIER } from '../analysis/catalog.js'
import { jobTypes } from '../analysis/types/index.js'
import type { Context, Endpoint } from '../http/endpoint.js'
import { badRequest, fieldError, notFound } from '../http/errors.js'
import { parseInput, planFields, type Fields } from '../http/fields.js'
import { parseQuery } from '../http/query.js'
import { receiveUpload } from '../http/upload.js'
import { named, tagSetNamed } from '../named.js'
import { jobs } from './jobs.js'
import { libraries } from './library.js'
import { API, render } from './resource.js'
import { tags } from './tag.js'
import { tagSets } from './tagSet.js'

// Search by example and a classifier from its results (extensions, docs/decisions.md §35):
// GET tag/{id}/similar/ and POST library/{id}/similar/ answer the stored windows of one library nearest a tag's
// stretch or a clip; POST tagSet/{id}/train/ starts a TrainClassifier job. A caller who may not read the library
// searched is answered 404, as for a record it cannot see.

const MAX_K = 1000
/** an uploaded clip is short: a few seconds of a call */
const MAX_CLIP_BYTES = 20 * 1024 * 1024

const searchFields: Fields = {
  k: { type: 'integer', min: 1, max: MAX_K, description: 'how many windows (default 100)' },
  kind: {
    type: 'string',
    description: `the stored embeddings searched: ${BUILTIN_KIND} (default) or a model's name or id`,
  },
  exact: { type: 'boolean', description: 'true: measure every stored window instead of searching the index' },
}
const tagQuery: Fields = {
  ...searchFields,
  exclude: {
    type: 'choice',
    choices: ['tagged'],
    description: "tagged: leave out windows already tagged in the tag's tag set",
  },
}
const clipBody: Fields = {
  ...searchFields,
  mediaFile: {
    type: 'integer',
    min: 1,
    description: 'a media file of the library (with startTime and endTime), or a multipart part `file` instead',
  },
  startTime: { type: 'float', min: 0 },
  endTime: { type: 'float', min: 0 },
}
const CLIP_PLAN = planFields(clipBody)

const windowJson = {
  type: 'object',
  required: ['mediaFile', 'startTime', 'endTime', 'distance'],
  properties: {
    mediaFile: { type: 'integer' },
    startTime: { type: 'number' },
    endTime: { type: 'number' },
    distance: { type: 'number', description: '1 − cosine similarity' },
  },
}
const envelope = {
  type: 'object',
  required: ['count', 'next', 'previous', 'results'],
  properties: {
    count: { type: 'integer' },
    next: { type: 'null' },
    previous: { type: 'null' },
    results: { type: 'array', items: windowJson },
  },
}

/** Whether the caller reads library `id`. */
async function readsLibrary(ctx: Context, id: number): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('libraries as l')
    .select('l.id')
    .where('l.id', '=', id)
    .where((eb) => libraryAllows(eb, ctx.caller, eb.ref('l.id'), 'read'))
    .executeTakeFirst()
  return !!row
}

async function kindOf(ctx: Context, text: unknown): Promise<string> {
  const kind = await kindNamed(ctx.db, typeof text === 'string' ? text : undefined)
  if (!kind)
    throw fieldError(
      'kind',
      `No embedding kind "${String(text)}": ${BUILTIN_KIND}, or a model's name or id (mas model list).`,
    )
  return kind
}

async function answer(ctx: Context, search: SimilarSearch): Promise<{ body: unknown }> {
  let results: SimilarWindow[]
  try {
    results = await nearestWindows(ctx.db, ctx.storage, ctx.services.similarIndexes, search)
  } catch (e) {
    if (e instanceof NothingToSearch) throw fieldError(e.field, e.message)
    throw e
  }
  return { body: { count: results.length, next: null, previous: null, results } }
}

async function queryOfStretch(
  ctx: Context,
  mediaFile: { id: number; alias: string },
  kind: string,
  stretch: Span,
  field: string,
): Promise<Float32Array> {
  try {
    return await stretchVector(ctx.db, mediaFile, kind, stretch, field)
  } catch (e) {
    if (e instanceof NothingToSearch) throw fieldError(e.field, e.message)
    throw e
  }
}

export const tagSimilarEndpoint: Endpoint = {
  path: `${API}/tag/:id/similar/`,
  name: 'Tag Similar',
  description:
    "The stored windows of the tag's library nearest the tag's stretch (the mean of its stored windows), nearest first, " +
    "by cosine distance: found by the library's index and re-ranked by the stored vectors, or, with exact=true, by measuring every " +
    "stored window. The tag's own stretch is left out.",
  methods: {
    GET: async (ctx) => {
      const { row: tag } = await ctx.services.records.fetch(ctx, tags, ctx.params.id, ['read'])
      const file = await ctx.db
        .selectFrom('media_files')
        .select(['id', 'alias', 'library_id'])
        .where('id', '=', tag.media_file_id)
        .executeTakeFirstOrThrow()
      if (!(await readsLibrary(ctx, file.library_id))) throw notFound()
      const q = parseQuery(ctx, tagQuery) as { k?: number; kind?: string; exact?: boolean; exclude?: 'tagged' }
      const kind = await kindOf(ctx, q.kind)
      const stretch = { start: tag.start_time, end: tag.end_time }
      const query = await queryOfStretch(ctx, file, kind, stretch, 'kind')
      return answer(ctx, {
        library: file.library_id,
        kind,
        query,
        k: q.k ?? 100,
        exact: q.exact === true,
        own: { mediaFile: tag.media_file_id, stretch },
        ...(q.exclude === 'tagged' ? { excludeTaggedIn: tag.tag_set_id } : {}),
      })
    },
  },
  doc: {
    keys: ['similar'],
    actions: { GET: 'byTag' },
    list: false,
    filters: tagQuery,
    success: { GET: [{ status: 200, description: 'The nearest windows, nearest first', body: envelope }] },
  },
}

export const librarySimilarEndpoint: Endpoint = {
  path: `${API}/library/:id/similar/`,
  name: 'Library Similar',
  description:
    'The stored windows of the library nearest a clip, nearest first: a stretch of one of its media files (JSON mediaFile, ' +
    'startTime, endTime; the mean of its stored windows, which are left out of the answer) or a short recording (multipart part file, ' +
    `embedded with the ${BUILTIN_KIND} embedding as the library's windows were), with k, kind and exact as tag/{id}/similar/.`,
  bodyLimit: MAX_CLIP_BYTES + 64 * 1024,
  methods: {
    POST: async (ctx) => {
      const { row: library } = await ctx.services.records.fetch(ctx, libraries, ctx.params.id, ['read'])
      const upload = await receiveUpload(ctx, ctx.storage, 'file')
      const pending = upload.file
      try {
        const { values, errors } = parseInput(CLIP_PLAN, upload.fields, 'create')
        if (Object.keys(errors).length) throw badRequest(errors)
        const v = values as {
          k?: number
          kind?: string
          exact?: boolean
          mediaFile?: number
          startTime?: number
          endTime?: number
        }
        const kind = await kindOf(ctx, v.kind)
        const base = { library: library.id, kind, k: v.k ?? 100, exact: v.exact === true }
        if (pending) {
          if (kind !== BUILTIN_KIND)
            throw fieldError(
              'kind',
              `An uploaded clip is embedded with the ${BUILTIN_KIND} embedding only; search a model's kind by a stored stretch (mediaFile, startTime, endTime).`,
            )
          if (pending.size > MAX_CLIP_BYTES)
            throw fieldError('file', `A clip is at most ${MAX_CLIP_BYTES} bytes: cut the call out of the recording.`)
          const chunks: Buffer[] = []
          for await (const c of pending.read()) chunks.push(c as Buffer)
          let query: Float32Array
          try {
            query = await clipVector(ctx.db, library, await audioInMemory(Buffer.concat(chunks)))
          } catch (e) {
            if (e instanceof UnsupportedAudioError) throw fieldError('file', e.message)
            if (e instanceof NothingToSearch) throw fieldError(e.field, e.message)
            throw e
          }
          return answer(ctx, { ...base, query })
        }
        const missing = (['mediaFile', 'startTime', 'endTime'] as const).filter((f) => v[f] === undefined)
        if (missing.length)
          throw badRequest(
            Object.fromEntries(missing.map((f) => [f, ['This field is required (or a multipart part `file`).']])),
          )
        if (v.endTime! <= v.startTime!) throw fieldError('endTime', 'endTime must be after startTime.')
        const file = await ctx.db
          .selectFrom('media_files')
          .select(['id', 'alias'])
          .where('id', '=', v.mediaFile!)
          .where('library_id', '=', library.id)
          .executeTakeFirst()
        if (!file)
          throw fieldError(
            'mediaFile',
            `Media file ${v.mediaFile} is not in ${named('library', library.id, library.name)}.`,
          )
        const stretch = { start: v.startTime!, end: v.endTime! }
        const query = await queryOfStretch(ctx, file, kind, stretch, 'mediaFile')
        return answer(ctx, { ...base, query, own: { mediaFile: file.id, stretch } })
      } finally {
        await pending?.discard()
      }
    },
  },
  doc: {
    keys: ['similar'],
    actions: { POST: 'byClip' },
    fields: { POST: clipBody },
    success: { POST: [{ status: 200, description: 'The nearest windows, nearest first', body: envelope }] },
  },
}

const trainBody: Fields = {
  destinationTagSet: {
    type: 'integer',
    min: 1,
    required: true,
    description: 'the tag set the strongest windows are written to',
  },
  kind: {
    type: 'string',
    description: `the stored embeddings learnt from and scored: ${BUILTIN_KIND} (default) or a model's name or id`,
  },
  numberOfTagsToWrite: { type: 'integer', min: 1, max: 100_000, description: 'the most tags to write (default 100)' },
  minimumStrength: {
    type: 'float',
    min: 0,
    max: 1,
    description: 'windows scored below this probability are not tagged (default 0.5)',
  },
  name: { type: 'string', description: "the job's name (default: train from tag set N (its name))" },
}
const TRAIN_PLAN = planFields(trainBody)

export const trainEndpoint: Endpoint = {
  path: `${API}/tagSet/:id/train/`,
  name: 'Tag Set Train',
  description:
    'Starts a TrainClassifier job (answered 202 with the job): a classifier per class learnt from the decisions on this tag ' +
    "set's tags (tagReview yes/no) over the library's stored embeddings, every stored window scored, and the strongest written " +
    'to destinationTagSet as machine tags. No audio is read.',
  methods: {
    POST: async (ctx) => {
      const { row: tagSet } = await ctx.services.records.fetch(ctx, tagSets, ctx.params.id, ['read'])
      const { values, errors } = parseInput(TRAIN_PLAN, await ctx.body(), 'create')
      if (Object.keys(errors).length) throw badRequest(errors)
      const v = values as {
        destinationTagSet: number
        kind?: string
        numberOfTagsToWrite?: number
        minimumStrength?: number
        name?: string
      }
      if (v.kind !== undefined) await kindOf(ctx, v.kind)
      const given: Record<string, string> = {
        sourceTagSet: String(tagSet.id),
        destinationTagSet: String(v.destinationTagSet),
      }
      for (const p of ['kind', 'numberOfTagsToWrite', 'minimumStrength'] as const)
        if (v[p] !== undefined) given[p] = String(v[p])
      const type = jobTypes.get(TRAIN_CLASSIFIER.id)!
      const check = await checkParameters(ctx.db, ctx.caller, ctx.config, type, given)
      if (Object.keys(check.errors).length)
        throw badRequest(check.errors.sourceTagSet ? { detail: check.errors.sourceTagSet.join(' ') } : check.errors)
      const row = await ctx.db.transaction().execute(async (trx) => {
        const id = await insertQueuedJob(trx, {
          name: v.name ?? `train from ${tagSetNamed(tagSet)}`.slice(0, 255),
          user: ctx.caller.id,
          type: TRAIN_CLASSIFIER.id,
          parameters: given,
        })
        return trx.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
      })
      const [json] = await render(ctx, jobs, [row])
      return { status: 202, body: json }
    },
  },
  doc: {
    keys: ['tagSet'],
    actions: { POST: 'train' },
    fields: { POST: trainBody },
    success: { POST: [{ status: 202, description: 'The TrainClassifier job, queued', body: 'record' }] },
  },
}

export const endpoints = () => [tagSimilarEndpoint, librarySimilarEndpoint, trainEndpoint]
