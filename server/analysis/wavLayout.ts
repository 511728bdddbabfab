import { UnsupportedAudioError } from './audioErrors.js'

// Where a WAV file's samples are and how they are written, read from its
// chunks: RIFF, and RF64 / BW64 (the 64-bit sizes of its `ds64` chunk, as
// recorders write files over 4 GiB), integer PCM of 8 to 32 bits or 32/64-bit
// float, WAVE_FORMAT_EXTENSIBLE, any number of channels, chunks in any order
// with their odd sizes padded. And the one conversion of those bytes to mono
// floats, for whole files (audio.ts) and streamed ranges (audioSource.ts).

export interface WavLayout {
  /** 1: integer PCM, 3: IEEE float */
  format: 1 | 3
  bitsPerSample: number
  channels: number
  sampleRate: number
  /** bytes of one frame (a sample of every channel) */
  blockAlign: number
  /** offset of the first sample in the file */
  dataStart: number
  /** bytes of whole frames of audio, within the file */
  dataBytes: number
}

/** `length` bytes at `at` of the file, or null when they are not at hand (the caller reads them and asks again) */
export type ByteView = (at: number, length: number) => Buffer | null

export class NeedBytes {
  constructor(
    readonly at: number,
    readonly length: number,
  ) {}
}

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1
const NOT_WAV = 'only WAV, FLAC and MP3 audio can be analysed'
const ALL_ONES = 0xffffffff

/** The layout of a WAV file of `fileSize` bytes, or the bytes it still needs to see. */
export function wavLayout(view: ByteView, fileSize: number): WavLayout | NeedBytes {
  const head = view(0, 12)
  if (!head) return new NeedBytes(0, 12)
  const riff = head.toString('latin1', 0, 4)
  if (!['RIFF', 'RF64', 'BW64'].includes(riff) || head.toString('latin1', 8, 12) !== 'WAVE')
    throw new UnsupportedAudioError(NOT_WAV)
  let ds64DataBytes: number | null = null
  let fmt: Buffer | null = null
  for (let at = 12; at + 8 <= fileSize;) {
    const header = view(at, 8)
    if (!header) return new NeedBytes(at, 8)
    const id = header.toString('latin1', 0, 4)
    let size = header.readUInt32LE(4)
    if (id === 'ds64' || id === 'fmt ') {
      const body = view(at + 8, Math.min(size, fileSize - at - 8))
      if (!body) return new NeedBytes(at + 8, Math.min(size, fileSize - at - 8))
      if (id === 'ds64') {
        if (body.length < 16) throw new UnsupportedAudioError("the RF64 file's ds64 chunk is cut short")
        ds64DataBytes = Number(body.readBigUInt64LE(8))
      } else {
        fmt = body
      }
    } else if (id === 'data') {
      if (!fmt) throw new UnsupportedAudioError('the WAV file has no format chunk before its audio data')
      // RF64 writes 0xFFFFFFFF here and the true size in ds64; a recorder still writing leaves it 0 or all ones
      if (size === ALL_ONES && ds64DataBytes !== null) size = ds64DataBytes
      else if (size === ALL_ONES || (size === 0 && riff === 'RIFF')) size = fileSize - at - 8
      return layoutOf(fmt, at + 8, Math.min(size, fileSize - at - 8))
    }
    at += 8 + size + (size % 2)
  }
  throw new UnsupportedAudioError('the WAV file has no audio data')
}

function layoutOf(fmt: Buffer, dataStart: number, available: number): WavLayout {
  if (fmt.length < 16) throw new UnsupportedAudioError("the WAV file's format chunk is cut short")
  let format = fmt.readUInt16LE(0)
  const channels = fmt.readUInt16LE(2)
  const sampleRate = fmt.readUInt32LE(4)
  const bitsPerSample = fmt.readUInt16LE(14)
  if (format === 0xfffe && fmt.length >= 26) format = fmt.readUInt16LE(24) // WAVE_FORMAT_EXTENSIBLE: the sub-format
  if (!channels || !sampleRate) throw new UnsupportedAudioError('the WAV file has no audio data')
  if (
    !(format === 1 && [8, 16, 24, 32].includes(bitsPerSample)) &&
    !(format === 3 && (bitsPerSample === 32 || bitsPerSample === 64))
  ) {
    throw new UnsupportedAudioError(`WAV format ${format} with ${bitsPerSample} bits per sample cannot be analysed`)
  }
  const blockAlign = (channels * bitsPerSample) / 8
  return {
    format,
    bitsPerSample,
    channels,
    sampleRate,
    blockAlign,
    dataStart,
    dataBytes: Math.floor(available / blockAlign) * blockAlign,
  }
}

/** The frames of `bytes` (whole frames of this layout) mixed to one channel of floats in [-1, 1], into `out`. */
export function framesToMono(
  l: WavLayout,
  bytes: Uint8Array,
  out: Float32Array = new Float32Array(Math.floor(bytes.length / l.blockAlign)),
): Float32Array {
  const frames = Math.min(out.length, Math.floor(bytes.length / l.blockAlign))
  const channels = l.channels
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const scale = 1 / channels / (l.format === 3 ? 1 : 2 ** (l.bitsPerSample - 1))
  const step = l.bitsPerSample / 8
  let at = 0
  if (l.format === 3) {
    for (let i = 0; i < frames; i++) {
      let sum = 0
      for (let c = 0; c < channels; c++, at += step)
        sum += step === 4 ? view.getFloat32(at, true) : view.getFloat64(at, true)
      out[i] = sum * scale
    }
  } else if (step === 2 && channels === 1 && bytes.byteOffset % 2 === 0 && LITTLE_ENDIAN) {
    // the common case, read as a typed array over the same bytes
    const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, frames)
    for (let i = 0; i < frames; i++) out[i] = pcm[i] * scale
  } else if (step === 2) {
    for (let i = 0; i < frames; i++) {
      let sum = 0
      for (let c = 0; c < channels; c++, at += 2) sum += view.getInt16(at, true)
      out[i] = sum * scale
    }
  } else if (step === 1) {
    for (let i = 0; i < frames; i++) {
      let sum = 0
      for (let c = 0; c < channels; c++) sum += bytes[at++] - 128
      out[i] = sum * scale
    }
  } else if (step === 3) {
    for (let i = 0; i < frames; i++) {
      let sum = 0
      for (let c = 0; c < channels; c++, at += 3)
        sum += ((bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16)) << 8) >> 8
      out[i] = sum * scale
    }
  } else {
    for (let i = 0; i < frames; i++) {
      let sum = 0
      for (let c = 0; c < channels; c++, at += 4) sum += view.getInt32(at, true)
      out[i] = sum * scale
    }
  }
  return out
}
