import { SampleBuffer } from './sampleBuffer.js'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.js'
import type { MonoChunk } from './audioChunks.js'
import { powerSpectrum } from './fft.js'
import { ensureDefaultSettings } from './settings.js'

// Spectral features, the one implementation the discovery jobs use: frames
// at `framesPerSecond`, each the log energy (dB) of `bands` frequency bands
// between `minFrequency` and `maxFrequency` (capped at half the sample rate),
// from a Hann-windowed FFT (fft.ts), smoothed over time by the damping factor.

export interface SpectraSettings {
  bands: number
  minFrequency: number
  maxFrequency: number
  framesPerSecond: number
  damping: number
}

export interface Spectrogram {
  /** frames × bands, row by row */
  data: Float32Array
  frames: number
  bands: number
  framesPerSecond: number
  /** band edges in Hz: bands + 1 values */
  edges: number[]
}

/** The spectra settings of a user's `default` UserSettings (created with the defaults when missing). */
export async function spectraSettingsOf(db: Kysely<DB>, userId: number): Promise<SpectraSettings> {
  await ensureDefaultSettings(db, userId)
  const s = await db
    .selectFrom('user_settings')
    .selectAll()
    .where('user_id', '=', userId)
    .where('name', '=', 'default')
    .executeTakeFirstOrThrow()
  return {
    bands: Math.max(1, Math.min(1024, s.spectra_num_frequency_bands)),
    minFrequency: Math.max(0, s.spectra_minimum_band_frequency),
    maxFrequency: s.spectra_maximum_band_frequency,
    framesPerSecond: s.spectra_num_frames_per_second > 0 ? Math.min(1000, s.spectra_num_frames_per_second) : 100,
    damping: Math.min(0.999, Math.max(0, s.spectra_damping_factor)),
  }
}

/** Where a stretch's frames lie and what each band sums, for one sample rate and spectra settings. */
export interface FrameLayout {
  /** samples between frames */
  hop: number
  /** FFT size */
  size: number
  bands: number
  /** band edges in Hz: bands + 1 values */
  edges: number[]
  /** for each band, the FFT bins [lo, hi] it averages */
  bandBins: Array<[number, number]>
  framesPerSecond: number
  damping: number
}

export function frameLayout(sampleRate: number, settings: SpectraSettings): FrameLayout {
  const hop = Math.max(1, Math.round(sampleRate / settings.framesPerSecond))
  let size = 64
  while (size < 2 * hop && size < 16384) size *= 2
  const nyquist = sampleRate / 2
  const maxF = Math.min(nyquist, settings.maxFrequency > settings.minFrequency ? settings.maxFrequency : nyquist)
  const minF = Math.min(settings.minFrequency, maxF)
  const bands = settings.bands
  const edges = Array.from({ length: bands + 1 }, (_, i) => minF + ((maxF - minF) * i) / bands)
  const binHz = sampleRate / size
  // for each band, the FFT bins it sums (at least the bin nearest its centre)
  const bandBins: Array<[number, number]> = []
  for (let b = 0; b < bands; b++) {
    let lo = Math.ceil(edges[b] / binHz)
    let hi = Math.floor(edges[b + 1] / binHz)
    if (b < bands - 1) hi = Math.min(hi, Math.ceil(edges[b + 1] / binHz) - 1)
    if (hi < lo) {
      lo = hi = Math.min(size / 2, Math.round((edges[b] + edges[b + 1]) / 2 / binHz))
    }
    bandBins.push([lo, Math.min(hi, size / 2)])
  }
  return { hop, size, bands, edges, bandBins, framesPerSecond: sampleRate / hop, damping: settings.damping }
}

/** The frames of a stretch of `samples` samples: frame f is centred on sample f × hop + hop / 2. */
export function framesOf(layout: FrameLayout, samples: number): number {
  return samples > 0 ? Math.floor((samples - 1) / layout.hop) + 1 : 0
}

/** The first sample of frame f's window, counted from the stretch's first sample (negative before it). */
const windowStart = (l: FrameLayout, f: number) => Math.round(f * l.hop - l.size / 2 + l.hop / 2)

/** A band's energy in dB, as the spectra hold it. */
export const decibels = (energy: number): number => 10 * Math.log10(energy + 1e-12)

/**
 * The frames of a stretch of audio, as `chunks` gives its samples (contiguous, from the stretch's first;
 * silence outside it), each the smoothed energy of every band (`decibels` makes them the spectra's values),
 * in batches as the samples arrive: memory is a chunk and a window, whatever the stretch's length. A batch's
 * rows are overwritten by the next one's: use them (or copy them) before asking for the next.
 */
export async function* energyBatches(
  chunks: AsyncIterable<MonoChunk>,
  l: FrameLayout,
): AsyncGenerator<{ first: number; rows: Float64Array }> {
  const { size, bands, bandBins, damping } = l
  const spectrum = await powerSpectrum(size)
  const bins = binsOf(bandBins)
  const fromBin = Math.min(...bins.lo),
    toBin = Math.max(...bins.hi) + 1
  const frame = new Float32Array(size)
  const power = new Float64Array(size / 2 + 1)
  const previous = new Float64Array(bands)
  let rows = new Float64Array(0) // the batches' rows, one buffer for them all
  const held = new SampleBuffer() // the stretch's samples the next frames need
  let received = 0
  let stretchStart: number | undefined
  let next = 0 // the next frame to compute
  const computed = (ended: boolean): Float64Array => {
    const last = ended ? framesOf(l, received) : Infinity
    let n = 0
    while (next + n < last && (ended || windowStart(l, next + n) + size <= held.end)) n++
    if (rows.length < n * bands) rows = new Float64Array(n * bands)
    const out = rows.subarray(0, n * bands)
    for (let i = 0; i < n; i++, next++) {
      const start = windowStart(l, next) - held.start
      if (start >= 0 && start + size <= held.length) spectrum(held.samples, power, start, fromBin, toBin)
      else {
        // at the stretch's ends: silence outside it
        for (let j = 0; j < size; j++)
          frame[j] = start + j >= 0 && start + j < held.length ? held.samples[start + j] : 0
        spectrum(frame, power, 0, fromBin, toBin)
      }
      smoothBands(power, bins, previous, next === 0 ? 0 : damping, out, i * bands)
    }
    return out
  }
  for await (const chunk of chunks) {
    stretchStart ??= chunk.start
    if (chunk.start - stretchStart !== received)
      throw new Error(`audio chunks are not contiguous (at sample ${chunk.start})`)
    // keep only what the next frame still needs, then append the chunk
    held.append(chunk.samples, windowStart(l, next))
    received += chunk.samples.length
    const first = next
    const batch = computed(false)
    if (batch.length) yield { first, rows: batch }
  }
  const first = next
  const batch = computed(true)
  if (batch.length) yield { first, rows: batch }
}

interface BandBins {
  lo: Int32Array
  hi: Int32Array
  width: Float64Array
}

const binsOf = (bandBins: Array<[number, number]>): BandBins => ({
  lo: Int32Array.from(bandBins, ([lo]) => lo),
  hi: Int32Array.from(bandBins, ([, hi]) => hi),
  width: Float64Array.from(bandBins, ([lo, hi]) => hi - lo + 1),
})

/** Each band's mean power, smoothed over time (`damping`: the share of the previous frame's, 0 for the first frame), into out[at …]. */
function smoothBands(
  power: Float64Array,
  bins: BandBins,
  previous: Float64Array,
  damping: number,
  out: Float64Array,
  at: number,
): void {
  const { lo, hi, width } = bins
  for (let b = 0; b < lo.length; b++) {
    const last = hi[b]
    let e = 0
    for (let k = lo[b]; k <= last; k++) e += power[k]
    e /= width[b]
    const smoothed = damping * previous[b] + (1 - damping) * e
    previous[b] = smoothed
    out[at + b] = smoothed
  }
}

/** The spectrogram of a stretch of audio given as chunks (see energyBatches), all its frames in one array. */
export async function spectrogramOf(
  chunks: AsyncIterable<MonoChunk>,
  sampleRate: number,
  settings: SpectraSettings,
): Promise<Spectrogram> {
  const l = frameLayout(sampleRate, settings)
  const parts: Float32Array[] = []
  let values = 0
  for await (const { rows } of energyBatches(chunks, l)) {
    parts.push(Float32Array.from(rows, decibels))
    values += rows.length
  }
  const data = new Float32Array(values)
  let at = 0
  for (const p of parts) {
    data.set(p, at)
    at += p.length
  }
  return { data, frames: values / l.bands, bands: l.bands, framesPerSecond: l.framesPerSecond, edges: l.edges }
}

/** The spectrogram of samples in memory. */
export function spectrogram(
  samples: Float32Array,
  sampleRate: number,
  settings: SpectraSettings,
): Promise<Spectrogram> {
  return spectrogramOf(oneChunk(samples), sampleRate, settings)
}

async function* oneChunk(samples: Float32Array): AsyncGenerator<MonoChunk> {
  if (samples.length) yield { start: 0, samples }
}

/** Euclidean distance of two vectors. */
export function distance(a: Float64Array, b: Float64Array): number {
  let d = 0
  for (let i = 0; i < a.length; i++) d += (a[i] - b[i]) ** 2
  return Math.sqrt(d)
}
