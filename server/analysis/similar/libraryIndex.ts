import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { Db } from '../../db/schema.js'
import { readWhole, type Storage } from '../../storage/index.js'
import { embeddingRows, rowVectors, type EmbeddingRow } from './store.js'
import { loadUsearch, type UsearchIndex } from './usearch.js'
import { normalised } from './vectors.js'

// One approximate nearest-neighbour index per library and embedding kind (docs/decisions.md §35): HNSW over the
// stored windows (usearch), cosine distance on 8-bit quantised vectors, each window's key its stored row and its
// place in the row. Stored beside the media (`similar/library-<id>/<kind>.usearch`) with a manifest saying which
// rows it holds and how it was built; served memory-mapped (usearch's view). Missing, of another version, or
// behind the stored rows, it is rebuilt or extended from the stored embeddings. One library's index never holds
// another's windows, so what a caller may read decides which index is searched.

export const INDEX_VERSION = 1
/** HNSW's graph degree and its beam while building; the beam while searching is set per search. */
const CONNECTIVITY = 16
const EXPANSION_ADD = 128
export const EXPANSION_SEARCH = 128
/** key = row id × 2^24 + window: a row holds fewer windows than this */
export const WINDOWS_PER_ROW = 2 ** 24

export interface IndexManifest {
  version: number
  kind: string
  dimensions: number
  metric: 'cos'
  quantization: 'i8'
  connectivity: number
  /** the stored rows whose windows it holds */
  rows: number[]
}

export const keyOf = (row: number, window: number): bigint => BigInt(row) * BigInt(WINDOWS_PER_ROW) + BigInt(window)
export const keyParts = (key: bigint): { id: number; index: number } => ({
  id: Number(key / BigInt(WINDOWS_PER_ROW)),
  index: Number(key % BigInt(WINDOWS_PER_ROW)),
})

/** How every index is made (its manifest records the same). */
export async function indexOptions(dimensions: number) {
  const { MetricKind, ScalarKind } = await loadUsearch()
  return {
    dimensions,
    metric: MetricKind.Cos,
    quantization: ScalarKind.I8,
    connectivity: CONNECTIVITY,
    expansion_add: EXPANSION_ADD,
    expansion_search: EXPANSION_SEARCH,
    multi: false,
  }
}

/** The candidates asked of the index for the k nearest: more than k, re-ranked by the stored vectors. */
export const candidatesFor = (k: number) => Math.max(2 * k, k + EXPANSION_SEARCH / 2)

const storedName = (library: number, kind: string, ext: 'usearch' | 'json') =>
  `similar/library-${library}/${kind}.${ext}`

/** An index ready to search, and the rows it holds. */
export interface LibraryIndex {
  library: number
  kind: string
  manifest: IndexManifest
  /** the windows it holds */
  size: number
  /** the nearest `n` windows to `query` (unit length), nearest first: HNSW's beam is the larger of n and EXPANSION_SEARCH */
  search(query: Float32Array, n: number): Array<{ key: bigint; distance: number }>
  close(): Promise<void>
}

/** The indexes an app has open, by library and kind (AppServices). */
export class OpenIndexes {
  private readonly open = new Map<string, Promise<LibraryIndex | null>>()

  /** The library's index of `kind`, holding every row stored now (null when none is): opened once, extended or rebuilt when behind. */
  async get(db: Db, storage: Storage, library: number, kind: string): Promise<LibraryIndex | null> {
    const key = `${library}/${kind}`
    const rows = (await embeddingRows(db, library, kind)).map((r) => r.id)
    const held = await this.open.get(key)?.catch(() => null)
    if (held && covers(held.manifest, rows)) return held
    const opening = currentIndex(db, storage, library, kind, rows)
    this.open.set(key, opening)
    opening.catch(() => this.open.delete(key))
    const index = await opening
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
  m.connectivity === CONNECTIVITY

async function readManifest(storage: Storage, library: number, kind: string): Promise<IndexManifest | null> {
  if (!(await storage.stat(storedName(library, kind, 'json')))) return null
  try {
    return JSON.parse((await readWhole(storage, storedName(library, kind, 'json'))).toString('utf8')) as IndexManifest
  } catch {
    return null // unreadable: rebuilt
  }
}

/** A local copy of the stored index file, in a folder of its own (removed on close). */
async function localCopy(
  storage: Storage,
  library: number,
  kind: string,
): Promise<{ folder: string; path: string } | null> {
  const name = storedName(library, kind, 'usearch')
  if (!(await storage.stat(name))) return null
  const folder = await mkdtemp(join(tmpdir(), 'mas-similar-'))
  const path = join(folder, 'index.usearch')
  await pipeline(storage.read(name, undefined, { chunkBytes: 1 << 20 }), createWriteStream(path))
  return { folder, path }
}

/**
 * The library's index of `kind` holding at least `rows` (the rows stored now): the stored one when it holds them
 * all; else the stored one extended with the rows it lacks (or a new one, when there is none or it is of another
 * version), stored again (the file first, then its manifest) and served. Null when no row is stored.
 */
async function currentIndex(
  db: Db,
  storage: Storage,
  library: number,
  kind: string,
  rows: number[],
): Promise<LibraryIndex | null> {
  if (!rows.length) return null
  const { Index } = await loadUsearch()
  const first = (await embeddingRows(db, library, kind, [rows[0]]))[0]
  const dimensions = first.dimensions
  const stored = await readManifest(storage, library, kind)
  const copy = await localCopy(storage, library, kind)
  const options = await indexOptions(dimensions)
  try {
    if (copy && isCurrent(stored, kind, dimensions) && covers(stored, rows)) {
      const index = new Index(options)
      index.view(copy.path)
      return served(library, kind, stored, index, copy.folder)
    }
    const index = new Index(options)
    let held: number[] = []
    if (copy && isCurrent(stored, kind, dimensions)) {
      index.load(copy.path)
      held = stored.rows
    }
    const missing = await embeddingRows(
      db,
      library,
      kind,
      rows.filter((r) => !held.includes(r)),
    )
    await addRows(db, index, missing)
    const manifest: IndexManifest = {
      version: INDEX_VERSION,
      kind,
      dimensions,
      metric: 'cos',
      quantization: 'i8',
      connectivity: CONNECTIVITY,
      rows: [...held, ...missing.map((r) => r.id)].sort((a, b) => a - b),
    }
    const folder = copy?.folder ?? (await mkdtemp(join(tmpdir(), 'mas-similar-')))
    const path = join(folder, 'built.usearch')
    index.save(path)
    await storeFile(storage, storedName(library, kind, 'usearch'), createReadStream(path))
    await storeFile(storage, storedName(library, kind, 'json'), [Buffer.from(JSON.stringify(manifest))])
    return served(library, kind, manifest, index, folder)
  } catch (e) {
    if (copy) await rm(copy.folder, { recursive: true, force: true })
    throw e
  }
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

/** Add every window of `rows` to `index`, a row at a time. */
async function addRows(db: Db, index: UsearchIndex, rows: EmbeddingRow[]): Promise<void> {
  for (const row of rows) {
    if (row.windows >= WINDOWS_PER_ROW)
      throw new Error(`stored row ${row.id} holds ${row.windows} windows, more than an index key can name`)
    if (!row.windows) continue
    const vectors = normalised(await rowVectors(db, row.id), row.dimensions)
    const keys = new BigUint64Array(row.windows)
    for (let i = 0; i < row.windows; i++) keys[i] = keyOf(row.id, i)
    index.add(keys, vectors)
  }
}

function served(
  library: number,
  kind: string,
  manifest: IndexManifest,
  index: UsearchIndex,
  folder: string,
): LibraryIndex {
  return {
    library,
    kind,
    manifest,
    size: index.size(),
    search(query, n) {
      if (index.size() === 0 || n < 1) return []
      const found = index.search(query, Math.min(n, index.size()), 0)
      const out: Array<{ key: bigint; distance: number }> = []
      for (let i = 0; i < found.keys.length; i++) out.push({ key: found.keys[i], distance: found.distances[i] })
      return out
    },
    async close() {
      await rm(folder, { recursive: true, force: true })
    },
  }
}

/** Bring the library's stored index of `kind` up to the rows stored now (after an EmbedAudio job): extended or rebuilt, and stored. */
export async function refreshIndex(db: Db, storage: Storage, library: number, kind: string): Promise<void> {
  const indexes = new OpenIndexes()
  try {
    await indexes.get(db, storage, library, kind)
  } finally {
    await indexes.closeAll()
  }
}

/** Remove a library's stored index of `kind` (its file and manifest). */
export async function removeIndex(storage: Storage, library: number, kind: string): Promise<void> {
  await storage.remove(storedName(library, kind, 'usearch'))
  await storage.remove(storedName(library, kind, 'json'))
}

export const indexFileName = (library: number, kind: string) => storedName(library, kind, 'usearch')
