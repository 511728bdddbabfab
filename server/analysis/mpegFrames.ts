// MPEG audio (MP1/MP2/MP3) frames found by their headers alone, without
// decoding: a frame's length and sample count follow from its 4-byte header,
// so a range of an MP3 file is reached by walking the headers from the start
// (docs/decisions.md, "Streamed audio"), and the Xing/Info frame LAME writes
// first says how many samples the encoder added before and after the audio.

export interface MpegFrameHeader {
  /** bytes of the frame, header included */
  length: number
  /** samples per channel it decodes to */
  samples: number
  sampleRate: number
  /** the bits that stay the same in every frame of a stream (version, layer, sample rate) */
  kind: number
}

const KBPS = {
  v1l1: [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  v1l2: [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  v1l3: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2l1: [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  v2l23: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}
/** by the version bits: 0 MPEG 2.5, 2 MPEG 2, 3 MPEG 1 */
const RATES: Record<number, number[]> = { 0: [11025, 12000, 8000], 2: [22050, 24000, 16000], 3: [44100, 48000, 32000] }

/** The header at `at` of `b`, or null when there is no valid one (free-format frames included). */
export function mpegFrameHeader(b: Uint8Array, at: number): MpegFrameHeader | null {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1] & 0xe0) !== 0xe0) return null
  const version = (b[at + 1] >> 3) & 3,
    layer = (b[at + 1] >> 1) & 3
  const bitrateIndex = b[at + 2] >> 4,
    rateIndex = (b[at + 2] >> 2) & 3,
    padding = (b[at + 2] >> 1) & 1
  if (version === 1 || layer === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null
  const v1 = version === 3
  const sampleRate = RATES[version][rateIndex]
  const kind = ((b[at + 1] & 0x1e) << 8) | (rateIndex << 2)
  if (layer === 3) {
    // Layer I
    const kbps = (v1 ? KBPS.v1l1 : KBPS.v2l1)[bitrateIndex]
    return { length: (Math.floor((12000 * kbps) / sampleRate) + padding) * 4, samples: 384, sampleRate, kind }
  }
  if (layer === 2) {
    // Layer II
    const kbps = (v1 ? KBPS.v1l2 : KBPS.v2l23)[bitrateIndex]
    return { length: Math.floor((144000 * kbps) / sampleRate) + padding, samples: 1152, sampleRate, kind }
  }
  const kbps = (v1 ? KBPS.v1l3 : KBPS.v2l23)[bitrateIndex]
  return {
    length: Math.floor(((v1 ? 144000 : 72000) * kbps) / sampleRate) + padding,
    samples: v1 ? 1152 : 576,
    sampleRate,
    kind,
  }
}

/** Bytes of an ID3v2 tag at the start of `head` (10 bytes of it suffice), 0 when there is none. */
export function id3v2Length(head: Uint8Array): number {
  if (head.length < 10 || head[0] !== 0x49 || head[1] !== 0x44 || head[2] !== 0x33) return 0
  const size = (head[6] & 0x7f) * 2 ** 21 + (head[7] & 0x7f) * 2 ** 14 + (head[8] & 0x7f) * 2 ** 7 + (head[9] & 0x7f)
  return 10 + size + (head[5] & 0x10 ? 10 : 0)
}

/** the delay of an MP3 decoder, which an encoder's delay in the LAME tag does not count */
const DECODER_DELAY = 529

export interface Gapless {
  /** samples at the start that are the encoder's and the decoder's delay */
  skip: number
  /** samples at the end that are the encoder's padding */
  endTrim: number
}

/**
 * What a first frame that is a Xing/Info header says: it holds no audio, and its LAME tag gives the
 * samples the encoder added before and after the audio, which mpg123's gapless decoding removes. Null
 * when the frame is audio.
 */
export function infoFrame(frame: Uint8Array): Gapless | null {
  const b = Buffer.from(frame.buffer, frame.byteOffset, frame.length)
  const head = b.subarray(0, Math.min(b.length, 64)).toString('latin1')
  const x = Math.max(head.indexOf('Xing'), head.indexOf('Info'))
  if (x < 0 || x + 8 > b.length) return null
  const flags = b.readUInt32BE(x + 4)
  const tag = x + 8 + (flags & 1 ? 4 : 0) + (flags & 2 ? 4 : 0) + (flags & 4 ? 100 : 0) + (flags & 8 ? 4 : 0)
  if (tag + 24 > b.length || !/^(LAME|Lavf|Lavc|GOGO)/.test(b.toString('latin1', tag, tag + 4)))
    return { skip: 0, endTrim: 0 }
  const delay = (b[tag + 21] << 4) | (b[tag + 22] >> 4),
    padding = ((b[tag + 22] & 0x0f) << 8) | b[tag + 23]
  return { skip: delay + DECODER_DELAY, endTrim: Math.max(0, padding - DECODER_DELAY) }
}
