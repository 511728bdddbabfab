import { Readable } from 'node:stream'
import type { AppConfig } from '../../server/config.js'
import type { Database } from '../../server/db/database.js'
import { openStorage } from '../../server/storage/index.js'
import { recordingWav } from '../../bench/longRecording.js'
import { makeMediaFile } from './records.js'
import { wavHeader } from './wav.js'

// Audio with known content for analysis tests: seeded noise with tones
// planted at known times and frequencies, stored as a WAV media file.

/** A sound from `from` to `to` s: a tone at `frequency`, or a sweep from it to `toFrequency`; `trill`: on and off this many times a second. */
export interface Tone {
  from: number
  to: number
  frequency: number
  toFrequency?: number
  trill?: number
  amplitude?: number
}

function toneAt(tone: Tone, t: number): number {
  const tau = t - tone.from
  const sweep = ((tone.toFrequency ?? tone.frequency) - tone.frequency) / (tone.to - tone.from)
  const on = tone.trill ? (Math.sin(2 * Math.PI * tone.trill * tau) > 0 ? 1 : 0) : 1
  // a short fade in and out, as a call has
  const fade = Math.min(1, tau / 0.01, (tone.to - t) / 0.01)
  return on * fade * (tone.amplitude ?? 0.5) * Math.sin(2 * Math.PI * (tone.frequency * tau + (sweep * tau * tau) / 2))
}

export function signal(seconds: number, sampleRate: number, tones: Tone[], noise = 0.05, seed = 1): Float32Array {
  const out = new Float32Array(Math.round(seconds * sampleRate))
  let s = seed >>> 0
  const random = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 4294967296
  }
  for (let i = 0; i < out.length; i++) {
    const t = i / sampleRate
    let v = (random() * 2 - 1) * noise
    for (const tone of tones) if (t >= tone.from && t < tone.to) v += toneAt(tone, t)
    out[i] = v
  }
  return out
}

/** 16-bit mono PCM WAV bytes of these samples. */
export function wavOf(samples: Float32Array, sampleRate: number): Buffer {
  const data = Buffer.alloc(samples.length * 2)
  samples.forEach((v, i) => data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(v * 32767))), i * 2))
  return Buffer.concat([wavHeader({ sampleRate, channels: 1, bitsPerSample: 16, dataBytes: data.length }), data])
}

let serial = 0

/** A media file of `library` whose stored bytes are a WAV of these samples. */
export async function storedWav(
  db: Database['db'],
  config: AppConfig,
  owner: { id: number },
  library: number,
  samples: Float32Array,
  sampleRate: number,
): Promise<number> {
  const name = `mediaFiles/signals/signal-${process.pid}-${++serial}.wav`
  const pending = await openStorage(config).receive(Readable.from([wavOf(samples, sampleRate)]))
  await pending.commit(name)
  return makeMediaFile(db, owner, library, { file: name })
}

/** A long recording as a recorder writes one (noise with calls, bench/longRecording.ts), streamed to storage a
 * second at a time so that the test never holds it, stored as a WAV media file named `alias`. */
export async function storedRecording(
  db: Database['db'],
  config: AppConfig,
  owner: { id: number },
  library: number,
  o: { seconds: number; sampleRate: number; seed: number; alias: string },
): Promise<number> {
  const name = `mediaFiles/recordings/recording-${process.pid}-${++serial}.wav`
  const pending = await openStorage(config).receive(
    Readable.from(recordingWav(o.seconds * o.sampleRate, { sampleRate: o.sampleRate, seed: o.seed })),
  )
  await pending.commit(name)
  return makeMediaFile(db, owner, library, { file: name, alias: o.alias })
}
