// FLAC files for tests and benchmarks, written here because npm has no
// maintained FLAC encoder: every subframe VERBATIM (the samples as they are, so
// the file is as large as a WAV), but real frames with real headers (frame or
// sample numbers, CRC-8 and CRC-16), which is what seeking reads.

export interface FlacOptions {
  sampleRate: number
  /** frames of the whole file, written in STREAMINFO (0: unknown) */
  totalFrames: number
  /** samples per frame (the last frame may be shorter) */
  blockSize?: number
  /** frame headers carry sample numbers (variable block size) instead of frame numbers */
  variable?: boolean
}

const CRC8 = new Uint8Array(256).map((_, i) => {
  let c = i
  for (let k = 0; k < 8; k++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff
  return c
})
const CRC16 = new Uint16Array(256).map((_, i) => {
  let c = i << 8
  for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x8005) & 0xffff : (c << 1) & 0xffff
  return c
})
const crc8 = (b: Uint8Array) => b.reduce((c, x) => CRC8[c ^ x], 0)
const crc16 = (b: Uint8Array) => b.reduce((c, x) => ((c << 8) & 0xffff) ^ CRC16[(c >> 8) ^ x], 0)

/** FLAC's UTF-8-like coding of a frame or sample number (up to 36 bits). */
function codedNumber(n: number): number[] {
  if (n < 0x80) return [n]
  const limits = [0x800, 0x10000, 0x200000, 0x4000000, 0x80000000, 2 ** 36]
  const count = 2 + limits.findIndex((l) => n < l)
  const out: number[] = []
  for (let k = 1; k < count; k++) {
    out.unshift(0x80 | (n % 64))
    n = Math.floor(n / 64)
  }
  out.unshift(((0xff00 >> count) & 0xff) | n)
  return out
}

function streamInfo(o: Required<FlacOptions>): Buffer {
  const b = Buffer.alloc(4 + 4 + 34)
  b.write('fLaC', 0, 'latin1')
  b[4] = 0x80 // last metadata block, STREAMINFO
  b.writeUIntBE(34, 5, 3)
  const si = b.subarray(8)
  si.writeUInt16BE(o.variable ? 16 : o.blockSize, 0)
  si.writeUInt16BE(o.blockSize, 2)
  // sample rate (20 bits), channels - 1 (3 bits, mono), bits - 1 (5 bits, 16), total samples (36 bits)
  si[10] = (o.sampleRate >> 12) & 0xff
  si[11] = (o.sampleRate >> 4) & 0xff
  si[12] = ((o.sampleRate & 0x0f) << 4) | (0 << 1) | (15 >> 4)
  si[13] = ((15 & 0x0f) << 4) | (Math.floor(o.totalFrames / 2 ** 32) & 0x0f)
  si.writeUInt32BE(o.totalFrames % 2 ** 32, 14)
  return b
}

function frame(samples: Int16Array, number: number, o: Required<FlacOptions>): Buffer {
  const head: number[] = [0xff, o.variable ? 0xf9 : 0xf8]
  const rateCode = o.sampleRate < 65536 ? 0b1101 : 0b1110
  head.push((0b0111 << 4) | rateCode) // block size as 16 bits at the end of the header
  head.push((0 << 4) | (0b100 << 1)) // mono, 16 bits per sample
  head.push(...codedNumber(number))
  head.push((samples.length - 1) >> 8, (samples.length - 1) & 0xff)
  const rate = rateCode === 0b1101 ? o.sampleRate : o.sampleRate / 10
  head.push(rate >> 8, rate & 0xff)
  head.push(crc8(Uint8Array.from(head)))
  const out = Buffer.alloc(head.length + 1 + samples.length * 2 + 2)
  out.set(head, 0)
  out[head.length] = 0x02 // VERBATIM subframe, no wasted bits
  for (let i = 0, at = head.length + 1; i < samples.length; i++, at += 2) out.writeInt16BE(samples[i], at)
  out.writeUInt16BE(crc16(out.subarray(0, out.length - 2)), out.length - 2)
  return out
}

/** A mono 16-bit FLAC file of the samples `blocks` give, as a stream of chunks. */
export async function* flacChunks(
  blocks: AsyncIterable<Int16Array> | Iterable<Int16Array>,
  options: FlacOptions,
): AsyncGenerator<Buffer> {
  const o: Required<FlacOptions> = { blockSize: 4096, variable: false, ...options }
  yield streamInfo(o)
  const held = new Int16Array(o.blockSize)
  let filled = 0,
    frames = 0,
    samples = 0
  const next = () => {
    const f = frame(held.subarray(0, filled), o.variable ? samples : frames, o)
    frames++
    samples += filled
    filled = 0
    return f
  }
  for await (const block of blocks) {
    for (let at = 0; at < block.length;) {
      const n = Math.min(block.length - at, o.blockSize - filled)
      held.set(block.subarray(at, at + n), filled)
      filled += n
      at += n
      if (filled === o.blockSize) yield next()
    }
  }
  if (filled) yield next()
}
