import { readSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { loadUsearch } from './usearch.js'

// A library's nearest-neighbour index (docs/decisions.md §35): an inverted file. The windows are grouped by the
// nearest of a few thousand centres (k-means, invertedFileBuild.ts) and stored list by list as 8-bit codes; a search
// ranks the centres, reads the nearest lists from the file and measures every window in them. The file is read a
// list at a time, never held: the operating system's page cache keeps what searches touch, as a mapping would.
//
// Layout, little-endian:
//   header (32 bytes): 'MASIVF01', dimensions u32, lists u32, windows f64, 8 bytes unused
//   centres: lists × dimensions float32, each of unit length
//   offsets: lists + 1 float64, where each list's windows begin (in windows, so the last is the count)
//   keys: windows × u64, list after list
//   codes: windows × dimensions int8, list after list, in the keys' order

const MAGIC = 'MASIVF01'
const HEADER_BYTES = 32
/** The lists a search reads at least: the nearest 16 (BENCHMARKS.md: 32 found no more at 10^6 and 10^7 windows) */
export const PROBES = 16
/** and more while they hold fewer windows than this (or than asked for): a small library's lists are short */
export const LEAST_WINDOWS = 8192

export interface InvertedFileShape {
  dimensions: number
  lists: number
  windows: number
}

/** Where each part of a file of this shape begins, in bytes. */
export function regions(s: InvertedFileShape) {
  const centres = HEADER_BYTES
  const offsets = centres + s.lists * s.dimensions * 4
  const keys = offsets + (s.lists + 1) * 8
  const codes = keys + s.windows * 8
  return { centres, offsets, keys, codes, end: codes + s.windows * s.dimensions }
}

export function headerBytes(s: InvertedFileShape): Buffer {
  const out = Buffer.alloc(HEADER_BYTES)
  out.write(MAGIC, 0, 'latin1')
  out.writeUInt32LE(s.dimensions, 8)
  out.writeUInt32LE(s.lists, 12)
  out.writeDoubleLE(s.windows, 16)
  return out
}

/**
 * A unit vector as 8-bit codes: scaled so that its largest value is ±127. Cosine distance does not see a vector's
 * length, so each vector gets the whole range (small values of a decaying spectrum keep more of their precision
 * than at one scale for all).
 */
export function quantised(vectors: Float32Array, dimensions: number, into = new Int8Array(vectors.length)): Int8Array {
  for (let at = 0; at < vectors.length; at += dimensions) {
    let largest = 0
    for (let j = 0; j < dimensions; j++) largest = Math.max(largest, Math.abs(vectors[at + j]))
    const scale = largest > 0 ? 127 / largest : 0
    for (let j = 0; j < dimensions; j++) into[at + j] = Math.round(vectors[at + j] * scale)
  }
  return into
}

/**
 * usearch's exactSearch reads its arrays from the start of their buffer, whatever their offset in it: a view into a
 * larger buffer is copied first.
 */
export function ownBuffer<T extends Float32Array | Int8Array>(a: T): T {
  return a.byteOffset === 0 ? a : (a.slice() as T)
}

/** Fill `into` from `file` at `position`. */
export async function readFully(file: FileHandle, into: ArrayBufferView, position: number): Promise<void> {
  const bytes = new Uint8Array(into.buffer, into.byteOffset, into.byteLength)
  for (let done = 0; done < bytes.length;) {
    const { bytesRead } = await file.read(bytes, done, bytes.length - done, position + done)
    if (bytesRead === 0) throw new Error(`the file ends ${bytes.length - done} bytes early`)
    done += bytesRead
  }
}

function readFullySync(fd: number, into: ArrayBufferView, position: number): void {
  const bytes = new Uint8Array(into.buffer, into.byteOffset, into.byteLength)
  for (let done = 0; done < bytes.length;) {
    const read = readSync(fd, bytes, done, bytes.length - done, position + done)
    if (read === 0) throw new Error(`the file ends ${bytes.length - done} bytes early`)
    done += read
  }
}

export interface Candidate {
  key: bigint
  /** 1 − cosine of the 8-bit codes: approximate, re-ranked by the stored vectors */
  distance: number
}

/** An inverted file opened for search: its centres and offsets in memory, its lists read when searched. */
export class InvertedFile {
  private constructor(
    private readonly file: FileHandle,
    readonly shape: InvertedFileShape,
    readonly centres: Float32Array,
    private readonly offsets: Float64Array,
  ) {}

  static async open(path: string): Promise<InvertedFile> {
    const file = await open(path, 'r')
    try {
      const header = Buffer.alloc(HEADER_BYTES)
      await readFully(file, header, 0)
      if (header.toString('latin1', 0, 8) !== MAGIC) throw new Error(`${path} is not an index file of this version`)
      const shape = {
        dimensions: header.readUInt32LE(8),
        lists: header.readUInt32LE(12),
        windows: header.readDoubleLE(16),
      }
      const at = regions(shape)
      if ((await file.stat()).size !== at.end) throw new Error(`${path} is not as long as its header says`)
      const centres = new Float32Array(shape.lists * shape.dimensions)
      await readFully(file, centres, at.centres)
      const offsets = new Float64Array(shape.lists + 1)
      await readFully(file, offsets, at.offsets)
      return new InvertedFile(file, shape, centres, offsets)
    } catch (e) {
      await file.close()
      throw e
    }
  }

  get size(): number {
    return this.shape.windows
  }

  /** The windows of list `list`: their keys and codes. */
  async list(list: number): Promise<{ keys: BigUint64Array; codes: Int8Array }> {
    const from = this.offsets[list],
      count = this.offsets[list + 1] - from
    const keys = new BigUint64Array(count)
    const codes = new Int8Array(count * this.shape.dimensions)
    const at = regions(this.shape)
    await Promise.all([
      readFully(this.file, keys, at.keys + from * 8),
      readFully(this.file, codes, at.codes + from * this.shape.dimensions),
    ])
    return { keys, codes }
  }

  /**
   * The `n` windows nearest `query` (unit length), nearest first, among those of the nearest `probes` lists, or of
   * more, until they hold LEAST_WINDOWS windows and `n`.
   */
  async search(query: Float32Array, n: number, probes = PROBES): Promise<Candidate[]> {
    const { dimensions: d, lists } = this.shape
    if (this.size === 0 || n < 1) return []
    const { exactSearch, MetricKind } = await loadUsearch()
    const ranked = exactSearch(this.centres, ownBuffer(query), d, lists, MetricKind.Cos)
    const chosen: number[] = []
    let windows = 0
    for (let i = 0; i < ranked.keys.length && (chosen.length < probes || windows < Math.max(n, LEAST_WINDOWS)); i++) {
      const list = Number(ranked.keys[i])
      chosen.push(list)
      windows += this.offsets[list + 1] - this.offsets[list]
    }
    if (windows === 0) return []
    // read in this thread: each list is a copy from the page cache, a few milliseconds in all, where the thread pool's
    // round trips cost three times as much (BENCHMARKS.md); the codes' buffer is not zeroed first, every byte is read
    const keys = new BigUint64Array(windows)
    const codes = new Int8Array(Buffer.allocUnsafeSlow(windows * d).buffer, 0, windows * d)
    const at = regions(this.shape)
    let into = 0
    for (const list of chosen) {
      const from = this.offsets[list],
        count = this.offsets[list + 1] - from
      readFullySync(this.file.fd, keys.subarray(into, into + count), at.keys + from * 8)
      readFullySync(this.file.fd, codes.subarray(into * d, (into + count) * d), at.codes + from * d)
      into += count
    }
    const found = exactSearch(codes, quantised(query, d), d, Math.min(n, windows), MetricKind.Cos)
    const out: Candidate[] = []
    for (let i = 0; i < found.keys.length; i++)
      out.push({ key: keys[Number(found.keys[i])], distance: found.distances[i] })
    return out
  }

  async close(): Promise<void> {
    await this.file.close()
  }
}
