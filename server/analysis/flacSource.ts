import { UnsupportedAudioError } from './audioErrors.js'
import {
  Gatherer,
  mono,
  rangeOf,
  type AudioSource,
  type ChunkRange,
  type MonoChunk,
  type StoredBytes,
} from './audioChunks.js'

// FLAC decoded frame by frame, starting at a frame near the first sample asked for (its frame headers carry
// their sample number). The WebAssembly decoder (@wasm-audio-decoders/flac) and the frame parser
// (codec-parser) load with the first file that needs them.

// ---- FLAC: frames parsed by codec-parser, decoded by libFLAC

interface StreamInfo {
  sampleRate: number
  channels: number
  frames: number
  maxBlockSize: number
  firstFrame: number
}

/** STREAMINFO and where the audio frames begin (after the metadata blocks). */
async function streamInfoOf(bytes: StoredBytes, head: Buffer): Promise<StreamInfo> {
  if (head.length < 42 || (head[4] & 0x7f) !== 0) throw new UnsupportedAudioError('the FLAC file has no STREAMINFO')
  const si = head.subarray(8, 42)
  const maxBlockSize = si.readUInt16BE(2)
  const sampleRate = (si[10] << 12) | (si[11] << 4) | (si[12] >> 4)
  const channels = ((si[12] >> 1) & 0x07) + 1
  const frames = (si[13] & 0x0f) * 2 ** 32 + si.readUInt32BE(14)
  if (!sampleRate) throw new UnsupportedAudioError('the FLAC file has no sample rate')
  let at = 4
  for (let last = false; !last && at < bytes.size;) {
    const block = at + 4 <= head.length ? head.subarray(at, at + 4) : await bytes.bytes(at, 4)
    if (block.length < 4) throw new UnsupportedAudioError('the FLAC file is cut short in its metadata')
    last = (block[0] & 0x80) !== 0
    at += 4 + block.readUIntBE(1, 3)
  }
  return { sampleRate, channels, frames, maxBlockSize, firstFrame: Math.min(at, bytes.size) }
}

interface FlacFrame {
  data: Uint8Array
  header: { blockSize: number; sampleNumber?: number; frameNumber?: number }
}

function* each<T>(it: Iterator<T>): Generator<T> {
  for (let r = it.next(); !r.done; r = it.next()) yield r.value
}

/** The FLAC frames in a stream of bytes (from any offset: the parser finds the first whole frame). */
async function* flacFrames(stream: AsyncIterable<Buffer>): AsyncGenerator<FlacFrame[]> {
  const { default: CodecParser } = await import('codec-parser')
  const parser = new CodecParser('audio/flac', { enableLogging: false, enableFrameCRC32: false })
  for await (const b of stream) {
    const frames = [...each(parser.parseChunk(b))] as unknown as FlacFrame[]
    if (frames.length) yield frames
  }
  const last = [...each(parser.flush())] as unknown as FlacFrame[]
  if (last.length) yield last
}

/** The file's frame at which a FLAC frame starts: its header's sample number, or frame number × the fixed block size. */
function sampleOf(frame: FlacFrame, fixedBlockSize: number): number {
  const h = frame.header
  return h.sampleNumber ?? (h.frameNumber ?? 0) * fixedBlockSize
}

/** Decoded mono pieces of FLAC frames and the frame each starts at; null when the first frame starts after `from`. */
async function* flacPieces(
  stream: AsyncIterable<Buffer>,
  from: number,
  fixedBlockSize: number,
  signal?: AbortSignal,
): AsyncGenerator<{ start: number; samples: Float32Array } | null> {
  const { FLACDecoder } = await import('@wasm-audio-decoders/flac')
  const decoder = new FLACDecoder()
  await decoder.ready
  try {
    let position: number | null = null
    for await (const frames of flacFrames(stream)) {
      signal?.throwIfAborted()
      if (position === null) {
        position = sampleOf(frames[0], fixedBlockSize || frames[0].header.blockSize)
        if (from > 0 && position > from) {
          yield null
          return
        }
      }
      // frames wholly before `from` are not decoded
      let skip = 0
      while (skip < frames.length && position + frames[skip].header.blockSize <= from)
        position += frames[skip++].header.blockSize
      if (skip === frames.length) continue
      const d = await decoder.decodeFrames(frames.slice(skip).map((f) => f.data))
      const samples = mono(d)
      yield { start: position, samples }
      position += samples.length
    }
  } finally {
    decoder.free()
  }
}

export async function flacSource(bytes: StoredBytes, head: Buffer): Promise<AudioSource> {
  const si = await streamInfoOf(bytes, head)
  let frames = si.frames
  const source: AudioSource = {
    info: {
      format: 'flac',
      sampleRate: si.sampleRate,
      channels: si.channels,
      frames,
      duration: frames / si.sampleRate,
    },
    chunks: (o = {}) => flacChunks(bytes, si, rangeOf(o, frames, frames > 0), o.signal),
  }
  if (!frames) {
    // STREAMINFO may leave the length unknown (a stream encoded live): count it once
    for await (const c of source.chunks()) frames += c.samples.length
    source.info = { ...source.info, frames, duration: frames / si.sampleRate }
  }
  return source
}

async function* flacChunks(
  bytes: StoredBytes,
  si: StreamInfo,
  r: ChunkRange,
  signal?: AbortSignal,
): AsyncGenerator<MonoChunk> {
  if (r.from >= r.to) return
  const gather = new Gatherer(r.from, r.to, r.chunkFrames)
  const audioBytes = bytes.size - si.firstFrame
  // a start a little before where the sample should be, by the file's average bytes per frame; further back when too late
  let margin = Math.max(2 * si.maxBlockSize * si.channels * 4, 64 * 1024)
  let offset =
    r.from > 0 && si.frames > 0 ? si.firstFrame + Math.floor((r.from / si.frames) * audioBytes) : si.firstFrame
  for (;;) {
    const at = r.from > 0 ? Math.max(si.firstFrame, offset - margin) : si.firstFrame
    let tooLate = false
    for await (const piece of flacPieces(bytes.stream(at), r.from, si.maxBlockSize, signal)) {
      if (!piece) {
        tooLate = true
        break
      }
      yield* gather.add(piece.start, piece.samples)
      if (gather.done) break
    }
    if (!tooLate || at === si.firstFrame) break
    margin *= 4
  }
  yield* gather.end()
}
