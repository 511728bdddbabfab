import type { Readable } from 'node:stream'
import type { FLACDecodedAudio } from '@wasm-audio-decoders/flac'
import { decodeWav, UnsupportedAudioError, type MonoAudio } from './audio.js'

// The samples of a stored media file for spectra and jobs, by its content:
// WAV (read whole, as its data chunk may sit anywhere), FLAC and MP3 decoded
// chunk by chunk as the bytes stream in (the WebAssembly decoders of
// @wasm-audio-decoders/flac and mpg123-decoder, loaded when first needed so
// that a server starts without them), mixed down to one channel.

/** The stored bytes could not be read (as opposed to bytes that are no audio the server can analyse). */
export class StoredFileError extends Error {}

type Format = 'wav' | 'flac' | 'mp3'

function formatOf(head: Buffer): Format | null {
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WAVE') return 'wav'
  if (head.toString('latin1', 0, 4) === 'fLaC') return 'flac'
  if (head.toString('latin1', 0, 3) === 'ID3' || (head.length >= 2 && head[0] === 0xff && (head[1] & 0xe0) === 0xe0)) return 'mp3'
  return null
}

/** Channels mixed to one, appended to `out`. */
function mixDown(channels: Float32Array[], frames: number, out: Float32Array[]): void {
  if (!frames || !channels.length) return
  if (channels.length === 1) { out.push(channels[0].slice(0, frames)); return }
  const mono = new Float32Array(frames)
  for (const c of channels) for (let i = 0; i < frames; i++) mono[i] += c[i]
  for (let i = 0; i < frames; i++) mono[i] /= channels.length
  out.push(mono)
}

function joined(parts: Float32Array[]): Float32Array {
  const all = new Float32Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) { all.set(p, at); at += p.length }
  return all
}

interface StreamDecoder {
  push(chunk: Uint8Array): Promise<void>
  end(): Promise<MonoAudio>
}

async function flacDecoder(): Promise<StreamDecoder> {
  const { FLACDecoder } = await import('@wasm-audio-decoders/flac')
  const decoder = new FLACDecoder()
  await decoder.ready
  const parts: Float32Array[] = []
  let sampleRate = 0
  const take = (d: FLACDecodedAudio) => {
    if (d.sampleRate) sampleRate = d.sampleRate
    mixDown(d.channelData, d.samplesDecoded, parts)
  }
  return {
    push: async (chunk) => take(await decoder.decode(chunk)),
    end: async () => {
      try { take(await decoder.flush()) } finally { decoder.free() }
      return { samples: joined(parts), sampleRate }
    },
  }
}

async function mpegDecoder(): Promise<StreamDecoder> {
  const { MPEGDecoder } = await import('mpg123-decoder')
  const decoder = new MPEGDecoder()
  await decoder.ready
  const parts: Float32Array[] = []
  let sampleRate = 0
  return {
    push: async (chunk) => {
      const d = decoder.decode(chunk)
      if (d.sampleRate) sampleRate = d.sampleRate
      mixDown(d.channelData, d.samplesDecoded, parts)
    },
    end: async () => {
      decoder.free()
      return { samples: joined(parts), sampleRate }
    },
  }
}

/** The mono samples of WAV, FLAC or MP3 bytes. Throws UnsupportedAudioError for anything else (or audio
 * without samples), StoredFileError when the stream fails. */
export async function decodeAudio(stream: Readable): Promise<MonoAudio> {
  const held: Buffer[] = []
  let format: Format | null | undefined
  let decoder: StreamDecoder | null = null
  try {
    for await (const c of stream) {
      const chunk = c as Buffer
      if (format === undefined) {
        held.push(chunk)
        const head = Buffer.concat(held)
        if (head.length < 12) continue
        format = formatOf(head)
        if (format === null) throw new UnsupportedAudioError('only WAV, FLAC and MP3 audio can be analysed')
        if (format === 'wav') continue
        decoder = format === 'flac' ? await flacDecoder() : await mpegDecoder()
        held.length = 0
        await decoder.push(head)
      } else if (decoder) {
        await decoder.push(chunk)
      } else {
        held.push(chunk)
      }
    }
  } catch (e) {
    if (decoder) await decoder.end().catch(() => undefined)
    if (e instanceof UnsupportedAudioError) throw e
    throw new StoredFileError((e as Error).message)
  }
  if (format === undefined) {
    const head = Buffer.concat(held)
    format = formatOf(head)
    if (format === null) throw new UnsupportedAudioError('only WAV, FLAC and MP3 audio can be analysed')
    if (format !== 'wav') {
      decoder = format === 'flac' ? await flacDecoder() : await mpegDecoder()
      await decoder.push(head)
    }
  }
  if (format === 'wav') return decodeWav(Buffer.concat(held))
  const audio = await decoder!.end()
  if (!audio.samples.length || !audio.sampleRate) throw new UnsupportedAudioError(`the ${format === 'flac' ? 'FLAC' : 'MP3'} file holds no audio that could be decoded`)
  return audio
}
