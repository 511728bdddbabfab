import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './tempDir.js'

// Human speech for the speech detector's tests, spoken by espeak-ng (Debian's package; .ci/run installs it).

/** `text` spoken by espeak-ng, as its 22,050 Hz mono samples; a missing espeak-ng fails the test saying so. */
export function spoken(
  text: string,
  o: { voice?: string; wordsPerMinute?: number; pitch?: number } = {},
): { samples: Float32Array; sampleRate: number } {
  const dir = tempDir('mas-speech-')
  const file = join(dir, 'speech.wav')
  try {
    execFileSync(
      'espeak-ng',
      ['-v', o.voice ?? 'en', '-s', String(o.wordsPerMinute ?? 160), '-p', String(o.pitch ?? 50), '-w', file, text],
      { stdio: 'pipe' },
    )
  } catch (e) {
    throw new Error(`espeak-ng could not speak (install Debian's espeak-ng): ${(e as Error).message}`)
  }
  try {
    return pcm16(readFileSync(file))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The samples of a 16-bit mono PCM WAV file. */
function pcm16(wav: Buffer): { samples: Float32Array; sampleRate: number } {
  const sampleRate = wav.readUInt32LE(24)
  let at = 12
  while (at + 8 <= wav.length) {
    const id = wav.toString('ascii', at, at + 4)
    const size = wav.readUInt32LE(at + 4)
    if (id === 'data') {
      const n = Math.min(size, wav.length - at - 8) >> 1
      const samples = new Float32Array(n)
      for (let i = 0; i < n; i++) samples[i] = wav.readInt16LE(at + 8 + 2 * i) / 32768
      return { samples, sampleRate }
    }
    at += 8 + size + (size & 1)
  }
  throw new Error('espeak-ng wrote no data chunk')
}

/** Where the speech is in `samples`: from the first to the last sample louder than `floor`, in seconds. */
export function voiced(samples: Float32Array, sampleRate: number, floor = 0.01): { start: number; end: number } {
  let first = -1
  let last = -1
  for (let i = 0; i < samples.length; i++)
    if (Math.abs(samples[i]) > floor) {
      if (first < 0) first = i
      last = i
    }
  return { start: first / sampleRate, end: (last + 1) / sampleRate }
}
