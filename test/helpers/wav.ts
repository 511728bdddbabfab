// Real WAV files for tests and benchmarks: a RIFF/WAVE header with a PCM `fmt `
// chunk, then `data` with a sine tone, so parsers see exactly the facts asked for.

export interface WavOptions {
  sampleRate?: number
  channels?: number
  /** 8, 16, 24 or 32 (integer PCM) */
  bitsPerSample?: number
  seconds?: number
  /** tone frequency in Hz; different values give different bytes */
  frequency?: number
}

export function wavHeader(o: Required<Omit<WavOptions, 'frequency' | 'seconds'>> & { dataBytes: number }): Buffer {
  const blockAlign = o.channels * (o.bitsPerSample / 8)
  const h = Buffer.alloc(44)
  h.write('RIFF', 0, 'ascii')
  h.writeUInt32LE(36 + o.dataBytes, 4)
  h.write('WAVE', 8, 'ascii')
  h.write('fmt ', 12, 'ascii')
  h.writeUInt32LE(16, 16)
  h.writeUInt16LE(1, 20) // PCM
  h.writeUInt16LE(o.channels, 22)
  h.writeUInt32LE(o.sampleRate, 24)
  h.writeUInt32LE(o.sampleRate * blockAlign, 28)
  h.writeUInt16LE(blockAlign, 32)
  h.writeUInt16LE(o.bitsPerSample, 34)
  h.write('data', 36, 'ascii')
  h.writeUInt32LE(o.dataBytes, 40)
  return h
}

/** Sample frames [from, to) of a sine tone as PCM bytes. */
export function wavSamples(o: Required<WavOptions>, from: number, to: number): Buffer {
  const bytes = o.bitsPerSample / 8
  const out = Buffer.alloc((to - from) * o.channels * bytes)
  const full = 2 ** (o.bitsPerSample - 1) - 1
  let at = 0
  for (let i = from; i < to; i++) {
    const v = Math.round(Math.sin((2 * Math.PI * o.frequency * i) / o.sampleRate) * full * 0.5)
    for (let c = 0; c < o.channels; c++) {
      if (bytes === 1) out.writeUInt8(v + 128, at)
      else out.writeIntLE(v, at, bytes)
      at += bytes
    }
  }
  return out
}

const defaults = (o: WavOptions): Required<WavOptions> => ({
  sampleRate: o.sampleRate ?? 44100,
  channels: o.channels ?? 1,
  bitsPerSample: o.bitsPerSample ?? 16,
  seconds: o.seconds ?? 1,
  frequency: o.frequency ?? 440,
})

/** Bytes of the data chunk for these options. */
export function wavDataBytes(options: WavOptions = {}): number {
  const o = defaults(options)
  return Math.round(o.seconds * o.sampleRate) * o.channels * (o.bitsPerSample / 8)
}

/** A whole WAV file in memory. */
export function makeWav(options: WavOptions = {}): Buffer {
  const o = defaults(options)
  const frames = Math.round(o.seconds * o.sampleRate)
  return Buffer.concat([wavHeader({ ...o, dataBytes: wavDataBytes(o) }), wavSamples(o, 0, frames)])
}

/** A WAV file as a stream of chunks, for files too large to hold in memory (the tone repeats every second). */
export async function* wavChunks(options: WavOptions = {}): AsyncGenerator<Buffer> {
  const o = defaults(options)
  const frames = Math.round(o.seconds * o.sampleRate)
  yield wavHeader({ ...o, dataBytes: wavDataBytes(o) })
  const second = wavSamples(o, 0, o.sampleRate)
  for (let at = 0; at < frames; at += o.sampleRate) {
    const n = Math.min(o.sampleRate, frames - at)
    yield n === o.sampleRate ? second : second.subarray(0, n * o.channels * (o.bitsPerSample / 8))
  }
}
