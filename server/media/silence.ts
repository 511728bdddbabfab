import { Transform, type Readable } from 'node:stream'
import type { MonoChunk } from '../analysis/audioSource.js'
import type { WavLayout } from '../analysis/wavLayout.js'
import type { TimeSpan } from './speechPolicy.js'

// Spans of a recording replaced by silence, for the readers a library's speech policy mutes (docs/decisions.md,
// "Speech policy"): in the decoded samples a spectrogram is computed from, and in a WAV file's bytes as they are
// served (any byte range of them), where every sample of every channel in a span becomes the format's zero.

/** frames [from, to) of a recording */
export interface FrameSpan {
  from: number
  to: number
}

/** The spans in frames at `sampleRate`, widened to whole frames. */
export function frameSpans(spans: readonly TimeSpan[], sampleRate: number): FrameSpan[] {
  return spans.map((s) => ({ from: Math.max(0, Math.floor(s.start * sampleRate)), to: Math.ceil(s.end * sampleRate) }))
}

/** The chunks with the samples of the spans set to zero. */
export async function* silencedChunks(
  chunks: AsyncIterable<MonoChunk>,
  spans: readonly FrameSpan[],
): AsyncGenerator<MonoChunk> {
  for await (const c of chunks) {
    const end = c.start + c.samples.length
    for (const s of spans) {
      if (s.to <= c.start || s.from >= end) continue
      c.samples.fill(0, Math.max(s.from, c.start) - c.start, Math.min(s.to, end) - c.start)
    }
    yield c
  }
}

/** The WAV file's bytes from byte `firstByte` on, as `bytes` streams them, with the samples of the spans silenced. */
export function silencedWavBytes(
  bytes: Readable,
  firstByte: number,
  layout: WavLayout,
  spans: readonly FrameSpan[],
): Readable {
  // unsigned 8-bit PCM is silent at its midpoint; every other sample format at zero
  const zero = layout.format === 1 && layout.bitsPerSample === 8 ? 0x80 : 0
  const dataEnd = layout.dataStart + layout.dataBytes
  const ranges = spans
    .map((s) => ({
      from: layout.dataStart + s.from * layout.blockAlign,
      to: Math.min(dataEnd, layout.dataStart + s.to * layout.blockAlign),
    }))
    .filter((r) => r.to > r.from)
  let at = firstByte
  const silencing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const end = at + chunk.length
      let out = chunk
      for (const r of ranges) {
        if (r.to <= at || r.from >= end) continue
        // the stream's buffers may be shared with whoever read them: fill a copy
        if (out === chunk) out = Buffer.from(chunk)
        out.fill(zero, Math.max(r.from, at) - at, Math.min(r.to, end) - at)
      }
      at = end
      done(null, out)
    },
  })
  bytes.on('error', (e) => silencing.destroy(e))
  return bytes.pipe(silencing)
}
