import { Readable } from 'node:stream'
import type { ReadOptions, Storage } from '../storage/storage.js'
import { StoredFileError, UnsupportedAudioError } from './audioErrors.js'
import { id3v2Length, infoFrame, mpegFrameHeader, type Gapless, type MpegFrameHeader } from './mpegFrames.js'
import { framesToMono, NeedBytes, wavLayout, type WavLayout } from './wavLayout.js'

// A stored audio file read as a stream of mono chunks, for any length in
// bounded memory (docs/decisions.md, "Streamed audio"). WAV is read by byte
// ranges: its header, then only the frames asked for. FLAC is decoded frame
// by frame, starting at a frame near the first sample asked for (its frame
// headers carry their sample number). MP3 frames carry no position: their
// headers are walked from the file's start (mpegFrames.ts) and decoding
// starts a few frames before the range. The WebAssembly decoders
// (@wasm-audio-decoders/flac, mpg123-decoder) and the FLAC frame parser
// (codec-parser) load with the first file that needs them.

export type AudioFormat = 'wav' | 'flac' | 'mp3'

export interface AudioInfo {
  format: AudioFormat
  sampleRate: number
  channels: number
  /** frames in the file: exact for WAV and FLAC (STREAMINFO), an estimate for MP3 */
  frames: number
  duration: number
}

export interface MonoChunk {
  /** index (in frames) of samples[0] in the file */
  start: number
  samples: Float32Array
}

export interface ChunkOptions { from?: number; to?: number; chunkFrames?: number; signal?: AbortSignal }

export interface AudioSource {
  info: AudioInfo
  /** mono samples (channels averaged, floats in [-1,1]) from frame `from` (default 0) to `to` (default
   * the end), in chunks of about `chunkFrames` (default 65536), reading only what it needs */
  chunks(opts?: ChunkOptions): AsyncIterable<MonoChunk>
}

const DEFAULT_CHUNK_FRAMES = 65536
/**
 * A WAV's range is read whole, so in large reads: decoding 10 minutes of 48 kHz costs 77–86 ms of CPU in reads
 * of 1 MiB against 136 ms in Node's 64 KiB (docs/decisions.md §20). Formats a reader may stop early in keep
 * the small default, so that little is read past where it stops.
 */
const WAV_READ_BYTES = 1024 * 1024
/** the first bytes read to learn a file's format and layout */
const HEAD_BYTES = 64 * 1024
const NOT_AUDIO = 'only WAV, FLAC and MP3 audio can be analysed'

export function formatOf(head: Buffer): AudioFormat | null {
  const riff = head.toString('latin1', 0, 4)
  if (head.length >= 12 && ['RIFF', 'RF64', 'BW64'].includes(riff) && head.toString('latin1', 8, 12) === 'WAVE') return 'wav'
  if (riff === 'fLaC') return 'flac'
  if (head.toString('latin1', 0, 3) === 'ID3' || (head.length >= 2 && head[0] === 0xff && (head[1] & 0xe0) === 0xe0)) return 'mp3'
  return null
}

/** Reads of one file's bytes by ranges, their failures told as StoredFileError. */
class StoredBytes {
  /** `read(start, end, options)`: the bytes from `start` to `end` inclusive */
  constructor(readonly size: number, readonly read: (start: number, end: number, options?: ReadOptions) => Readable) {}

  /** the bytes from `start` (inclusive) to `end` (exclusive), streamed; `options.chunkBytes` for a reader that takes them all */
  stream(start: number, end = this.size, options?: ReadOptions): AsyncIterable<Buffer> {
    return start >= end ? empty() : failuresTold(this.read(start, end - 1, options))
  }

  /** at most `length` bytes at `start`, in one buffer */
  async bytes(start: number, length: number): Promise<Buffer> {
    const parts: Buffer[] = []
    for await (const b of this.stream(start, Math.min(this.size, start + length))) parts.push(b)
    return Buffer.concat(parts)
  }
}

async function* empty(): AsyncGenerator<Buffer> {}

async function* failuresTold(stream: Readable): AsyncGenerator<Buffer> {
  try {
    for await (const b of stream) yield b as Buffer
  } catch (e) {
    throw new StoredFileError((e as Error).message)
  } finally {
    stream.destroy()
  }
}

export async function openAudio(storage: Storage, file: string): Promise<AudioSource> {
  let size: number
  try {
    const stat = await storage.stat(file)
    if (!stat) throw new StoredFileError('the stored file is missing')
    size = stat.size
  } catch (e) {
    throw e instanceof StoredFileError ? e : new StoredFileError((e as Error).message)
  }
  return sourceOf(new StoredBytes(size, (start, end, options) => storage.read(file, { start, end }, options)))
}

/** The same over bytes in memory (a whole file read before, as decode.ts does). */
export function audioInMemory(buf: Buffer): Promise<AudioSource> {
  return sourceOf(new StoredBytes(buf.length, (start, end) => Readable.from([buf.subarray(start, end + 1)])))
}

async function sourceOf(bytes: StoredBytes): Promise<AudioSource> {
  const head = await bytes.bytes(0, HEAD_BYTES)
  const format = formatOf(head)
  if (format === 'wav') return wavSource(bytes, head)
  if (format === 'flac') return flacSource(bytes, head)
  if (format === 'mp3') return mp3Source(bytes)
  throw new UnsupportedAudioError(NOT_AUDIO)
}

/** [from, to) of a file of `frames` frames (a file whose length is estimated may end before `to`). */
function rangeOf(o: ChunkOptions, frames: number, exact: boolean): { from: number; to: number; chunkFrames: number } {
  const from = Math.max(0, Math.floor(o.from ?? 0))
  const to = o.to === undefined ? (exact ? frames : Infinity) : Math.min(Math.floor(o.to), exact ? frames : Infinity)
  return { from, to, chunkFrames: Math.max(1, Math.floor(o.chunkFrames ?? DEFAULT_CHUNK_FRAMES)) }
}

// ---- WAV: byte ranges

async function wavSource(bytes: StoredBytes, head: Buffer): Promise<AudioSource> {
  const blocks: Array<{ at: number; bytes: Buffer }> = [{ at: 0, bytes: head }]
  const view = (at: number, length: number) => {
    const b = blocks.find((b) => at >= b.at && at + length <= b.at + b.bytes.length)
    return b ? b.bytes.subarray(at - b.at, at - b.at + length) : null
  }
  let layout = wavLayout(view, bytes.size)
  while (layout instanceof NeedBytes) {
    const more = await bytes.bytes(layout.at, Math.max(layout.length, 4096))
    if (more.length < layout.length) throw new UnsupportedAudioError('the WAV file is cut short in its header')
    blocks.push({ at: layout.at, bytes: more })
    layout = wavLayout(view, bytes.size)
  }
  const l: WavLayout = layout
  const frames = l.dataBytes / l.blockAlign
  return {
    info: { format: 'wav', sampleRate: l.sampleRate, channels: l.channels, frames, duration: frames / l.sampleRate },
    chunks: (o = {}) => wavChunks(bytes, l, rangeOf(o, frames, true), o.signal),
  }
}

async function* wavChunks(bytes: StoredBytes, l: WavLayout, r: { from: number; to: number; chunkFrames: number },
  signal?: AbortSignal): AsyncGenerator<MonoChunk> {
  if (r.from >= r.to) return
  const chunkBytes = r.chunkFrames * l.blockAlign
  const held = Buffer.alloc(chunkBytes)
  let filled = 0
  let start = r.from
  for await (const b of bytes.stream(l.dataStart + r.from * l.blockAlign, l.dataStart + r.to * l.blockAlign, { chunkBytes: WAV_READ_BYTES })) {
    signal?.throwIfAborted()
    for (let at = 0; at < b.length;) {
      const n = Math.min(b.length - at, chunkBytes - filled)
      b.copy(held, filled, at, at + n)
      filled += n
      at += n
      if (filled === chunkBytes) {
        yield { start, samples: framesToMono(l, held) }
        start += r.chunkFrames
        filled = 0
      }
    }
  }
  if (filled >= l.blockAlign) yield { start, samples: framesToMono(l, held.subarray(0, filled)) }
}

// ---- decoded formats: mono pieces, kept to [from, to), gathered into chunks

interface Decoded { channelData: Float32Array[]; samplesDecoded: number }

/** Channels mixed to one. */
function mono(d: Decoded): Float32Array {
  const frames = d.samplesDecoded, channels = d.channelData
  if (!frames || !channels.length) return new Float32Array(0)
  if (channels.length === 1) return channels[0].slice(0, frames)
  const out = new Float32Array(frames)
  for (const c of channels) for (let i = 0; i < frames; i++) out[i] += c[i]
  for (let i = 0; i < frames; i++) out[i] /= channels.length
  return out
}

/** Gathers decoded pieces that start at known frames into chunks of [from, to). */
class Gatherer {
  private held: Float32Array
  private filled = 0
  private heldStart: number
  constructor(from: number, private readonly to: number, private readonly chunkFrames: number) {
    this.held = new Float32Array(chunkFrames)
    this.heldStart = from
  }

  get done(): boolean { return this.heldStart + this.filled >= this.to }

  /** the chunks completed by `samples`, which start at frame `start` of the file */
  *add(start: number, samples: Float32Array): Generator<MonoChunk> {
    const lo = Math.max(start, this.heldStart + this.filled), hi = Math.min(start + samples.length, this.to)
    for (let at = lo; at < hi;) {
      const n = Math.min(hi - at, this.chunkFrames - this.filled)
      this.held.set(samples.subarray(at - start, at - start + n), this.filled)
      this.filled += n
      at += n
      if (this.filled === this.chunkFrames) {
        yield { start: this.heldStart, samples: this.held }
        this.heldStart += this.filled
        this.held = new Float32Array(this.chunkFrames)
        this.filled = 0
      }
    }
  }

  *end(): Generator<MonoChunk> {
    if (this.filled) yield { start: this.heldStart, samples: this.held.slice(0, this.filled) }
    this.heldStart += this.filled
    this.filled = 0
  }
}

// ---- FLAC: frames parsed by codec-parser, decoded by libFLAC

interface StreamInfo { sampleRate: number; channels: number; frames: number; maxBlockSize: number; firstFrame: number }

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

interface FlacFrame { data: Uint8Array; header: { blockSize: number; sampleNumber?: number; frameNumber?: number } }

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
async function* flacPieces(stream: AsyncIterable<Buffer>, from: number, fixedBlockSize: number,
  signal?: AbortSignal): AsyncGenerator<{ start: number; samples: Float32Array } | null> {
  const { FLACDecoder } = await import('@wasm-audio-decoders/flac')
  const decoder = new FLACDecoder()
  await decoder.ready
  try {
    let position: number | null = null
    for await (const frames of flacFrames(stream)) {
      signal?.throwIfAborted()
      if (position === null) {
        position = sampleOf(frames[0], fixedBlockSize || frames[0].header.blockSize)
        if (from > 0 && position > from) { yield null; return }
      }
      // frames wholly before `from` are not decoded
      let skip = 0
      while (skip < frames.length && position + frames[skip].header.blockSize <= from) position += frames[skip++].header.blockSize
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

async function flacSource(bytes: StoredBytes, head: Buffer): Promise<AudioSource> {
  const si = await streamInfoOf(bytes, head)
  let frames = si.frames
  const source: AudioSource = {
    info: { format: 'flac', sampleRate: si.sampleRate, channels: si.channels, frames, duration: frames / si.sampleRate },
    chunks: (o = {}) => flacChunks(bytes, si, rangeOf(o, frames, frames > 0), o.signal),
  }
  if (!frames) {
    // STREAMINFO may leave the length unknown (a stream encoded live): count it once
    for await (const c of source.chunks()) frames += c.samples.length
    source.info = { ...source.info, frames, duration: frames / si.sampleRate }
  }
  return source
}

async function* flacChunks(bytes: StoredBytes, si: StreamInfo, r: { from: number; to: number; chunkFrames: number },
  signal?: AbortSignal): AsyncGenerator<MonoChunk> {
  if (r.from >= r.to) return
  const gather = new Gatherer(r.from, r.to, r.chunkFrames)
  const audioBytes = bytes.size - si.firstFrame
  // a start a little before where the sample should be, by the file's average bytes per frame; further back when too late
  let margin = Math.max(2 * si.maxBlockSize * si.channels * 4, 64 * 1024)
  let offset = r.from > 0 && si.frames > 0 ? si.firstFrame + Math.floor((r.from / si.frames) * audioBytes) : si.firstFrame
  for (;;) {
    const at = r.from > 0 ? Math.max(si.firstFrame, offset - margin) : si.firstFrame
    let tooLate = false
    for await (const piece of flacPieces(bytes.stream(at), r.from, si.maxBlockSize, signal)) {
      if (!piece) { tooLate = true; break }
      yield* gather.add(piece.start, piece.samples)
      if (gather.done) break
    }
    if (!tooLate || at === si.firstFrame) break
    margin *= 4
  }
  yield* gather.end()
}

// ---- MP3: frames walked by their headers, decoded by mpg123

async function mp3Info(bytes: StoredBytes): Promise<AudioInfo> {
  const [{ parseFromTokenizer }, { RangeTokenizer }] = await Promise.all([import('music-metadata'), import('../media/rangeTokenizer.js')])
  let format
  try {
    format = (await parseFromTokenizer(new RangeTokenizer(bytes.size, bytes.read),
      { skipCovers: true, duration: false })).format
  } catch {
    throw new UnsupportedAudioError('the MP3 file could not be parsed')
  }
  if (!format.sampleRate) throw new UnsupportedAudioError('the MP3 file holds no audio that could be decoded')
  const frames = format.numberOfSamples ?? Math.round((format.duration ?? 0) * format.sampleRate)
  return { format: 'mp3', sampleRate: format.sampleRate, channels: format.numberOfChannels ?? 1, frames, duration: frames / format.sampleRate }
}

async function mp3Source(bytes: StoredBytes): Promise<AudioSource> {
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
async function* mp3Chunks(stream: AsyncIterable<Buffer>, r: { from: number; to: number; chunkFrames: number },
  signal?: AbortSignal): AsyncGenerator<MonoChunk> {
  if (r.from >= r.to) return
  const { MPEGDecoder } = await import('mpg123-decoder')
  const decoder = new MPEGDecoder({ enableGapless: false })
  await decoder.ready
  const gather = new Gatherer(r.from, r.to, r.chunkFrames)
  let gapless: Gapless = { skip: 0, endTrim: 0 }
  /** the first frame, whose kind every later header must have */
  let first: MpegFrameHeader | null = null
  let audioFrames = 0, firstDecoded = -1
  // walking: the bytes not yet walked past, the file offset of their first, and of the next header (-1: the ID3 tag first)
  let held: Buffer = Buffer.alloc(0), heldAt = 0, next = -1
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
        if (!h || (first && h.kind !== first.kind)) { next++; continue } // not a frame: find the next one
        if (!first) {
          if (at + Math.min(h.length, 256) > held.length) break
          first = h
          const info = infoFrame(held.subarray(at, at + h.length))
          if (info) { gapless = info; next += h.length; continue }
        }
        if (firstDecoded < 0) firstDecoded = Math.max(0, Math.floor((r.from + gapless.skip) / first.samples) - MP3_WARM_UP_FRAMES)
        if (audioFrames === firstDecoded) { start = at; break }
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
