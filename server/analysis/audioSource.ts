import { Readable } from 'node:stream'
import type { Storage } from '../storage/storage.js'
import { StoredFileError, UnsupportedAudioError } from './audioErrors.js'
import {
  rangeOf,
  StoredBytes,
  type AudioFormat,
  type AudioSource,
  type ChunkRange,
  type MonoChunk,
} from './audioChunks.js'
import { flacSource } from './flacSource.js'
import { mp3Source } from './mp3Source.js'
import { framesToMono, NeedBytes, wavLayout, type WavLayout } from './wavLayout.js'

// A stored audio file read as a stream of mono chunks, for any length in
// bounded memory (docs/decisions.md, "Streamed audio"). WAV is read by byte
// ranges, here: its header, then only the frames asked for. FLAC
// (flacSource.ts) and MP3 (mp3Source.ts) are decoded.

export type { AudioFormat, AudioInfo, AudioSource, ChunkOptions, MonoChunk } from './audioChunks.js'

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
  if (head.length >= 12 && ['RIFF', 'RF64', 'BW64'].includes(riff) && head.toString('latin1', 8, 12) === 'WAVE')
    return 'wav'
  if (riff === 'fLaC') return 'flac'
  if (head.toString('latin1', 0, 3) === 'ID3' || (head.length >= 2 && head[0] === 0xff && (head[1] & 0xe0) === 0xe0))
    return 'mp3'
  return null
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
    info: {
      format: 'wav',
      sampleRate: l.sampleRate,
      channels: l.channels,
      frames,
      duration: frames / l.sampleRate,
      wav: l,
    },
    chunks: (o = {}) => wavChunks(bytes, l, rangeOf(o, frames, true), o.signal),
  }
}

async function* wavChunks(
  bytes: StoredBytes,
  l: WavLayout,
  r: ChunkRange,
  signal?: AbortSignal,
): AsyncGenerator<MonoChunk> {
  if (r.from >= r.to) return
  const chunkBytes = r.chunkFrames * l.blockAlign
  const held = Buffer.alloc(chunkBytes)
  let filled = 0
  let start = r.from
  for await (const b of bytes.stream(l.dataStart + r.from * l.blockAlign, l.dataStart + r.to * l.blockAlign, {
    chunkBytes: WAV_READ_BYTES,
  })) {
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
