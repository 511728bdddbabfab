import { open, rm, type FileHandle } from 'node:fs/promises'
import { seededRandom } from '../random.js'
import { withRoom } from '../../typedArrays.js'
import { headerBytes, quantised, readFully, regions, type InvertedFileShape } from './invertedFile.js'
import { loadUsearch, type UsearchIndex } from './usearch.js'

// Building an inverted file (invertedFile.ts; docs/decisions.md §35): centres by k-means over a sample of the
// windows, every window put in its nearest centre's list, the lists written one after another. Windows arrive in
// any order and are spilled to a file beside the one being built as they come, so a build holds their keys and
// lists in memory (12 bytes a window), not their codes; the codes are put in list order a group of lists at a time.

/** The lists for a library of `windows` windows: about 2√n, so a list holds about √n / 2. */
export const listCountFor = (windows: number): number =>
  windows < 1 ? 0 : Math.max(1, Math.min(windows, 16_384, Math.round(2 * Math.sqrt(windows))))

/** The sample k-means learns the centres from: this many windows a list. */
export const SAMPLE_PER_LIST = 32
const KMEANS_ROUNDS = 8
/** The most codes held at once while putting them in list order. */
const GROUP_BYTES = 256 * 2 ** 20

/** Assigns windows to their nearest centre: an HNSW graph over the centres (usearch), all cores. */
export class CentreAssigner {
  private constructor(
    /** null when there is no centre (an index of no window) */
    private readonly graph: UsearchIndex | null,
    private readonly dimensions: number,
  ) {}

  static async over(centres: Float32Array, dimensions: number): Promise<CentreAssigner> {
    if (centres.length === 0) return new CentreAssigner(null, dimensions)
    const { Index, MetricKind, ScalarKind } = await loadUsearch()
    const graph = new Index({
      dimensions,
      metric: MetricKind.Cos,
      quantization: ScalarKind.F32,
      connectivity: 16,
      expansion_add: 128,
      expansion_search: 24,
      multi: false,
    })
    const lists = centres.length / dimensions
    // built on all cores: the graph, and so which of two nearly equidistant centres a window goes to, depends on
    // their timing (usearch offers no way to build on one thread and search on several)
    graph.add(
      BigUint64Array.from({ length: lists }, (_, i) => BigInt(i)),
      centres,
      0,
    )
    return new CentreAssigner(graph, dimensions)
  }

  /** The nearest centre of each of the unit vectors laid in `vectors`. */
  nearest(vectors: Float32Array): Uint32Array {
    const count = vectors.length / this.dimensions
    if (count === 0) return new Uint32Array(0)
    if (!this.graph) throw new Error('there is no centre to put a window near')
    const found = this.graph.search(vectors, 1, 0)
    const out = new Uint32Array(count)
    for (let i = 0; i < count; i++) out[i] = Number(found.keys[i])
    return out
  }
}

/** `lists` centres of unit length learnt from `sample` (unit vectors) by spherical k-means, seeded. */
export async function trainCentres(
  sample: Float32Array,
  dimensions: number,
  lists: number,
  seed = 35,
): Promise<Float32Array> {
  const d = dimensions,
    n = sample.length / d
  if (lists > n) throw new Error(`${lists} centres cannot be learnt from ${n} windows`)
  // the first centres: `lists` windows of the sample drawn without replacement
  const random = seededRandom(seed)
  const order = Uint32Array.from({ length: n }, (_, i) => i)
  const centres = new Float32Array(lists * d)
  for (let c = 0; c < lists; c++) {
    const pick = c + Math.floor(random() * (n - c))
    ;[order[c], order[pick]] = [order[pick], order[c]]
    centres.set(sample.subarray(order[c] * d, (order[c] + 1) * d), c * d)
  }
  const sums = new Float64Array(lists * d)
  const counts = new Uint32Array(lists)
  for (let round = 0; round < KMEANS_ROUNDS && lists > 1; round++) {
    const nearest = (await CentreAssigner.over(centres, d)).nearest(sample)
    sums.fill(0)
    counts.fill(0)
    for (let i = 0; i < n; i++) {
      const c = nearest[i]
      counts[c]++
      for (let j = 0, a = c * d, b = i * d; j < d; j++) sums[a + j] += sample[b + j]
    }
    for (let c = 0; c < lists; c++) {
      if (!counts[c]) continue // an empty list keeps its centre
      let norm = 0
      for (let j = 0; j < d; j++) norm += sums[c * d + j] ** 2
      if (norm === 0) continue
      norm = Math.sqrt(norm)
      for (let j = 0; j < d; j++) centres[c * d + j] = sums[c * d + j] / norm
    }
  }
  return centres
}

/** A growable array of one typed kind. */
class Column<T extends Uint32Array | BigUint64Array> {
  length = 0
  constructor(private values: T) {}
  push(from: T): void {
    this.values = withRoom(this.values, this.length + from.length)
    this.values.set(from as never, this.length)
    this.length += from.length
  }
  get all(): T {
    return this.values.subarray(0, this.length) as T
  }
}

/** Windows in, in any order; an inverted file out (`finish`). */
export class InvertedFileBuilder {
  private readonly keys = new Column<BigUint64Array>(new BigUint64Array(1024))
  private readonly listOf = new Column<Uint32Array>(new Uint32Array(1024))
  private spilled = 0

  private constructor(
    private readonly dimensions: number,
    private readonly centres: Float32Array,
    private readonly assigner: CentreAssigner,
    private readonly spill: FileHandle,
    private readonly spillPath: string,
  ) {}

  /** A builder with these centres, spilling to `spillPath` (removed when finished). */
  static async start(centres: Float32Array, dimensions: number, spillPath: string): Promise<InvertedFileBuilder> {
    const assigner = await CentreAssigner.over(centres, dimensions)
    return new InvertedFileBuilder(dimensions, centres, assigner, await open(spillPath, 'w+'), spillPath)
  }

  get lists(): number {
    return this.centres.length / this.dimensions
  }

  get windows(): number {
    return this.keys.length
  }

  /** Windows (unit vectors laid one after another) under their keys, each put in its nearest centre's list. */
  async add(keys: BigUint64Array, vectors: Float32Array): Promise<void> {
    await this.put(keys, quantised(vectors, this.dimensions), this.assigner.nearest(vectors))
  }

  /** Windows already in list `list` (of a file built with the same centres), as their codes. */
  async addToList(keys: BigUint64Array, codes: Int8Array, list: number): Promise<void> {
    await this.put(keys, codes, new Uint32Array(keys.length).fill(list))
  }

  private async put(keys: BigUint64Array, codes: Int8Array, lists: Uint32Array): Promise<void> {
    if (!keys.length) return
    await this.spill.write(codes, 0, codes.byteLength, this.spilled)
    this.spilled += codes.byteLength
    this.keys.push(keys)
    this.listOf.push(lists)
  }

  /** Write the inverted file to `path` (and remove the spill), holding at most `groupBytes` of codes at once. */
  async finish(path: string, groupBytes = GROUP_BYTES): Promise<void> {
    const d = this.dimensions,
      lists = this.lists,
      windows = this.windows
    const listOf = this.listOf.all,
      keys = this.keys.all
    const shape: InvertedFileShape = { dimensions: d, lists, windows }
    const offsets = new Float64Array(lists + 1)
    for (let i = 0; i < windows; i++) offsets[listOf[i] + 1]++
    for (let c = 0; c < lists; c++) offsets[c + 1] += offsets[c]
    // each window's place in list order
    const next = offsets.slice(0, lists)
    const place = new Float64Array(windows)
    for (let i = 0; i < windows; i++) place[i] = next[listOf[i]]++
    const ordered = new BigUint64Array(windows)
    for (let i = 0; i < windows; i++) ordered[place[i]] = keys[i]
    const at = regions(shape)
    const out = await open(path, 'w')
    try {
      await out.write(headerBytes(shape), 0, 32, 0)
      await out.write(
        new Uint8Array(this.centres.buffer, this.centres.byteOffset, this.centres.byteLength),
        0,
        this.centres.byteLength,
        at.centres,
      )
      await out.write(new Uint8Array(offsets.buffer), 0, offsets.byteLength, at.offsets)
      await out.write(new Uint8Array(ordered.buffer), 0, ordered.byteLength, at.keys)
      // the codes, a group of places at a time: the spill read through once a group
      const perGroup = Math.max(1, Math.floor(groupBytes / Math.max(1, d)))
      const chunk = Buffer.alloc(Math.max(d, Math.floor((16 * 2 ** 20) / d) * d))
      for (let first = 0; first < windows; first += perGroup) {
        const last = Math.min(windows, first + perGroup)
        const group = Buffer.alloc((last - first) * d)
        for (let from = 0; from < windows; from += chunk.length / d) {
          const count = Math.min(chunk.length / d, windows - from)
          await readFully(this.spill, chunk.subarray(0, count * d), from * d)
          for (let i = 0; i < count; i++) {
            const p = place[from + i]
            if (p >= first && p < last) chunk.copy(group, (p - first) * d, i * d, (i + 1) * d)
          }
        }
        await out.write(group, 0, group.length, at.codes + first * d)
      }
    } finally {
      await out.close()
      await this.spill.close()
      await rm(this.spillPath, { force: true })
    }
  }

  /** Give up: the spill removed. */
  async abandon(): Promise<void> {
    await this.spill.close().catch(() => undefined)
    await rm(this.spillPath, { force: true })
  }
}
