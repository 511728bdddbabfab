import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { Db } from '../../db/schema.js'
import { seededRandom } from '../random.js'
import { readWhole, type Storage } from '../../storage/index.js'
import { InvertedFile, type Candidate } from './invertedFile.js'
import { InvertedFileBuilder, listCountFor, SAMPLE_PER_LIST, trainCentres } from './invertedFileBuild.js'
import { embeddingRows, rowVectors, windowVectors, type EmbeddingRow } from './store.js'
import { normalised } from './vectors.js'

// One nearest-neighbour index per library and embedding kind (docs/decisions.md §35): an inverted file
// (invertedFile.ts) over the stored windows, cosine distance on 8-bit codes, each window's key its stored row and its
// place in the row. Stored beside the media (`similar/library-<id>/<kind>.ivf`) with a manifest saying which rows it
// holds and how it was built; served from a local copy, read a list at a time. Missing, of another version, or
// behind the stored rows, it is rebuilt or extended from the stored embeddings. One library's index never holds
// another's windows, so what a caller may read decides which index is searched.

export const INDEX_VERSION = 2
/** key = row id × 2^24 + window: a row holds fewer windows than this */
export const WINDOWS_PER_ROW = 2 ** 24
/**
 * An index is extended with new windows put in the lists of its centres until it holds this many times the windows
 * its centres were learnt for; then it is built again, with more centres learnt from all of them.
 */
const GROWTH_BEFORE_REBUILD = 2

export interface IndexManifest {
  version: number
  kind: string
  dimensions: number
  metric: 'cos'
  quantization: 'i8'
  structure: 'ivf'
  /** its lists (centres), and the windows they were learnt for */
  lists: number
  trainedFor: number
  /** the stored rows whose windows it holds */
  rows: number[]
}

export const keyOf = (row: number, window: number): bigint => BigInt(row) * BigInt(WINDOWS_PER_ROW) + BigInt(window)
export const keyParts = (key: bigint): { id: number; index: number } => ({
  id: Number(key / BigInt(WINDOWS_PER_ROW)),
  index: Number(key % BigInt(WINDOWS_PER_ROW)),
})

/** The candidates asked of the index for the k nearest: more than k, re-ranked by the stored vectors. */
export const candidatesFor = (k: number) => Math.max(2 * k, k + 64)

const storedName = (library: number, kind: string, ext: 'ivf' | 'json') => `similar/library-${library}/${kind}.${ext}`
/** The file an index of version 1 (HNSW) was stored in: removed when its library's index is built again. */
const formerName = (library: number, kind: string) => `similar/library-${library}/${kind}.usearch`

/** An index ready to search, and the rows it holds. */
export interface LibraryIndex {
  library: number
  kind: string
  manifest: IndexManifest
  /** the windows it holds */
  size: number
  /** the nearest `n` windows to `query` (unit length) of the lists searched, nearest first (invertedFile.ts) */
  search(query: Float32Array, n: number): Promise<Candidate[]>
  /** one caller more searching it (OpenIndexes.get takes one for its caller) */
  acquire(): void
  /** that caller done: a closed index's file is closed when the last is */
  release(): Promise<void>
  /** no new caller; its file closed (and its local folder removed) once the callers searching it release it */
  close(): Promise<void>
}

/** The indexes an app has open, by library and kind (AppServices). */
export class OpenIndexes {
  private readonly open = new Map<string, Promise<LibraryIndex | null>>()

  /**
   * The library's index of `kind`, holding every row stored now (null when none is): opened once, extended or rebuilt
   * when behind. Acquired for the caller, who releases it when done (another caller may replace it meanwhile).
   */
  async get(db: Db, storage: Storage, library: number, kind: string): Promise<LibraryIndex | null> {
    const key = `${library}/${kind}`
    const rows = (await embeddingRows(db, library, kind)).map((r) => r.id)
    const held = await this.open.get(key)?.catch(() => null)
    if (held && covers(held.manifest, rows)) {
      held.acquire()
      return held
    }
    const opening = currentIndex(db, storage, library, kind, rows)
    this.open.set(key, opening)
    opening.catch(() => this.open.delete(key))
    const index = await opening
    index?.acquire()
    if (held && held !== index) await held.close()
    return index
  }

  async closeAll(): Promise<void> {
    const all = [...this.open.values()]
    this.open.clear()
    for (const p of all) await (await p.catch(() => null))?.close()
  }
}

const covers = (m: IndexManifest, rows: number[]) => {
  const held = new Set(m.rows)
  return rows.every((r) => held.has(r))
}

const isCurrent = (m: IndexManifest | null, kind: string, dimensions: number): m is IndexManifest =>
  !!m &&
  m.version === INDEX_VERSION &&
  m.kind === kind &&
  m.dimensions === dimensions &&
  m.metric === 'cos' &&
  m.quantization === 'i8' &&
  m.structure === 'ivf'

async function readManifest(storage: Storage, library: number, kind: string): Promise<IndexManifest | null> {
  if (!(await storage.stat(storedName(library, kind, 'json')))) return null
  try {
    return JSON.parse((await readWhole(storage, storedName(library, kind, 'json'))).toString('utf8')) as IndexManifest
  } catch {
    return null // unreadable: rebuilt
  }
}

/** A local copy of the stored index file in `folder`, or null when none is stored. */
async function localCopy(storage: Storage, library: number, kind: string, folder: string): Promise<string | null> {
  const name = storedName(library, kind, 'ivf')
  if (!(await storage.stat(name))) return null
  const path = join(folder, 'stored.ivf')
  await pipeline(storage.read(name, undefined, { chunkBytes: 1 << 20 }), createWriteStream(path))
  return path
}

/**
 * The library's index of `kind` holding at least `rows` (the rows stored now): the stored one when it holds them
 * all; else the stored one extended with the rows it lacks, put in the lists of its centres, while it holds less than
 * GROWTH_BEFORE_REBUILD times the windows they were learnt for; else one built anew from every stored row (also when
 * there is none or it is of another version). A new one is stored (the file first, then its manifest) and served.
 * Null when no row is stored.
 */
async function currentIndex(
  db: Db,
  storage: Storage,
  library: number,
  kind: string,
  rows: number[],
): Promise<LibraryIndex | null> {
  if (!rows.length) return null
  const all = await embeddingRows(db, library, kind, rows)
  const dimensions = all[0].dimensions
  const folder = await mkdtemp(join(tmpdir(), 'mas-similar-'))
  try {
    const stored = await readManifest(storage, library, kind)
    const copy = await localCopy(storage, library, kind, folder)
    const current = copy && isCurrent(stored, kind, dimensions) ? stored : null
    if (copy && current && covers(current, rows))
      return served(library, kind, current, await InvertedFile.open(copy), folder)
    const held = new Set(current?.rows ?? [])
    const missing = all.filter((r) => !held.has(r.id) && r.dimensions === dimensions)
    const windows = (rs: EmbeddingRow[]) => rs.reduce((n, r) => n + r.windows, 0)
    const path = join(folder, 'built.ivf')
    let manifest: IndexManifest | undefined
    if (copy && current) {
      const old = await InvertedFile.open(copy)
      try {
        if (old.size + windows(missing) <= GROWTH_BEFORE_REBUILD * current.trainedFor) {
          await extend(db, old, missing, path, folder)
          manifest = { ...current, rows: [...current.rows, ...missing.map((r) => r.id)].sort((a, b) => a - b) }
        }
      } finally {
        await old.close()
      }
    }
    manifest ??= await build(
      db,
      all.filter((r) => r.dimensions === dimensions),
      kind,
      dimensions,
      path,
      folder,
    )
    await storeFile(storage, storedName(library, kind, 'ivf'), createReadStream(path))
    await storeFile(storage, storedName(library, kind, 'json'), [Buffer.from(JSON.stringify(manifest))])
    await storage.remove(formerName(library, kind))
    return served(library, kind, manifest, await InvertedFile.open(path), folder)
  } catch (e) {
    await rm(folder, { recursive: true, force: true })
    throw e
  }
}

/** An index of every window of `rows` written to `path`: centres learnt from a sample of them drawn at random, then each row's windows put in their lists. */
async function build(
  db: Db,
  rows: EmbeddingRow[],
  kind: string,
  dimensions: number,
  path: string,
  folder: string,
): Promise<IndexManifest> {
  const total = rows.reduce((n, r) => n + r.windows, 0)
  const lists = listCountFor(total)
  const centres = await trainCentres(await sampleOf(db, rows, total, lists * SAMPLE_PER_LIST), dimensions, lists)
  const builder = await InvertedFileBuilder.start(centres, dimensions, join(folder, 'spill'))
  try {
    await addRows(db, builder, rows)
    await builder.finish(path)
  } catch (e) {
    await builder.abandon()
    throw e
  }
  return {
    version: INDEX_VERSION,
    kind,
    dimensions,
    metric: 'cos',
    quantization: 'i8',
    structure: 'ivf',
    lists,
    trainedFor: total,
    rows: rows.map((r) => r.id).sort((a, b) => a - b),
  }
}

/** `old`'s windows, list by list, and those of `rows` put in the lists of `old`'s centres, written to `path`. */
async function extend(db: Db, old: InvertedFile, rows: EmbeddingRow[], path: string, folder: string): Promise<void> {
  const builder = await InvertedFileBuilder.start(old.centres, old.shape.dimensions, join(folder, 'spill'))
  try {
    for (let list = 0; list < old.shape.lists; list++) {
      const { keys, codes } = await old.list(list)
      await builder.addToList(keys, codes, list)
    }
    await addRows(db, builder, rows)
    await builder.finish(path)
  } catch (e) {
    await builder.abandon()
    throw e
  }
}

/** `count` windows of `rows` (of `total`) drawn at random without replacement, seeded, as unit vectors one after another. */
async function sampleOf(db: Db, rows: EmbeddingRow[], total: number, count: number): Promise<Float32Array> {
  const random = seededRandom(35)
  const picked = new Set<number>()
  const wanted = Math.min(count, total)
  while (picked.size < wanted) picked.add(Math.floor(random() * total))
  const places = [...picked].sort((a, b) => a - b)
  const d = rows[0].dimensions
  const out = new Float32Array(places.length * d)
  const refs: Array<{ id: number; index: number }> = []
  let row = 0,
    before = 0
  for (const p of places) {
    while (p >= before + rows[row].windows) before += rows[row++].windows
    refs.push({ id: rows[row].id, index: p - before })
  }
  const chunk = 20_000
  for (let from = 0; from < refs.length; from += chunk) {
    const vectors = await windowVectors(db, refs.slice(from, from + chunk), d)
    vectors.forEach((v, i) => out.set(v, (from + i) * d))
  }
  return normalised(out, d)
}

async function storeFile(storage: Storage, name: string, bytes: AsyncIterable<Buffer> | Buffer[]): Promise<void> {
  const pending = await storage.receive(bytes as AsyncIterable<Buffer>)
  try {
    await pending.commit(name)
  } catch (e) {
    await pending.discard()
    throw e
  }
}

/** Add every window of `rows` to `builder`, a row at a time. */
async function addRows(db: Db, builder: InvertedFileBuilder, rows: EmbeddingRow[]): Promise<void> {
  for (const row of rows) {
    if (row.windows >= WINDOWS_PER_ROW)
      throw new Error(`stored row ${row.id} holds ${row.windows} windows, more than an index key can name`)
    if (!row.windows) continue
    const vectors = normalised(await rowVectors(db, row.id), row.dimensions)
    const keys = new BigUint64Array(row.windows)
    for (let i = 0; i < row.windows; i++) keys[i] = keyOf(row.id, i)
    await builder.add(keys, vectors)
  }
}

/** An opened index, searched by those who acquired it; closed, its file is closed once the last of them releases it. */
function served(
  library: number,
  kind: string,
  manifest: IndexManifest,
  file: InvertedFile,
  folder: string,
): LibraryIndex {
  let callers = 0,
    closed = false,
    ended = false
  const endWhenUnused = async () => {
    if (!closed || callers > 0 || ended) return
    ended = true
    await file.close()
    await rm(folder, { recursive: true, force: true })
  }
  return {
    library,
    kind,
    manifest,
    size: file.size,
    search: (query, n) => file.search(query, n),
    acquire() {
      if (ended) throw new Error(`the index of library ${library} was closed`)
      callers++
    },
    async release() {
      callers--
      await endWhenUnused()
    },
    async close() {
      closed = true
      await endWhenUnused()
    },
  }
}

/** Bring the library's stored index of `kind` up to the rows stored now (after an EmbedAudio job): extended or rebuilt, and stored. */
export async function refreshIndex(db: Db, storage: Storage, library: number, kind: string): Promise<void> {
  const indexes = new OpenIndexes()
  try {
    await (await indexes.get(db, storage, library, kind))?.release()
  } finally {
    await indexes.closeAll()
  }
}

/** Remove a library's stored index of `kind` (its file and manifest). */
export async function removeIndex(storage: Storage, library: number, kind: string): Promise<void> {
  await storage.remove(formerName(library, kind))
  await storage.remove(storedName(library, kind, 'ivf'))
  await storage.remove(storedName(library, kind, 'json'))
}

export const indexFileName = (library: number, kind: string) => storedName(library, kind, 'ivf')
export const manifestFileName = (library: number, kind: string) => storedName(library, kind, 'json')
