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
  const parts: Buffer[] = []
  try {
    for await (const c of stream) parts.push(c as Buffer)
  } catch (e) {
    throw new StoredFileError((e as Error).message)
  }
  return wholeAudio(await audioInMemory(Buffer.concat(parts)))
}

/** Every sample of a source in one array. */
export async function wholeAudio(source: AudioSource): Promise<MonoAudio> {
  const parts: Float32Array[] = []
  let total = 0
  try {
    for await (const c of source.chunks()) { parts.push(c.samples); total += c.samples.length }
  } catch (e) {
    if (e instanceof UnsupportedAudioError || e instanceof StoredFileError) throw e
    throw new StoredFileError((e as Error).message)
  }
  const { format, sampleRate } = source.info
  if (!total || !sampleRate) throw new UnsupportedAudioError(`the ${format === 'wav' ? 'WAV' : format === 'flac' ? 'FLAC' : 'MP3'} file holds no audio that could be decoded`)
  const samples = new Float32Array(total)
  let at = 0
  for (const p of parts) { samples.set(p, at); at += p.length }
  return { samples, sampleRate }
}
