import type { Readable } from 'node:stream'
import type { MonoAudio } from './audio.js'
import { StoredFileError, UnsupportedAudioError } from './audioErrors.js'
import { audioInMemory, type AudioSource } from './audioSource.js'

// The samples of a media file's bytes held whole, for short files: read into
// memory, then decoded by audioSource.ts (WAV, FLAC and MP3, mixed down to one
// channel). A file of any length is read with openAudio() instead, in chunks.

export { StoredFileError }

/** The mono samples of WAV, FLAC or MP3 bytes. Throws UnsupportedAudioError for anything else (or audio
 * without samples), StoredFileError when the stream fails. */
export async function decodeAudio(stream: Readable): Promise<MonoAudio> {
  let parts: Buffer[] = []
  try {
    for await (const c of stream) parts.push(c as Buffer)
  } catch (e) {
    throw new StoredFileError((e as Error).message)
  }
  const bytes = Buffer.concat(parts)
  parts = []
  return wholeAudio(await audioInMemory(bytes))
}

/** Every sample of a source in one array. */
export async function wholeAudio(source: AudioSource): Promise<MonoAudio> {
  const { format, sampleRate, frames } = source.info
  // the length is known for WAV and FLAC: the samples go straight into their array
  let samples = new Float32Array(format === 'mp3' ? 0 : frames)
  const parts: Float32Array[] = []
  let total = 0
  try {
    for await (const c of source.chunks()) {
      if (c.start + c.samples.length <= samples.length) samples.set(c.samples, c.start)
      else parts.push(c.samples)
      total += c.samples.length
    }
  } catch (e) {
    if (e instanceof UnsupportedAudioError || e instanceof StoredFileError) throw e
    throw new StoredFileError((e as Error).message)
  }
  if (!total || !sampleRate)
    throw new UnsupportedAudioError(
      `the ${format === 'wav' ? 'WAV' : format === 'flac' ? 'FLAC' : 'MP3'} file holds no audio that could be decoded`,
    )
  if (parts.length) {
    const all = new Float32Array(total)
    all.set(samples.subarray(0, Math.min(samples.length, total)))
    let at = total - parts.reduce((n, p) => n + p.length, 0)
    for (const p of parts) {
      all.set(p, at)
      at += p.length
    }
    samples = all
  }
  return { samples: total < samples.length ? samples.subarray(0, total) : samples, sampleRate }
}
