import { SampleBuffer } from './sampleBuffer.js'
import type { MonoChunk } from './audioSource.js'
import { powerSpectrum } from './fft.js'

// The frames discovery embeds (docs/decisions.md §20): log energy in mel bands
// laid out in Hz between two frequencies, so that files of any sample rate are
// compared frequency against frequency, at a frame step that follows the
// window (a 3 ms window gets frames a fifth of a millisecond apart, a 2 s
// window 25 ms); and each band's background (its 10th percentile over a block
// of 30 s) taken away, so that recorder noise and loudness do not decide.

/** frames are at most this far apart */
export const MAX_FRAME_SECONDS = 0.025
/** a window spans at least this many frames (frames are closer for short windows) */
export const FRAMES_PER_WINDOW = 16
export const BANDS = 32
/** a window's frames are averaged into this many slices over time */
export const SLICES = 8
/** windows start every this many frames */
export const WINDOW_STEP_FRAMES = 2
export const BLOCK_SECONDS = 30
/** a block holds at most this many frames (a block of short frames is shorter than BLOCK_SECONDS) */
const MAX_BLOCK_FRAMES = 48_000
const FLOOR_QUANTILE = 0.1

/** Where frames lie in a file of one sample rate: frame f is centred on sample f × hop. */
export interface FrameGrid {
  sampleRate: number
  hop: number
  fftSize: number
  /** seconds between frames (hop / sampleRate) */
  frameSeconds: number
}

/** The frames of a file of `sampleRate` compared in windows of `windowSeconds`. */
export function frameGrid(sampleRate: number, windowSeconds: number): FrameGrid {
  const hop = Math.max(1, Math.round(sampleRate * Math.min(MAX_FRAME_SECONDS, windowSeconds / FRAMES_PER_WINDOW)))
  let fftSize = 32
  while (fftSize < 1.5 * hop) fftSize *= 2
  return { sampleRate, hop, fftSize, frameSeconds: hop / sampleRate }
}

/** The frequencies the bands span, in Hz. */
export interface BandRange {
  lo: number
  hi: number
}

/** Frames in a file of `samples` samples (the last frame is centred at or before its last sample). */
export function framesIn(grid: FrameGrid, samples: number): number {
  return samples > 0 ? Math.floor((samples - 1) / grid.hop) + 1 : 0
}

const mel = (hz: number) => 2595 * Math.log10(1 + hz / 700)
const hzOfMel = (m: number) => 700 * (10 ** (m / 2595) - 1)

/** Triangular filters over the FFT bins, `BANDS` of them equally spaced in mel between `range.lo` and `range.hi`. */
export interface MelFilters {
  first: Int32Array
  weights: Float64Array[]
  /** the FFT bins any filter uses: [fromBin, toBin) */
  fromBin: number
  toBin: number
}

export function melFilters(grid: FrameGrid, range: BandRange): MelFilters {
  const bins = grid.fftSize / 2 + 1
  const binHz = grid.sampleRate / grid.fftSize
  const lo = mel(Math.max(0, range.lo)),
    hi = mel(Math.max(range.lo, range.hi))
  const edges = Array.from({ length: BANDS + 2 }, (_, i) => hzOfMel(lo + ((hi - lo) * i) / (BANDS + 1)))
  const first = new Int32Array(BANDS)
  const weights: Float64Array[] = []
  for (let b = 0; b < BANDS; b++) {
    const [left, centre, right] = [edges[b], edges[b + 1], edges[b + 2]]
    const w = new Float64Array(bins)
    let sum = 0
    for (let k = 0; k < bins; k++) {
      const f = k * binHz
      const v = Math.max(
        0,
        Math.min((f - left) / Math.max(centre - left, 1e-9), (right - f) / Math.max(right - centre, 1e-9)),
      )
      w[k] = v
      sum += v
    }
    if (sum === 0) {
      // narrower than a bin: the bin nearest its centre
      const k = Math.min(bins - 1, Math.round(centre / binHz))
      w[k] = 1
      sum = 1
    }
    let from = 0
    while (w[from] === 0) from++
    let to = bins
    while (w[to - 1] === 0) to--
    first[b] = from
    weights.push(w.slice(from, to).map((x) => x / sum))
  }
  const fromBin = Math.min(...first)
  const toBin = Math.max(...weights.map((w, b) => first[b] + w.length))
  return { first, weights, fromBin, toBin }
}

/**
 * The log-mel frames [from, from + count) of a file (BANDS dB values a frame, row by row), from its mono
 * samples as `chunks` gives them: they must start at or before sample from × hop − fftSize/2 (or at 0) and
 * run to at least (from + count − 1) × hop + fftSize/2 (or the file's end); samples outside the file count
 * as silence. Yielded in batches as the samples arrive, each with the index of its first frame.
 */
export async function* melFrameBatches(
  chunks: AsyncIterable<MonoChunk>,
  grid: FrameGrid,
  filters: MelFilters,
  from: number,
  count: number,
): AsyncGenerator<{ first: number; rows: Float32Array }> {
  const spectrum = await powerSpectrum(grid.fftSize)
  const { fftSize, hop } = grid
  const frame = new Float32Array(fftSize)
  const power = new Float64Array(fftSize / 2 + 1)
  const held = new SampleBuffer() // the file's samples the next frames need
  let next = 0 // the next frame to compute, counted from `from`
  const computed = (ended: boolean): Float32Array => {
    let n = 0
    for (; next + n < count; n++) {
      const start = (from + next + n) * hop - fftSize / 2
      if (!ended && start + fftSize > held.end) break
    }
    const out = new Float32Array(n * BANDS)
    for (let i = 0; i < n; i++, next++) {
      const start = (from + next) * hop - fftSize / 2 - held.start
      if (start >= 0 && start + fftSize <= held.length)
        spectrum(held.samples, power, start, filters.fromBin, filters.toBin)
      else {
        // at the file's ends: silence outside it
        for (let j = 0; j < fftSize; j++)
          frame[j] = start + j >= 0 && start + j < held.length ? held.samples[start + j] : 0
        spectrum(frame, power, 0, filters.fromBin, filters.toBin)
      }
      const row = i * BANDS
      for (let b = 0; b < BANDS; b++) {
        const w = filters.weights[b]
        const k0 = filters.first[b]
        let e = 0
        for (let k = 0; k < w.length; k++) e += w[k] * power[k0 + k]
        out[row + b] = 10 * Math.log10(e + 1e-12)
      }
    }
    return out
  }
  for await (const chunk of chunks) {
    // keep only what the next frame still needs, then append the chunk
    if (held.length === 0) held.start = chunk.start
    else if (chunk.start !== held.end) throw new Error(`audio chunks are not contiguous (at sample ${chunk.start})`)
    held.append(chunk.samples, Math.max(held.start, (from + next) * hop - fftSize / 2))
    const first = next
    const rows = computed(false)
    if (rows.length) yield { first: from + first, rows }
  }
  const first = next
  const rows = computed(true)
  if (rows.length) yield { first: from + first, rows }
}

/** The same, all in one array (count × BANDS). */
export async function melFrames(
  chunks: AsyncIterable<MonoChunk>,
  grid: FrameGrid,
  filters: MelFilters,
  from: number,
  count: number,
): Promise<Float32Array> {
  const out = new Float32Array(count * BANDS)
  for await (const batch of melFrameBatches(chunks, grid, filters, from, count))
    out.set(batch.rows, (batch.first - from) * BANDS)
  return out
}

/** The samples [from, to) that melFrames needs for frames [first, first + count) of a file of `samples` samples. */
export function samplesFor(
  grid: FrameGrid,
  first: number,
  count: number,
  samples: number,
): { from: number; to: number } {
  return {
    from: Math.max(0, first * grid.hop - grid.fftSize / 2),
    to: Math.min(samples, Math.max(0, (first + count - 1) * grid.hop + grid.fftSize / 2)),
  }
}

/** Frames of a block whose background is measured together: blocks of BLOCK_SECONDS (or MAX_BLOCK_FRAMES) from the start, the last taking the rest. */
export function blockFrames(grid: FrameGrid): number {
  return Math.max(1, Math.min(MAX_BLOCK_FRAMES, Math.round(BLOCK_SECONDS / grid.frameSeconds)))
}

/** The block of frame `f` in a file of `total` frames. */
export function blockOf(f: number, total: number, perBlock: number): number {
  return Math.min(Math.floor(f / perBlock), Math.max(0, Math.floor(total / perBlock) - 1))
}

/** Each band's background over frames [from, to) of `frames` (whose row 0 is frame `offset`): its 10th percentile. */
export function bandFloor(frames: Float32Array, offset: number, from: number, to: number): Float32Array {
  const floor = new Float32Array(BANDS)
  const n = to - from
  if (n <= 0) return floor
  const column = new Float32Array(n)
  const at = Math.min(n - 1, Math.floor(FLOOR_QUANTILE * n))
  for (let b = 0; b < BANDS; b++) {
    for (let i = 0; i < n; i++) column[i] = frames[(from - offset + i) * BANDS + b]
    floor[b] = nth(column, at)
  }
  return floor
}

/** The value that would be at index k of `v` sorted (Hoare's selection; `v` is reordered). */
function nth(v: Float32Array, k: number): number {
  let lo = 0,
    hi = v.length - 1
  while (lo < hi) {
    const pivot = v[(lo + hi) >> 1]
    let i = lo,
      j = hi
    while (i <= j) {
      while (v[i] < pivot) i++
      while (v[j] > pivot) j--
      if (i <= j) {
        const x = v[i]
        v[i] = v[j]
        v[j] = x
        i++
        j--
      }
    }
    if (k <= j) hi = j
    else if (k >= i) lo = i
    else return v[k]
  }
  return v[k]
}

/** `v` less its mean, scaled to length 1 (all zero when flat), in place. */
export function unitShape(v: Float32Array): Float32Array {
  let mean = 0
  for (let i = 0; i < v.length; i++) mean += v[i]
  mean /= v.length
  let norm = 0
  for (let i = 0; i < v.length; i++) {
    v[i] -= mean
    norm += v[i] * v[i]
  }
  norm = Math.sqrt(norm)
  if (norm < 1e-6) v.fill(0)
  else for (let i = 0; i < v.length; i++) v[i] /= norm
  return v
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}
