// Audio samples for analysis: a WAV file (integer PCM of 8 to 32 bits, or
// 32/64-bit float) mixed down to one channel of floats in [-1, 1]. FLAC and
// MP3 go through decode.ts, which calls this for WAV.

export interface MonoAudio { samples: Float32Array; sampleRate: number }

export class UnsupportedAudioError extends Error {}

export function decodeWav(buf: Buffer): MonoAudio {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new UnsupportedAudioError('only WAV, FLAC and MP3 audio can be analysed')
  }
  let format = 0, channels = 0, sampleRate = 0, bits = 0
  let data: Buffer | null = null
  for (let at = 12; at + 8 <= buf.length;) {
    const id = buf.toString('ascii', at, at + 4)
    const size = buf.readUInt32LE(at + 4)
    const body = buf.subarray(at + 8, Math.min(buf.length, at + 8 + size))
    if (id === 'fmt ') {
      format = body.readUInt16LE(0)
      channels = body.readUInt16LE(2)
      sampleRate = body.readUInt32LE(4)
      bits = body.readUInt16LE(14)
      if (format === 0xfffe && body.length >= 26) format = body.readUInt16LE(24) // WAVE_FORMAT_EXTENSIBLE: the sub-format
    } else if (id === 'data') {
      data = body
    }
    at += 8 + size + (size % 2)
  }
  if (!data || !channels || !sampleRate) throw new UnsupportedAudioError('the WAV file has no audio data')
  if (!(format === 1 && [8, 16, 24, 32].includes(bits)) && !(format === 3 && (bits === 32 || bits === 64))) {
    throw new UnsupportedAudioError(`WAV format ${format} with ${bits} bits per sample cannot be analysed`)
  }
  const bytes = bits / 8
  const frames = Math.floor(data.length / (bytes * channels))
  const samples = new Float32Array(frames)
  const scale = format === 3 ? 1 : 2 ** (bits - 1)
  if (format === 1 && bits === 16) {
    // the common case, read as a typed array (a copy: the bytes may sit at an odd offset)
    const pcm = new Int16Array(new Uint8Array(data.subarray(0, frames * channels * 2)).buffer)
    for (let i = 0, at = 0; i < frames; i++) {
      let sum = 0
      for (let c = 0; c < channels; c++) sum += pcm[at++]
      samples[i] = sum / channels / scale
    }
    return { samples, sampleRate }
  }
  for (let i = 0, at = 0; i < frames; i++) {
    let sum = 0
    for (let c = 0; c < channels; c++, at += bytes) {
      sum += format === 3 ? (bits === 32 ? data.readFloatLE(at) : data.readDoubleLE(at))
        : bytes === 1 ? data.readUInt8(at) - 128 : data.readIntLE(at, bytes)
    }
    samples[i] = sum / channels / scale
  }
  return { samples, sampleRate }
}
