import type { Db } from '../../db/schema.js'
import { secondsText } from '../../media/numberText.js'
import { mediaFileNamed, named } from '../../named.js'
import type { Storage } from '../../storage/index.js'
import type { AudioSource } from '../audioSource.js'
import { candidatesFor, keyParts, type OpenIndexes } from './libraryIndex.js'
import { embedBuiltin } from './embedFile.js'
import {
  BUILTIN_KIND,
  eachRowVectors,
  embeddingRows,
  embeddingRowsOfFile,
  modelKind,
  windowSpan,
  windowsCovering,
  windowVectors,
  type EmbeddingRow,
} from './store.js'
import { cosineDistance, meanDirection } from './vectors.js'

// Search by example (docs/decisions.md §35): the windows of one library nearest a query vector — a stretch of a
// stored file (a tag's, or one given by its times), its stored windows averaged; or a short uploaded recording,
// embedded here — by the library's index, the candidates re-ranked by their stored float16 vectors; or by
// measuring every stored window (`exact`).

export interface Span {
  start: number
  end: number
}
export interface SimilarWindow {
  mediaFile: number
  startTime: number
  endTime: number
  distance: number
}

/** The query had nothing to search with: an error the HTTP layer answers 400, naming `field`. */
export class NothingToSearch extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}

/** The stored kind a client names: `builtin`, or a model's name or id (`model-<id>`); null when there is no such model. */
export async function kindNamed(db: Db, text: string | undefined): Promise<string | null> {
  const name = (text ?? BUILTIN_KIND).trim()
  if (name === '' || name === BUILTIN_KIND) return BUILTIN_KIND
  const byId = /^(?:model-)?(\d{1,10})$/.exec(name)
  const model = byId
    ? await db.selectFrom('models').select('id').where('id', '=', Number(byId[1])).executeTakeFirst()
    : await db.selectFrom('models').select('id').where('name', '=', name).executeTakeFirst()
  return model ? modelKind(model.id) : null
}

/** A stored kind as messages name it: `builtin`, or its model by name (`model 3 (BirdNET)`), as the caller gave it. */
export async function kindText(db: Db, kind: string): Promise<string> {
  const model = /^model-(\d+)$/.exec(kind)
  if (!model) return kind
  const row = await db.selectFrom('models').select('name').where('id', '=', Number(model[1])).executeTakeFirst()
  return named('model', Number(model[1]), row?.name)
}

/** The query vector of a stretch of a stored media file: the mean direction of its stored windows of `kind` that lie at least half within it. */
export async function stretchVector(
  db: Db,
  mediaFile: { id: number; alias: string },
  kind: string,
  stretch: Span,
  field = 'mediaFile',
): Promise<Float32Array> {
  const row = (await embeddingRowsOfFile(db, mediaFile.id, kind))[0]
  if (!row)
    throw new NothingToSearch(
      field,
      `${mediaFileNamed(mediaFile)} has no stored embeddings of kind ${await kindText(db, kind)}: run an EmbedAudio job over it first.`,
    )
  const covering = windowsCovering(row, stretch.start, stretch.end)
  if (!covering.length)
    throw new NothingToSearch(
      'startTime',
      `No stored window of ${mediaFileNamed(mediaFile)} overlaps ${secondsText(stretch.start)}-${secondsText(stretch.end)} s.`,
    )
  return meanDirection(
    await windowVectors(
      db,
      covering.map((index) => ({ id: row.id, index })),
      row.dimensions,
    ),
    row.dimensions,
  )
}

/** The query vector of an uploaded recording (built-in kind): the mean direction of its windows, cut as the library's stored windows are. */
export async function clipVector(
  db: Db,
  library: { id: number; name: string },
  source: AudioSource,
): Promise<Float32Array> {
  const row = await db
    .selectFrom('window_embeddings')
    .select(['window_seconds', 'hop_seconds'])
    .where('library_id', '=', library.id)
    .where('kind', '=', BUILTIN_KIND)
    .orderBy('id')
    .executeTakeFirst()
  if (!row)
    throw new NothingToSearch(
      'kind',
      `${named('library', library.id, library.name)} has no stored embeddings of kind ${BUILTIN_KIND}: run an EmbedAudio job over it first.`,
    )
  const e = await embedBuiltin(source, row.window_seconds, row.hop_seconds)
  if (!e.windows) throw new NothingToSearch('file', 'The recording is too short to hold one window.')
  const windows = Array.from({ length: e.windows }, (_, i) =>
    e.vectors.subarray(i * e.dimensions, (i + 1) * e.dimensions),
  )
  return meanDirection(windows, e.dimensions)
}

export interface SimilarSearch {
  library: number
  kind: string
  /** unit length */
  query: Float32Array
  k: number
  exact: boolean
  /** windows of this media file overlapping this stretch are left out (the query's own) */
  own?: { mediaFile: number; stretch: Span }
  /** windows holding half or more of a tag of this tag set (or half of whose length is a tag) are left out */
  excludeTaggedIn?: number
}

/** The `k` stored windows of the library nearest the query, nearest first. */
export async function nearestWindows(
  db: Db,
  storage: Storage,
  indexes: OpenIndexes,
  s: SimilarSearch,
): Promise<SimilarWindow[]> {
  if (s.exact) return exactNearest(db, s)
  const index = await indexes.get(db, storage, s.library, s.kind)
  if (!index) return []
  try {
    if (index.manifest.dimensions !== s.query.length)
      throw new NothingToSearch(
        'kind',
        `The query has ${s.query.length} dimensions, the library's ${s.kind} embeddings ${index.manifest.dimensions}.`,
      )
    // ask for more candidates than k: re-ranking by the stored vectors, and leaving some out, may reorder them;
    // until k remain after leaving some out, or the index has no more
    for (let n = candidatesFor(s.k); ; n *= 4) {
      const found = await index.search(s.query, n)
      const kept = await keep(
        db,
        s,
        found.map((f) => keyParts(f.key)),
      )
      const vectors = await windowVectors(
        db,
        kept.map((w) => w.ref),
        index.manifest.dimensions,
      )
      const ranked = kept
        .map((w, i) => ({ ...w.window, distance: cosineDistance(s.query, vectors[i]) }))
        .sort((a, b) => a.distance - b.distance || a.mediaFile - b.mediaFile || a.startTime - b.startTime)
      if (ranked.length >= s.k || found.length < n) return ranked.slice(0, s.k).map(rounded)
    }
  } finally {
    await index.release()
  }
}

interface Kept {
  ref: { id: number; index: number }
  window: Omit<SimilarWindow, 'distance'>
}

/** The candidates still stored (their media file not deleted since the index was built), less those left out. */
async function keep(db: Db, s: SimilarSearch, refs: Array<{ id: number; index: number }>): Promise<Kept[]> {
  const rows = new Map(
    (await embeddingRows(db, s.library, s.kind, [...new Set(refs.map((r) => r.id))])).map((r) => [r.id, r]),
  )
  const out: Kept[] = []
  for (const ref of refs) {
    const row = rows.get(ref.id)
    if (!row || ref.index >= row.windows) continue
    const span = windowSpan(row, ref.index)
    out.push({ ref, window: { mediaFile: row.mediaFile, startTime: span.start, endTime: span.end } })
  }
  const leftOut = await leftOutSpans(db, s, [...new Set(out.map((w) => w.window.mediaFile))])
  return out.filter((w) => !isLeftOut(leftOut, w.window))
}

/** The stretches whose windows are left out, by media file. */
async function leftOutSpans(db: Db, s: SimilarSearch, files: number[]): Promise<Map<number, Span[]>> {
  const spans = new Map<number, Span[]>()
  const add = (file: number, span: Span) => spans.set(file, [...(spans.get(file) ?? []), span])
  if (s.own) add(s.own.mediaFile, s.own.stretch)
  if (s.excludeTaggedIn !== undefined && files.length) {
    const tags = await db
      .selectFrom('tags')
      .select(['media_file_id', 'start_time', 'end_time'])
      .where('tag_set_id', '=', s.excludeTaggedIn)
      .where('media_file_id', 'in', files)
      .execute()
    for (const t of tags) add(t.media_file_id, { start: t.start_time, end: t.end_time })
  }
  return spans
}

function isLeftOut(spans: Map<number, Span[]>, w: Omit<SimilarWindow, 'distance'>): boolean {
  const length = w.endTime - w.startTime
  return (spans.get(w.mediaFile) ?? []).some((t) => {
    const overlap = Math.min(t.end, w.endTime) - Math.max(t.start, w.startTime)
    return overlap > 0 && (overlap >= 0.5 * length || overlap >= 0.5 * (t.end - t.start))
  })
}

/** Every stored window measured: the exact answer (what the index approximates). */
async function exactNearest(db: Db, s: SimilarSearch): Promise<SimilarWindow[]> {
  const rows = await embeddingRows(db, s.library, s.kind)
  let best: Array<{ row: EmbeddingRow; index: number; distance: number }> = []
  let worst = Infinity
  for await (const { row, vectors } of eachRowVectors(db, rows)) {
    if (row.dimensions !== s.query.length) continue
    for (let i = 0; i < row.windows; i++) {
      const distance = cosineDistance(s.query, vectors, i * row.dimensions, row.dimensions)
      if (best.length >= 4 * s.k + 64 && distance > worst) continue
      best.push({ row, index: i, distance })
      if (best.length >= 8 * s.k + 128) {
        best.sort((a, b) => a.distance - b.distance)
        best = best.slice(0, 4 * s.k + 64)
        worst = best[best.length - 1].distance
      }
    }
  }
  best.sort((a, b) => a.distance - b.distance)
  const files = [...new Set(best.map((b) => b.row.mediaFile))]
  const leftOut = await leftOutSpans(db, s, files)
  const out: SimilarWindow[] = []
  for (const b of best) {
    const span = windowSpan(b.row, b.index)
    const w = { mediaFile: b.row.mediaFile, startTime: span.start, endTime: span.end, distance: b.distance }
    if (!isLeftOut(leftOut, w)) out.push(w)
    if (out.length >= s.k) break
  }
  return out.map(rounded)
}

const rounded = (w: SimilarWindow): SimilarWindow => ({
  mediaFile: w.mediaFile,
  startTime: Math.round(w.startTime * 1e6) / 1e6,
  endTime: Math.round(w.endTime * 1e6) / 1e6,
  distance: w.distance,
})
