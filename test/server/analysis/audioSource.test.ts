import { readFileSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { MPEGDecoder } from 'mpg123-decoder'
import { encodeMp3 } from '../../../bench/encoders.js'
import { pcmWavHeader, recordingBlocks, recordingWav } from '../../../bench/longRecording.js'
import { StoredFileError, UnsupportedAudioError } from '../../../server/analysis/audioErrors.js'
import { openAudio, type AudioSource, type ChunkOptions } from '../../../server/analysis/audioSource.js'
import { decodeAudio } from '../../../server/analysis/decode.js'
import { LocalStorage } from '../../../server/storage/local.js'
import { CountingStorage } from '../../helpers/countingStorage.js'
import { flacChunks } from '../../helpers/flac.js'
import { tempDir } from '../../helpers/tempDir.js'

// openAudio on generated long recordings and the fixtures: a streamed decode of any range, in any chunk
// size, equals the whole decode (or the generated samples) over that range, and reads only what it needs.

const FIXTURES = resolve(fileURLToPath(import.meta.url), '../../../../../test/fixtures')
const stored = tempDir('mas-audio-source-')
const storage = new CountingStorage(new LocalStorage(stored))
test.after(() => rmSync(stored, { recursive: true, force: true }))
const RATE = 8000
const FRAMES = 90 * RATE + 1234 // 90 s and a bit: not a whole number of chunks nor of FLAC blocks

async function store(name: string, chunks: Iterable<Buffer> | AsyncIterable<Buffer>): Promise<string> {
  const pending = await storage.receive(Readable.from(chunks))
  await pending.commit(name)
  return name
}

/** The generated samples as a decoder gives them: WAV divides by 2^15, libFLAC by 2^15 - 1. */
function generatedSamples(scale: number): Float32Array {
  const out = new Float32Array(FRAMES)
  let at = 0
  for (const b of recordingBlocks(FRAMES, { sampleRate: RATE, seed: 7, callEvery: 5 }))
    for (const v of b) out[at++] = v / scale
  return out
}
const fromWav = generatedSamples(32768),
  fromFlac = generatedSamples(32767)

async function streamed(source: AudioSource, o: ChunkOptions): Promise<{ samples: Float32Array; starts: number[] }> {
  const parts: Float32Array[] = []
  const starts: number[] = []
  let next = o.from ?? 0
  for await (const c of source.chunks(o)) {
    assert.is(c.start, next, 'chunks follow each other')
    parts.push(c.samples)
    starts.push(c.start)
    next += c.samples.length
  }
  const all = new Float32Array(next - (o.from ?? 0))
  let at = 0
  for (const p of parts) {
    all.set(p, at)
    at += p.length
  }
  return { samples: all, starts }
}

function same(actual: Float32Array, wanted: Float32Array, what: string): void {
  assert.is(actual.length, wanted.length, `${what}: length`)
  for (let i = 0; i < wanted.length; i++) {
    if (Math.abs(actual[i] - wanted[i]) > 1e-6)
      assert.unreachable(`${what}: sample ${i} is ${actual[i]}, not ${wanted[i]}`)
  }
}

const RANGES: Array<[number, number]> = [
  [0, FRAMES],
  [1, 2],
  [12_345, 98_765],
  [65_535, 65_537 + 65_536],
  [FRAMES - 5000, FRAMES],
  [400_000, 400_000],
]

const generated: Array<[string, () => Iterable<Buffer> | AsyncIterable<Buffer>, Float32Array]> = [
  ['plain WAV', () => recordingWav(FRAMES, { sampleRate: RATE, seed: 7, callEvery: 5 }), fromWav],
  ['RF64 WAV', () => recordingWav(FRAMES, { sampleRate: RATE, seed: 7, callEvery: 5, rf64: true }), fromWav],
  [
    'FLAC (frame numbers)',
    () =>
      flacChunks(recordingBlocks(FRAMES, { sampleRate: RATE, seed: 7, callEvery: 5 }), {
        sampleRate: RATE,
        totalFrames: FRAMES,
      }),
    fromFlac,
  ],
  [
    'FLAC (sample numbers)',
    () =>
      flacChunks(recordingBlocks(FRAMES, { sampleRate: RATE, seed: 7, callEvery: 5 }), {
        sampleRate: RATE,
        totalFrames: FRAMES,
        blockSize: 1152,
        variable: true,
      }),
    fromFlac,
  ],
]

for (const [kind, chunks, expected] of generated) {
  test(`${kind}: any range in any chunk size is the generated samples, reading a part of the file for a part of it`, async () => {
    const name = await store(`media/${kind.replace(/\W+/g, '_')}`, chunks())
    const size = (await storage.stat(name))!.size
    const source = await openAudio(storage, name)
    assert.equal([source.info.sampleRate, source.info.channels, source.info.frames], [RATE, 1, FRAMES])
    assert.ok(Math.abs(source.info.duration - FRAMES / RATE) < 1e-9)
    for (const [from, to] of RANGES) {
      for (const chunkFrames of [1000, 65536]) {
        storage.reset()
        const { samples, starts } = await streamed(source, { from, to, chunkFrames })
        same(samples, expected.subarray(from, to), `${kind} [${from}, ${to}) in chunks of ${chunkFrames}`)
        assert.ok(
          starts.every((s, i) => i === 0 || s - starts[i - 1] === chunkFrames),
          'chunks of the size asked for',
        )
        if (to - from < FRAMES / 4) {
          assert.ok(
            storage.bytesRead < size / 3,
            `${kind} [${from}, ${to}): ${storage.bytesRead} of ${size} bytes read`,
          )
        }
      }
    }
    // a range past the end stops at the end; the default is the whole file
    same(
      (await streamed(source, { from: FRAMES - 10, to: FRAMES + 1000 })).samples,
      expected.subarray(FRAMES - 10),
      `${kind} past the end`,
    )
    same((await streamed(source, {})).samples, expected, `${kind} whole`)
  })
}

test('plain WAV: only the bytes of the range are read, by one range read after the header', async () => {
  const name = 'media/plain_WAV'
  const source = await openAudio(storage, name)
  storage.reset()
  await streamed(source, { from: 100_000, to: 108_000 })
  assert.equal(storage.reads, [{ start: 44 + 200_000, end: 44 + 216_000 - 1 }])
  assert.is(storage.bytesRead, 16_000)
})

test('WAV of every layout: 24-bit stereo WAVE_FORMAT_EXTENSIBLE after an odd-sized chunk, data not first, float 32 and 64, 8-bit', async () => {
  const frames = 3001
  const left = Array.from({ length: frames }, (_, i) => Math.sin(i / 7) * 0.5)
  const right = Array.from({ length: frames }, (_, i) => Math.cos(i / 11) * 0.25)
  const chunk = (id: string, body: Buffer) =>
    Buffer.concat([
      Buffer.from(id, 'latin1'),
      Buffer.from(Uint32Array.of(body.length).buffer),
      body,
      Buffer.alloc(body.length % 2),
    ])
  const fmt = (format: number, bits: number, extensible: boolean) => {
    const b = Buffer.alloc(extensible ? 40 : 16)
    b.writeUInt16LE(extensible ? 0xfffe : format, 0)
    b.writeUInt16LE(2, 2)
    b.writeUInt32LE(RATE, 4)
    b.writeUInt32LE((RATE * bits) / 4, 8)
    b.writeUInt16LE(bits / 4, 12)
    b.writeUInt16LE(bits, 14)
    if (extensible) {
      b.writeUInt16LE(22, 16)
      b.writeUInt16LE(bits, 18)
      b.writeUInt32LE(3, 20)
      b.writeUInt16LE(format, 24)
    }
    return b
  }
  const cases: Array<
    [string, number, number, boolean, (v: number) => number, (b: Buffer, v: number, at: number) => void]
  > = [
    [
      '24-bit extensible',
      1,
      24,
      true,
      (v) => Math.round(v * 2 ** 23) / 2 ** 23,
      (b, v, at) => b.writeIntLE(Math.round(v * 2 ** 23), at, 3),
    ],
    [
      '32-bit integer',
      1,
      32,
      false,
      (v) => Math.round(v * 2 ** 31) / 2 ** 31,
      (b, v, at) => b.writeInt32LE(Math.round(v * 2 ** 31), at),
    ],
    ['float 32', 3, 32, false, (v) => Math.fround(v), (b, v, at) => b.writeFloatLE(v, at)],
    ['float 64 extensible', 3, 64, true, (v) => v, (b, v, at) => b.writeDoubleLE(v, at)],
    ['8-bit', 1, 8, false, (v) => Math.round(v * 128) / 128, (b, v, at) => b.writeUInt8(Math.round(v * 128) + 128, at)],
  ]
  for (const [what, format, bits, extensible, quantise, write] of cases) {
    const bytes = bits / 8
    const data = Buffer.alloc(frames * 2 * bytes)
    for (let i = 0; i < frames; i++) {
      write(data, left[i], 2 * i * bytes)
      write(data, right[i], (2 * i + 1) * bytes)
    }
    const body = Buffer.concat([
      Buffer.from('WAVE'),
      chunk('LIST', Buffer.from('INFOodd')),
      chunk('fmt ', fmt(format, bits, extensible)),
      chunk('junk', Buffer.alloc(33)),
      chunk('data', data),
      chunk('id3 ', Buffer.from('after')),
    ])
    const name = await store(`media/layout_${what.replace(/\W+/g, '_')}`, [
      Buffer.concat([Buffer.from('RIFF'), Buffer.from(Uint32Array.of(body.length).buffer), body]),
    ])
    const source = await openAudio(storage, name)
    assert.equal([source.info.channels, source.info.frames], [2, frames], what)
    const wanted = Float32Array.from(left, (l, i) => (quantise(l) + quantise(right[i])) / 2)
    same((await streamed(source, { from: 17, to: 2999, chunkFrames: 100 })).samples, wanted.subarray(17, 2999), what)
    same((await decodeAudio(storage.read(name))).samples, wanted, `${what}, whole`)
  }
})

/** mpg123's own decode of a whole MP3 file (gapless: the LAME tag's delay and padding removed), mixed to mono. */
async function mpg123Whole(bytes: Buffer): Promise<Float32Array> {
  const decoder = new MPEGDecoder()
  await decoder.ready
  try {
    const d = decoder.decode(bytes)
    const out = new Float32Array(d.samplesDecoded)
    for (const c of d.channelData) for (let i = 0; i < out.length; i++) out[i] += c[i] / d.channelData.length
    return out
  } finally {
    decoder.free()
  }
}

const generatedMp3 = (async () => {
  const parts: Buffer[] = []
  for await (const b of encodeMp3(recordingBlocks(60 * RATE, { sampleRate: RATE, seed: 5, callEvery: 3 }), {
    sampleRate: RATE,
    kbps: 32,
  }))
    parts.push(b)
  return Buffer.concat(parts)
})()

const compressed: Array<[string, () => Promise<Buffer>]> = [
  ['tone.flac', async () => readFileSync(resolve(FIXTURES, 'tone.flac'))],
  ['tone.mp3', async () => readFileSync(resolve(FIXTURES, 'tone.mp3'))],
  ['generated.mp3', () => generatedMp3],
  // an ID3v2 tag (10 bytes of header, its size in 7-bit bytes) before the frames, as taggers write one
  [
    'tagged.mp3',
    async () =>
      Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 2, 0]), Buffer.alloc(256), await generatedMp3]),
  ],
]

for (const [fixture, bytes] of compressed) {
  test(`${fixture}: streamed ranges equal the whole decode${fixture.endsWith('mp3') ? ", and mpg123's own" : ''}`, async () => {
    const data = await bytes()
    const name = await store(`media/${fixture.replace('.', '_')}`, [data])
    const whole = await decodeAudio(storage.read(name))
    if (fixture.endsWith('mp3')) same(whole.samples, await mpg123Whole(data), `${fixture} whole, as mpg123 decodes it`)
    const source = await openAudio(storage, name)
    assert.is(source.info.sampleRate, 8000)
    assert.ok(
      Math.abs(source.info.frames - whole.samples.length) < 2400,
      `${source.info.frames} frames said, ${whole.samples.length} decoded`,
    )
    const n = whole.samples.length
    for (const [from, to] of [
      [0, n],
      [1, 1000],
      [2047, 4097],
      [4000, n],
      [n - 3000, n - 1000],
      [Math.floor(n / 2), n],
    ]) {
      for (const chunkFrames of [333, 65536]) {
        same(
          (await streamed(source, { from, to, chunkFrames })).samples,
          whole.samples.subarray(from, to),
          `${fixture} [${from}, ${to}) by ${chunkFrames}`,
        )
      }
    }
  })
}

test('a WAV header of 4 GiB of RF64 data over a modest file: the sizes of ds64, cut to the bytes there are', async () => {
  const header = pcmWavHeader({ sampleRate: 48000, channels: 1, bitsPerSample: 16, dataBytes: 5 * 2 ** 30 })
  assert.is(header.toString('latin1', 0, 4), 'RF64')
  const name = await store('media/cut_rf64', [header, Buffer.alloc(96_000)])
  const source = await openAudio(storage, name)
  assert.equal([source.info.sampleRate, source.info.frames], [48000, 48_000])
})

test('bytes that are no audio: UnsupportedAudioError; a stored file that is missing: StoredFileError', async () => {
  const name = await store('media/not_audio', [Buffer.from('OggS and then some more bytes')])
  await openAudio(storage, name).then(
    () => assert.unreachable('opened'),
    (e) => assert.instance(e, UnsupportedAudioError),
  )
  await openAudio(storage, 'media/none').then(
    () => assert.unreachable('opened'),
    (e) => assert.instance(e, StoredFileError),
  )
})

test('an aborted read stops', async () => {
  const source = await openAudio(storage, 'media/plain_WAV')
  const controller = new AbortController()
  controller.abort()
  await streamed(source, { signal: controller.signal }).then(
    () => assert.unreachable('read'),
    (e) => assert.is((e as Error).name, 'AbortError'),
  )
})

test.run()
