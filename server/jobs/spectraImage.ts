import { deflateSync } from 'node:zlib'
import type { Spectrogram } from './spectra.js'

// A spectrogram as a grayscale PNG: time left to right, frequency bottom to
// top, the loudest value white and 80 dB below it black.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

function crc32(buf: Buffer): number {
  let c = 0xffffffff
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'ascii')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
  return Buffer.concat([head, data, crc])
}

export function spectrogramPng(s: Spectrogram, range = 80): Buffer {
  const width = Math.max(1, s.frames)
  const height = Math.max(1, s.bands)
  let top = -Infinity
  for (const v of s.data) if (v > top) top = v
  const rows = Buffer.alloc((width + 1) * height)
  for (let y = 0; y < height; y++) {
    const band = height - 1 - y
    rows[y * (width + 1)] = 0 // filter: none
    for (let x = 0; x < s.frames; x++) {
      const v = s.data[x * s.bands + band]
      rows[y * (width + 1) + 1 + x] = Math.max(0, Math.min(255, Math.round(255 * (1 - (top - v) / range))))
    }
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 0 // grayscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0)),
  ])
}
