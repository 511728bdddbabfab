import { createWriteStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { seededRandom } from '../server/analysis/random.js'
import { flacChunks } from '../test/helpers/flac.js'

// Long recordings for benchmarks and tests, as a recorder in the field would
// write them: mono 16-bit, background noise with now and then a call (a
// rising chirp with a falling tail), the same for the same seed. Written to
// disk block by block, so a day-long file needs no more memory than a second
// of it. A WAV whose data passes 4 GiB - 1 bytes is RF64 (a `ds64` chunk
// holds the 64-bit sizes, the RIFF and data sizes read 0xFFFFFFFF), as
// recorders write them.

export interface RecordingOptions {
  sampleRate?: number
  seed: number
  /** seconds between calls, on average */
  callEvery?: number
}

const MAX_RIFF_DATA = 0xffffffff - 36

/** The header of a mono or multi-channel integer PCM WAV file with `dataBytes` of audio; RF64 when they need it or `rf64`. */
export function pcmWavHeader(o: {
  sampleRate: number
  channels: number
  bitsPerSample: number
  dataBytes: number
  rf64?: boolean
}): Buffer {
  const rf64 = o.rf64 ?? o.dataBytes > MAX_RIFF_DATA
  const blockAlign = (o.channels * o.bitsPerSample) / 8
  const ds64 = rf64 ? 36 : 0
  const h = Buffer.alloc(44 + ds64)
  h.write(rf64 ? 'RF64' : 'RIFF', 0, 'latin1')
  h.writeUInt32LE(rf64 ? 0xffffffff : 36 + o.dataBytes, 4)
  h.write('WAVE', 8, 'latin1')
  let at = 12
  if (rf64) {
    h.write('ds64', at, 'latin1')
    h.writeUInt32LE(28, at + 4)
    h.writeBigUInt64LE(BigInt(36 + ds64 + o.dataBytes), at + 8) // RIFF size
    h.writeBigUInt64LE(BigInt(o.dataBytes), at + 16) // data size
    h.writeBigUInt64LE(BigInt(o.dataBytes / blockAlign), at + 24) // sample count
    h.writeUInt32LE(0, at + 32) // no table
    at += 36
  }
  h.write('fmt ', at, 'latin1')
  h.writeUInt32LE(16, at + 4)
  h.writeUInt16LE(1, at + 8)
  h.writeUInt16LE(o.channels, at + 10)
  h.writeUInt32LE(o.sampleRate, at + 12)
  h.writeUInt32LE(o.sampleRate * blockAlign, at + 16)
  h.writeUInt16LE(blockAlign, at + 20)
  h.writeUInt16LE(o.bitsPerSample, at + 22)
  h.write('data', at + 24, 'latin1')
  h.writeUInt32LE(rf64 ? 0xffffffff : o.dataBytes, at + 28)
  return h
}

/** `frames` samples of noise with calls, one second at a time. */
export function* recordingBlocks(frames: number, o: RecordingOptions): Generator<Int16Array> {
  const rate = o.sampleRate ?? 48000
  const random = seededRandom(o.seed)
  const callEvery = o.callEvery ?? 20
  let nextCall = Math.floor(random() * callEvery * rate)
  let call: { start: number; length: number; f0: number; f1: number; amplitude: number } | null = null
  for (let at = 0; at < frames; at += rate) {
    const n = Math.min(rate, frames - at)
    const block = new Int16Array(n)
    for (let i = 0; i < n; i++) {
      const t = at + i
      // noise: the sum of three uniforms, roughly Gaussian, about -30 dBFS
      let v = (random() + random() + random() - 1.5) * 0.05
      if (!call && t >= nextCall) {
        call = {
          start: t,
          length: Math.floor((0.2 + 0.6 * random()) * rate),
          f0: 1500 + 3000 * random(),
          f1: 0,
          amplitude: 0.2 + 0.4 * random(),
        }
        call.f1 = Math.min(rate * 0.45, call.f0 * (1.5 + random()))
      }
      if (call) {
        const k = (t - call.start) / call.length
        const s = (t - call.start) / rate
        // frequency rises from f0 to f1 over the first 70%, then falls back: a chirp with a tail
        const phase = 2 * Math.PI * (call.f0 * s + ((call.f1 - call.f0) * s * Math.min(k, 0.7)) / 2)
        v += call.amplitude * Math.sin(Math.PI * k) * Math.sin(phase)
        if (t + 1 >= call.start + call.length) {
          call = null
          nextCall = t + Math.floor((0.5 + random()) * callEvery * rate)
        }
      }
      block[i] = Math.max(-32768, Math.min(32767, Math.round(v * 32767)))
    }
    yield block
  }
}

/** A WAV file (RF64 past 4 GiB, or when `rf64`) of `frames` samples, as a stream of chunks. */
export function* recordingWav(frames: number, o: RecordingOptions & { rf64?: boolean }): Generator<Buffer> {
  const sampleRate = o.sampleRate ?? 48000
  yield pcmWavHeader({ sampleRate, channels: 1, bitsPerSample: 16, dataBytes: frames * 2, rf64: o.rf64 })
  for (const b of recordingBlocks(frames, o)) yield Buffer.from(b.buffer, b.byteOffset, b.byteLength)
}

/** Writes an `hours`-long 16-bit mono recording to `path`: WAV (RF64 when over 4 GiB) or FLAC (verbatim frames). */
export async function writeLongRecording(
  path: string,
  o: { hours: number; sampleRate?: number; seed: number; format?: 'wav' | 'flac' },
): Promise<void> {
  const sampleRate = o.sampleRate ?? 48000
  const frames = Math.round(o.hours * 3600 * sampleRate)
  const chunks =
    o.format === 'flac'
      ? flacChunks(recordingBlocks(frames, { sampleRate, seed: o.seed }), { sampleRate, totalFrames: frames })
      : recordingWav(frames, { sampleRate, seed: o.seed })
  await pipeline(chunks, createWriteStream(path, { highWaterMark: 4 * 1024 * 1024 }))
}
