import { sql } from 'kysely'
import type { Db } from '../../db/schema.js'
import { decodeHalves, encodeHalves } from './float16.js'

// The stored window embeddings (docs/decisions.md §35): one row per media file, kind, window and hop, its vectors
// float16 one after another. Window i of a row starts at i × step_seconds and lasts length_seconds (cut at the
// file's end). Everything that reads or writes them goes through here.

/** The built-in embedding's kind (server/analysis/embedding.ts); a model's is `model-<id>`. */
export const BUILTIN_KIND = 'builtin'
export const modelKind = (modelId: number) => `model-${modelId}`

export interface EmbeddingsToStore {
  mediaFile: number
  library: number
  kind: string
  windowSeconds: number
  hopSeconds: number
  lengthSeconds: number
  stepSeconds: number
  duration: number
  dimensions: number
  /** windows × dimensions values */
  vectors: Float32Array
}

/** A stored row without its vectors. */
export interface EmbeddingRow {
  id: number
  mediaFile: number
  library: number
  kind: string
  lengthSeconds: number
  stepSeconds: number
  duration: number
  dimensions: number
  windows: number
}

/** Whether a file's embeddings of this kind, window and hop are stored (a re-run skips them). */
export async function isStored(
  db: Db,
  mediaFile: number,
  kind: string,
  windowSeconds: number,
  hopSeconds: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('window_embeddings')
    .select('id')
    .where('media_file_id', '=', mediaFile)
    .where('kind', '=', kind)
    .where('window_seconds', '=', windowSeconds)
    .where('hop_seconds', '=', hopSeconds)
    .executeTakeFirst()
  return !!row
}

/** Store a file's embeddings (nothing when they are stored already); answers the row's id, or null when none was written. */
export async function storeEmbeddings(db: Db, e: EmbeddingsToStore): Promise<number | null> {
  const windows = e.dimensions ? e.vectors.length / e.dimensions : 0
  if (!Number.isInteger(windows)) throw new Error(`${e.vectors.length} values are not whole windows of ${e.dimensions}`)
  const row = await db
    .insertInto('window_embeddings')
    .values({
      media_file_id: e.mediaFile,
      library_id: e.library,
      kind: e.kind,
      window_seconds: e.windowSeconds,
      hop_seconds: e.hopSeconds,
      length_seconds: e.lengthSeconds,
      step_seconds: e.stepSeconds,
      duration: e.duration,
      dimensions: e.dimensions,
      windows,
      vectors: encodeHalves(e.vectors),
    })
    .onConflict((oc) => oc.constraint('window_embeddings_once').doNothing())
    .returning('id')
    .executeTakeFirst()
  return row?.id ?? null
}

const ROW_COLUMNS = [
  'id',
  'media_file_id',
  'library_id',
  'kind',
  'length_seconds',
  'step_seconds',
  'duration',
  'dimensions',
  'windows',
] as const

function rowOf(r: {
  id: number
  media_file_id: number
  library_id: number
  kind: string
  length_seconds: number
  step_seconds: number
  duration: number
  dimensions: number
  windows: number
}): EmbeddingRow {
  return {
    id: r.id,
    mediaFile: r.media_file_id,
    library: r.library_id,
    kind: r.kind,
    lengthSeconds: r.length_seconds,
    stepSeconds: r.step_seconds,
    duration: r.duration,
    dimensions: r.dimensions,
    windows: r.windows,
  }
}

/** The rows of a library's embeddings of a kind (without their vectors), by id; only `ids` when given. */
export async function embeddingRows(db: Db, library: number, kind: string, ids?: number[]): Promise<EmbeddingRow[]> {
  if (ids && !ids.length) return []
  let q = db
    .selectFrom('window_embeddings')
    .select(ROW_COLUMNS)
    .where('library_id', '=', library)
    .where('kind', '=', kind)
  if (ids) q = q.where('id', 'in', ids)
  return (await q.orderBy('id').execute()).map(rowOf)
}

/** The rows of one media file's embeddings of a kind. */
export async function embeddingRowsOfFile(db: Db, mediaFile: number, kind: string): Promise<EmbeddingRow[]> {
  return (
    await db
      .selectFrom('window_embeddings')
      .select(ROW_COLUMNS)
      .where('media_file_id', '=', mediaFile)
      .where('kind', '=', kind)
      .orderBy('id')
      .execute()
  ).map(rowOf)
}

/** The kinds stored in a library, each with its windows and dimensions. */
export async function storedKinds(
  db: Db,
  library: number,
): Promise<Array<{ kind: string; windows: number; dimensions: number }>> {
  const rows = await db
    .selectFrom('window_embeddings')
    .select(['kind', 'dimensions'])
    .select((eb) => eb.fn.sum<string>('windows').as('windows'))
    .where('library_id', '=', library)
    .groupBy(['kind', 'dimensions'])
    .orderBy('kind')
    .execute()
  return rows.map((r) => ({ kind: r.kind, dimensions: r.dimensions, windows: Number(r.windows) }))
}

/** Every vector of a row, as float32 (windows × dimensions). */
export async function rowVectors(db: Db, id: number): Promise<Float32Array> {
  const r = await db.selectFrom('window_embeddings').select('vectors').where('id', '=', id).executeTakeFirstOrThrow()
  return decodeHalves(r.vectors)
}

/** Each row's vectors in turn (one row's in memory at a time). */
export async function* eachRowVectors(
  db: Db,
  rows: EmbeddingRow[],
): AsyncGenerator<{ row: EmbeddingRow; vectors: Float32Array }> {
  for (const row of rows) yield { row, vectors: await rowVectors(db, row.id) }
}

/** Window `index` of row `id` */
export interface WindowRef {
  id: number
  index: number
}

/** The vectors of the windows named, in their order, each read alone from its row (out of line storage reads only its part). */
export async function windowVectors(db: Db, windows: WindowRef[], dimensions: number): Promise<Float32Array[]> {
  if (!windows.length) return []
  const bytes = dimensions * 2
  const found = await sql<{ ord: string; v: Buffer }>`
    select p.ord, substring(e.vectors from p.at for ${bytes}::int) as v
    from unnest(${windows.map((w) => w.id)}::int[], ${windows.map((w) => w.index * bytes + 1)}::int[]) with ordinality as p(id, at, ord)
    join window_embeddings e on e.id = p.id`.execute(db)
  const out: Float32Array[] = new Array(windows.length)
  for (const r of found.rows) out[Number(r.ord) - 1] = decodeHalves(r.v)
  return out
}

/** Where window `index` of a row lies in its file. */
export function windowSpan(row: EmbeddingRow, index: number): { start: number; end: number } {
  const start = index * row.stepSeconds
  return { start, end: Math.min(row.duration, start + row.lengthSeconds) }
}

/** The windows of a row at least half within [start, end], else the one overlapping it most (a stretch shorter than half a window). */
export function windowsCovering(row: EmbeddingRow, start: number, end: number): number[] {
  const inside: number[] = []
  let best = -1,
    bestOverlap = 0
  const first = Math.max(0, Math.floor((start - row.lengthSeconds) / row.stepSeconds))
  for (let i = first; i < row.windows; i++) {
    const w = windowSpan(row, i)
    if (w.start >= end) break
    const overlap = Math.min(end, w.end) - Math.max(start, w.start)
    if (overlap > bestOverlap) {
      bestOverlap = overlap
      best = i
    }
    if (overlap >= 0.5 * (w.end - w.start)) inside.push(i)
  }
  return inside.length ? inside : best >= 0 ? [best] : []
}
