import type { Readable } from 'node:stream'
import type { ReadOptions } from '../storage/storage.js'
import { StoredFileError } from './audioErrors.js'
import type { WavLayout } from './wavLayout.js'

// What every format's reader shares (audioSource.ts opens a file and picks the reader): the source and chunk
// types, a file's bytes read by ranges, the range a caller asks for, and the gathering of decoded pieces
// into chunks of that range.

export type AudioFormat = 'wav' | 'flac' | 'mp3'

export interface AudioInfo {
  format: AudioFormat
  sampleRate: number
  channels: number
  /** frames in the file: exact for WAV and FLAC (STREAMINFO), an estimate for MP3 */
  frames: number
  duration: number
  /** a WAV file's layout: where its samples are, byte by byte */
  wav?: WavLayout
}

export interface MonoChunk {
  /** index (in frames) of samples[0] in the file */
  start: number
  samples: Float32Array
}

/** The frames [from, to) a reader gives, in chunks of `chunkFrames`. */
export interface ChunkRange {
  from: number
  to: number
  chunkFrames: number
}

export interface ChunkOptions {
  from?: number
  to?: number
  chunkFrames?: number
  signal?: AbortSignal
}

export interface AudioSource {
  info: AudioInfo
  /** mono samples (channels averaged, floats in [-1,1]) from frame `from` (default 0) to `to` (default
   * the end), in chunks of about `chunkFrames` (default 65536), reading only what it needs */
  chunks(opts?: ChunkOptions): AsyncIterable<MonoChunk>
}

const DEFAULT_CHUNK_FRAMES = 65536

/** Reads of one file's bytes by ranges, their failures told as StoredFileError. */
export class StoredBytes {
  /** `read(start, end, options)`: the bytes from `start` to `end` inclusive */
  constructor(
    readonly size: number,
    readonly read: (start: number, end: number, options?: ReadOptions) => Readable,
  ) {}

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

/** [from, to) of a file of `frames` frames (a file whose length is estimated may end before `to`). */
export function rangeOf(o: ChunkOptions, frames: number, exact: boolean): ChunkRange {
  const from = Math.max(0, Math.floor(o.from ?? 0))
  const to = o.to === undefined ? (exact ? frames : Infinity) : Math.min(Math.floor(o.to), exact ? frames : Infinity)
  return { from, to, chunkFrames: Math.max(1, Math.floor(o.chunkFrames ?? DEFAULT_CHUNK_FRAMES)) }
}

// ---- decoded formats: mono pieces, kept to [from, to), gathered into chunks

export interface Decoded {
  channelData: Float32Array[]
  samplesDecoded: number
}

/** Channels mixed to one. */
export function mono(d: Decoded): Float32Array {
  const frames = d.samplesDecoded,
    channels = d.channelData
  if (!frames || !channels.length) return new Float32Array(0)
  if (channels.length === 1) return channels[0].slice(0, frames)
  const out = new Float32Array(frames)
  for (const c of channels) for (let i = 0; i < frames; i++) out[i] += c[i]
  for (let i = 0; i < frames; i++) out[i] /= channels.length
  return out
}

/** Gathers decoded pieces that start at known frames into chunks of [from, to). */
export class Gatherer {
  private held: Float32Array
  private filled = 0
  private heldStart: number
  constructor(
    from: number,
    private readonly to: number,
    private readonly chunkFrames: number,
  ) {
    this.held = new Float32Array(chunkFrames)
    this.heldStart = from
  }

  get done(): boolean {
    return this.heldStart + this.filled >= this.to
  }

  /** the chunks completed by `samples`, which start at frame `start` of the file */
  *add(start: number, samples: Float32Array): Generator<MonoChunk> {
    const lo = Math.max(start, this.heldStart + this.filled),
      hi = Math.min(start + samples.length, this.to)
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
