// IEEE 754 half precision (binary16), the form stored embeddings take (docs/decisions.md §35): Node has no
// Float16Array yet, so values are converted here, rounding to nearest even, to and from their 16 bits.

const f32 = new Float32Array(1)
const u32 = new Uint32Array(f32.buffer)

/** The 16 bits of `value` as a half float (rounded to nearest even; beyond 65504 becomes infinity). */
export function toHalf(value: number): number {
  f32[0] = value
  const x = u32[0]
  const sign = (x >>> 16) & 0x8000
  const exponent = (x >>> 23) & 0xff
  let mantissa = x & 0x7fffff
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0) // infinity or NaN
  const e = exponent - 127 + 15
  if (e >= 0x1f) return sign | 0x7c00
  if (e <= 0) {
    if (e < -10) return sign // too small even for a subnormal
    mantissa |= 0x800000
    const shift = 14 - e
    const half = 1 << (shift - 1)
    const rest = mantissa & ((1 << shift) - 1)
    let m = mantissa >>> shift
    if (rest > half || (rest === half && m & 1)) m++
    return sign | m
  }
  const rest = mantissa & 0x1fff
  let bits = sign | (e << 10) | (mantissa >>> 13)
  if (rest > 0x1000 || (rest === 0x1000 && bits & 1)) bits++ // may carry into the exponent: still right
  return bits
}

/** The value of a half float's 16 bits. */
export function fromHalf(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1
  const exponent = (bits >>> 10) & 0x1f
  const mantissa = bits & 0x3ff
  if (exponent === 0) return sign * mantissa * 2 ** -24
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15)
}

const TABLE = Float32Array.from({ length: 65536 }, (_, i) => fromHalf(i))

/** `values` as half floats, little-endian, in a new buffer. */
export function encodeHalves(values: ArrayLike<number>): Buffer {
  const out = Buffer.alloc(values.length * 2)
  for (let i = 0; i < values.length; i++) out.writeUInt16LE(toHalf(values[i]), i * 2)
  return out
}

/** `count` half floats of `bytes` from value `from`, as float32 (into `into` when given). */
export function decodeHalves(
  bytes: Uint8Array,
  from = 0,
  count = (bytes.length >> 1) - from,
  into = new Float32Array(count),
): Float32Array {
  for (let i = 0, at = from * 2; i < count; i++, at += 2) into[i] = TABLE[bytes[at] | (bytes[at + 1] << 8)]
  return into
}
