import libsamplerate from '@alexanderolsen/libsamplerate-js'

// Recordings at the model's sample rate, chunk by chunk (libsamplerate, its WASM port, medium-quality sinc unless
// asked for its fastest, as the speech detector does, docs/decisions.md §31):
// a model is run on what it was trained on, whatever the recorder's rate. One resampler a file, holding the
// filter's state across chunks; at the file's end, what it still holds is flushed out.

export interface Resampler {
  /** the samples at the target rate that `chunk` (at the source rate) completes */
  push(chunk: Float32Array): Float32Array
  /** the samples still held, at the file's end; the resampler is then spent */
  end(): Float32Array
}

/** libsamplerate's sinc converters: `medium` passes 90% of the band, `fastest` 80% at about a third of the cost. */
export type ResampleQuality = 'medium' | 'fastest'

/** A resampler from `from` Hz to `to` Hz (the same rate: samples pass as they are). */
export async function resampler(from: number, to: number, quality: ResampleQuality = 'medium'): Promise<Resampler> {
  if (from === to) return { push: (chunk) => chunk, end: () => new Float32Array(0) }
  const converterType =
    quality === 'fastest'
      ? libsamplerate.ConverterType.SRC_SINC_FASTEST
      : libsamplerate.ConverterType.SRC_SINC_MEDIUM_QUALITY
  const src = await libsamplerate.create(1, from, to, { converterType })
  // the converter's delay, in target samples: about its filter's half-length; silence pushed at the end flushes it
  const flush = new Float32Array(Math.ceil(from * 0.05))
  let pushed = 0
  let given = 0
  return {
    push(chunk) {
      pushed += chunk.length
      const out = src.full(chunk)
      given += out.length
      return out
    },
    end() {
      const expected = Math.round((pushed * to) / from)
      const parts: Float32Array[] = []
      for (let i = 0; i < 20 && given < expected; i++) {
        const out = src.full(flush)
        parts.push(out.subarray(0, Math.min(out.length, expected - given)))
        given += parts[parts.length - 1].length
      }
      src.destroy()
      const tail = new Float32Array(parts.reduce((n, p) => n + p.length, 0))
      let at = 0
      for (const p of parts) {
        tail.set(p, at)
        at += p.length
      }
      return tail
    },
  }
}
