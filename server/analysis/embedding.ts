import { BANDS, SLICES, unitShape } from './features.js'

// The built-in embedding of a window (docs/decisions.md §20): what a classifier learns a call from. Its
// frames above their background (features.ts) averaged into SLICES steps over time × BANDS mel bands:
// the patch less its mean and scaled to length 1 (its shape, whatever its loudness), followed by a few
// statistics of the same patch that the shape has lost: how far above the background it stands, how it
// varies over time and over frequency, and whether the sound fills the window's middle or only its edges.
// Everything is in Hz and seconds, so a call embeds alike at any sample rate.

export const SHAPE_SIZE = SLICES * BANDS
export const STATS = 5
export const EMBEDDING_SIZE = SHAPE_SIZE + STATS

/** The shape part of an embedding (its first SHAPE_SIZE values): two shapes' dot product is their correlation. */
export function shapeOf(embedding: Float32Array): Float32Array {
  return embedding.subarray(0, SHAPE_SIZE)
}

/**
 * Frames [from, to) of a stretch above `floor` (negative values as 0), summed cumulatively band by band, so
 * that the mean of any run of them costs BANDS subtractions whatever the run's length.
 */
export class StretchSums {
  private readonly sums: Float64Array

  /** `frames`: rows of BANDS values whose row 0 is frame `offset` */
  constructor(
    frames: Float32Array,
    offset: number,
    readonly from: number,
    readonly to: number,
    floor: Float32Array,
  ) {
    const n = Math.max(0, to - from)
    this.sums = new Float64Array((n + 1) * BANDS)
    for (let i = 0; i < n; i++) {
      const row = (from - offset + i) * BANDS
      for (let b = 0; b < BANDS; b++)
        this.sums[(i + 1) * BANDS + b] = this.sums[i * BANDS + b] + Math.max(0, frames[row + b] - floor[b])
    }
  }

  /** Each band's mean over frames [a, b) (within [from, to)), added to `into` at `at`. */
  meanInto(into: Float32Array, at: number, a: number, b: number): void {
    const lo = (a - this.from) * BANDS,
      hi = (b - this.from) * BANDS
    const n = b - a
    for (let band = 0; band < BANDS; band++) into[at + band] = (this.sums[hi + band] - this.sums[lo + band]) / n
  }
}

// scratch for embedWindow, which runs to its end without yielding
const overTime = new Float64Array(SLICES),
  overBands = new Float64Array(BANDS)

/** The embedding of the window of `length` frames from frame `start` (the stretch holds them all). */
export function embedWindow(sums: StretchSums, start: number, length: number): Float32Array {
  const out = new Float32Array(EMBEDDING_SIZE)
  for (let s = 0; s < SLICES; s++) {
    // a window shorter than SLICES frames repeats frames
    const a = Math.min(length - 1, Math.floor((s * length) / SLICES))
    const b = Math.min(length, Math.max(a + 1, Math.floor(((s + 1) * length) / SLICES)))
    sums.meanInto(out, s * BANDS, start + a, start + b)
  }
  let total = 0,
    peak = 0,
    middle = 0,
    edges = 0
  overBands.fill(0)
  for (let s = 0; s < SLICES; s++) {
    let slice = 0
    for (let b = 0, at = s * BANDS; b < BANDS; b++, at++) {
      const v = out[at]
      slice += v
      if (v > peak) peak = v
      overBands[b] += v / SLICES
    }
    total += slice
    overTime[s] = slice / BANDS
    // the middle half of the window against its first and last quarters
    if (s >= SLICES / 4 && s < (3 * SLICES) / 4) middle += overTime[s]
    else edges += overTime[s]
  }
  // dB above the background, in tens
  out[SHAPE_SIZE] = total / SHAPE_SIZE / 10
  out[SHAPE_SIZE + 1] = peak / 10
  out[SHAPE_SIZE + 2] = deviation(overTime) / 10
  out[SHAPE_SIZE + 3] = deviation(overBands) / 10
  out[SHAPE_SIZE + 4] = (middle - edges) / (SLICES / 2) / 10
  unitShape(out.subarray(0, SHAPE_SIZE))
  return out
}

function deviation(v: Float64Array): number {
  let mean = 0
  for (let i = 0; i < v.length; i++) mean += v[i]
  mean /= v.length
  let s = 0
  for (let i = 0; i < v.length; i++) s += (v[i] - mean) ** 2
  return Math.sqrt(s / v.length)
}
