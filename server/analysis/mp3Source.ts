import { UnsupportedAudioError } from './audioErrors.js'
import {
  Gatherer,
  mono,
  rangeOf,
  type AudioInfo,
  type AudioSource,
  type ChunkRange,
  type MonoChunk,
  type StoredBytes,
} from './audioChunks.js'
import { id3v2Length, infoFrame, mpegFrameHeader, type Gapless, type MpegFrameHeader } from './mpegFrames.js'

// MP3 frames carry no position: their headers are walked from the file's start (mpegFrames.ts) and decoding
// starts a few frames before the range. The decoder (mpg123-decoder) loads with the first file that needs it.

// ---- MP3: frames walked by their headers, decoded by mpg123

async function mp3Info(bytes: StoredBytes): Promise<AudioInfo> {
  const [{ parseFromTokenizer }, { RangeTokenizer }] = await Promise.all([
    import('music-metadata'),
    import('../media/rangeTokenizer.js'),
  ])
  let format
  try {
    format = (
      await parseFromTokenizer(new RangeTokenizer(bytes.size, bytes.read), { skipCovers: true, duration: false })
    ).format
  } catch {
    throw new UnsupportedAudioError('the MP3 file could not be parsed')
  }
  if (!format.sampleRate) throw new UnsupportedAudioError('the MP3 file holds no audio that could be decoded')
  const frames = format.numberOfSamples ?? Math.round((format.duration ?? 0) * format.sampleRate)
  return {
    format: 'mp3',
    sampleRate: format.sampleRate,
    channels: format.numberOfChannels ?? 1,
    frames,
    duration: frames / format.sampleRate,
  }
}

export async function mp3Source(bytes: StoredBytes): Promise<AudioSource> {
  const info = await mp3Info(bytes)
  return { info, chunks: (o = {}) => mp3Chunks(bytes.stream(0), rangeOf(o, info.frames, false), o.signal) }
}

/** frames decoded before the first one whose samples are kept: the bit reservoir and the filter banks reach back */
const MP3_WARM_UP_FRAMES = 10

/**
 * Mono chunks of [from, to) of MP3 bytes. The frames before `from` are walked by their headers, not
 * decoded, but for the few before it whose output is dropped; positions count from the first sample
 * after the encoder's delay, as mpg123's gapless decoding of the whole file gives them.
 */
async function* mp3Chunks(
  stream: AsyncIterable<Buffer>,
  r: ChunkRange,
  signal?: AbortSignal,
): AsyncGenerator<MonoChunk> {
  if (r.from >= r.to) return
  const { MPEGDecoder } = await import('mpg123-decoder')
  const decoder = new MPEGDecoder({ enableGapless: false })
  await decoder.ready
  const gather = new Gatherer(r.from, r.to, r.chunkFrames)
  let gapless: Gapless = { skip: 0, endTrim: 0 }
  /** the first frame, whose kind every later header must have */
  let first: MpegFrameHeader | null = null
  let audioFrames = 0,
    firstDecoded = -1
  // walking: the bytes not yet walked past, the file offset of their first, and of the next header (-1: the ID3 tag first)
  let held: Buffer = Buffer.alloc(0),
    heldAt = 0,
    next = -1
  // decoding: the position (in the whole decode) after the last sample decoded, and the last `endTrim` samples held back
  let decodedEnd: number | null = null
  let tail = new Float32Array(0)
  function* decoded(bytes: Uint8Array): Generator<MonoChunk> {
    const piece = mono(decoder.decode(bytes))
    const all = new Float32Array(tail.length + piece.length)
    all.set(tail)
    all.set(piece, tail.length)
    const allStart = decodedEnd! - tail.length
    decodedEnd! += piece.length
    // the encoder's padding is at the very end: held back until more samples come
    const keep = Math.max(0, all.length - gapless.endTrim)
    yield* gather.add(allStart, all.subarray(0, keep))
    tail = all.slice(keep)
  }
  try {
    for await (const b of stream) {
      signal?.throwIfAborted()
      if (decodedEnd !== null) {
        yield* decoded(b)
        if (gather.done) break
        continue
      }
      held = held.length ? Buffer.concat([held, b]) : b
      let start = -1
      for (;;) {
        if (next < 0) {
          if (held.length < 10) break
          next = id3v2Length(held)
          continue
        }
        const at = next - heldAt
        if (at + 4 > held.length) break
        const h = mpegFrameHeader(held, at)
        if (!h || (first && h.kind !== first.kind)) {
          next++
          continue
        } // not a frame: find the next one
        if (!first) {
          if (at + Math.min(h.length, 256) > held.length) break
          first = h
          const info = infoFrame(held.subarray(at, at + h.length))
          if (info) {
            gapless = info
            next += h.length
            continue
          }
        }
        if (firstDecoded < 0)
          firstDecoded = Math.max(0, Math.floor((r.from + gapless.skip) / first.samples) - MP3_WARM_UP_FRAMES)
        if (audioFrames === firstDecoded) {
          start = at
          break
        }
        audioFrames++
        next += h.length
      }
      if (start >= 0) {
        decodedEnd = firstDecoded * first!.samples - gapless.skip
        yield* decoded(held.subarray(start))
        held = Buffer.alloc(0)
        if (gather.done) break
        continue
      }
      const walked = Math.min(held.length, Math.max(0, next - heldAt))
      held = held.subarray(walked)
      heldAt += walked
    }
  } finally {
    decoder.free()
  }
  yield* gather.end()
}
