import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.js'
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
  const s = await db.selectFrom('user_settings').selectAll().where('user_id', '=', userId).where('name', '=', 'default')
    .executeTakeFirstOrThrow()
  return {
    bands: Math.max(1, Math.min(1024, s.spectra_num_frequency_bands)),
    minFrequency: Math.max(0, s.spectra_minimum_band_frequency),
    maxFrequency: s.spectra_maximum_band_frequency,
    framesPerSecond: s.spectra_num_frames_per_second > 0 ? Math.min(1000, s.spectra_num_frames_per_second) : 100,
    damping: Math.min(0.999, Math.max(0, s.spectra_damping_factor)),
  }
}

export async function spectrogram(samples: Float32Array, sampleRate: number, settings: SpectraSettings): Promise<Spectrogram> {
  const hop = Math.max(1, Math.round(sampleRate / settings.framesPerSecond))
  let size = 64
  while (size < 2 * hop && size < 16384) size *= 2
  const nyquist = sampleRate / 2
  const maxF = Math.min(nyquist, settings.maxFrequency > settings.minFrequency ? settings.maxFrequency : nyquist)
  const minF = Math.min(settings.minFrequency, maxF)
  const bands = settings.bands
  const edges = Array.from({ length: bands + 1 }, (_, i) => minF + (maxF - minF) * i / bands)
  const binHz = sampleRate / size
  // for each band, the FFT bins it sums (at least the bin nearest its centre)
  const bandBins: Array<[number, number]> = []
  for (let b = 0; b < bands; b++) {
    let lo = Math.ceil(edges[b] / binHz)
    let hi = Math.floor(edges[b + 1] / binHz)
    if (b < bands - 1) hi = Math.min(hi, Math.ceil(edges[b + 1] / binHz) - 1)
    if (hi < lo) { lo = hi = Math.min(size / 2, Math.round((edges[b] + edges[b + 1]) / 2 / binHz)) }
    bandBins.push([lo, Math.min(hi, size / 2)])
  }
  const frames = Math.max(0, Math.floor((samples.length - 1) / hop) + 1)
  const data = new Float32Array(frames * bands)
  const frame = new Float32Array(size)
  const power = new Float64Array(size / 2 + 1)
  const previous = new Float64Array(bands)
  const spectrum = await powerSpectrum(size)
  for (let f = 0; f < frames; f++) {
    const start = Math.round(f * hop - size / 2 + hop / 2)
    const inside = start >= 0 && start + size <= samples.length
    if (inside) spectrum(samples, power, start)
    else {
      for (let i = 0; i < size; i++) frame[i] = start + i >= 0 && start + i < samples.length ? samples[start + i] : 0
      spectrum(frame, power)
    }
    for (let b = 0; b < bands; b++) {
      const [lo, hi] = bandBins[b]
      let e = 0
      for (let k = lo; k <= hi; k++) e += power[k]
      e /= hi - lo + 1
      const smoothed = f === 0 ? e : settings.damping * previous[b] + (1 - settings.damping) * e
      previous[b] = smoothed
      data[f * bands + b] = 10 * Math.log10(smoothed + 1e-12)
    }
  }
  return { data, frames, bands, framesPerSecond: sampleRate / hop, edges }
}

/** Euclidean distance of two vectors. */
export function distance(a: Float64Array, b: Float64Array): number {
  let d = 0
  for (let i = 0; i < a.length; i++) d += (a[i] - b[i]) ** 2
  return Math.sqrt(d)
}
