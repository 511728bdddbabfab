import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openAudio, type AudioSource, type MonoChunk } from '../../server/analysis/audioSource.js'
import { embedWindow, shapeOf, SHAPE_SIZE, StretchSums } from '../../server/analysis/embedding.js'
import { powerSpectrum } from '../../server/analysis/fft.js'
import { learnDetector } from '../../server/analysis/examples.js'
import {
  BANDS,
  bandFloor,
  dot,
  frameGrid,
  framesIn,
  melFilters,
  melFrames,
  samplesFor,
} from '../../server/analysis/features.js'
import { planFile, scanBlocks, strongestApart } from '../../server/analysis/scan.js'
import { splitBlocks } from '../../server/analysis/threads.js'
import { LocalStorage } from '../../server/storage/local.js'
import { signal, wavOf, type Tone } from '../helpers/signals.js'
import { tempDir } from '../helpers/tempDir.js'

// The features discovery compares, on generated audio: frames read as a stream of small chunks from a
// long stored file equal those of the same samples held whole; a file scanned in parts (as threads do)
// gives what it gives scanned at once; a call at 22,050 and at 48,000 Hz has the same shape; and the frames
// follow the window, from a 2 s window at 8 kHz to a 3 ms window at 384 kHz.

const dir = tempDir('mas-features-')
mkdirSync(join(dir, 'media'))
const storage = new LocalStorage(dir)
test.after(() => rmSync(dir, { recursive: true, force: true }))

const call = (from: number) => ({ from, to: from + 0.3, frequency: 2000, toFrequency: 4000, amplitude: 0.4 })

async function stored(name: string, samples: Float32Array, rate: number): Promise<AudioSource> {
  writeFileSync(join(dir, 'media', name), wavOf(samples, rate))
  return openAudio(storage, `media/${name}`)
}

async function* whole(samples: Float32Array, from: number, to: number): AsyncGenerator<MonoChunk> {
  yield { start: from, samples: samples.slice(from, to) }
}

test('frames of a long file read as a stream of small chunks equal those of its samples held whole', async () => {
  const rate = 48000
  const source = await stored('long.wav', signal(95, rate, [call(10), call(47), call(88)], 0.05, 3), rate)
  // the stored samples (16-bit), decoded whole
  const samples = new Float32Array(source.info.frames)
  for await (const c of source.chunks()) samples.set(c.samples, c.start)
  const grid = frameGrid(rate, 0.3)
  const filters = melFilters(grid, { lo: 500, hi: 9000 })
  for (const [first, count] of [
    [0, 200],
    [1234, 1800],
    [framesIn(grid, samples.length) - 300, 300],
  ]) {
    const span = samplesFor(grid, first, count, samples.length)
    const streamed = await melFrames(source.chunks({ ...span, chunkFrames: 4099 }), grid, filters, first, count)
    const held = await melFrames(whole(samples, span.from, span.to), grid, filters, first, count)
    assert.is(streamed.length, count * BANDS)
    let worst = 0
    for (let i = 0; i < held.length; i++) worst = Math.max(worst, Math.abs(streamed[i] - held[i]))
    assert.ok(worst < 1e-4, `frames ${first}+${count} differ by ${worst} dB`)
  }
})

test('a file scanned in parts, as threads scan it, gives what it gives scanned at once', async () => {
  const rate = 22050
  const samples = signal(100, rate, [call(5), call(29.9), call(31), call(61), call(95)], 0.05, 4)
  const source = await stored('parts.wav', samples, rate)
  const examples = [5, 61].map((at) => ({
    mediaFile: 1,
    file: 'media/parts.wav',
    tagClass: 1,
    start: at,
    end: at + 0.3,
    minFrequency: 1800,
    maxFrequency: 4200,
  }))
  const { detector } = await learnDetector(storage, examples, [], 0.3, [{ id: 1, file: 'media/parts.wav' }], () => {})
  const plan = planFile(rate, samples.length, 0.3)
  assert.is(plan.blocks, 3)
  const once = await scanBlocks(source, detector, plan, 0, plan.blocks, 10, 0.5)
  const parts = await Promise.all(
    splitBlocks(plan.blocks, 3).map(([a, b]) => scanBlocks(source, detector, plan, a, b, 10, 0.5)),
  )
  assert.is(
    parts.reduce((n, p) => n + p.windows, 0),
    once.windows,
  )
  assert.is(Math.max(...parts.map((p) => p.best)), once.best)
  const startsOf = (cs: Array<{ start: number }>) => cs.map((c) => Math.round(c.start * 10) / 10).sort((a, b) => a - b)
  assert.equal(
    startsOf(
      strongestApart(
        parts.flatMap((p) => p.candidates),
        10,
      ),
    ),
    startsOf(once.candidates),
  )
  assert.equal(startsOf(once.candidates), [5, 29.9, 31, 61, 95])
})

/** The embedding of the window of `seconds` from `at` in `samples`, its background over the whole file. */
async function embeddingAt(samples: Float32Array, rate: number, at: number, seconds: number, lo: number, hi: number) {
  const grid = frameGrid(rate, seconds)
  const total = framesIn(grid, samples.length)
  const frames = await melFrames(whole(samples, 0, samples.length), grid, melFilters(grid, { lo, hi }), 0, total)
  const sums = new StretchSums(frames, 0, 0, total, bandFloor(frames, 0, 0, total))
  return embedWindow(sums, Math.round(at / grid.frameSeconds), Math.round(seconds / grid.frameSeconds))
}

test('a call has the same shape at 22,050 and at 48,000 Hz', async () => {
  const shapeAt = async (rate: number) =>
    shapeOf(await embeddingAt(signal(4, rate, [call(2)], 0.02, 5), rate, 2, 0.3, 900, 8400))
  const [a, b] = [await shapeAt(22050), await shapeAt(48000)]
  assert.is(a.length, SHAPE_SIZE)
  assert.ok(dot(a, b) > 0.95, `correlation ${dot(a, b)}`)
})

test('the power spectrum, its Hann window applied to the transform, is that of a windowed DFT at every bin', async () => {
  for (const size of [32, 2048]) {
    const spectrum = await powerSpectrum(size)
    const x = signal(
      size / 8000 + 0.01,
      8000,
      [{ from: 0, to: 1, frequency: 1000, toFrequency: 3000, amplitude: 0.5 }],
      0.1,
      2,
    )
    const at = 37
    const all = new Float64Array(size / 2 + 1),
      some = new Float64Array(size / 2 + 1)
    spectrum(x, all, at)
    spectrum(x, some, at, 1, 3)
    for (let k = 0; k <= size / 2; k++) {
      let re = 0,
        im = 0
      for (let n = 0; n < size; n++) {
        const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / size)
        re += x[at + n] * w * Math.cos((2 * Math.PI * k * n) / size)
        im -= x[at + n] * w * Math.sin((2 * Math.PI * k * n) / size)
      }
      const expected = (re * re + im * im) / size
      assert.ok(
        Math.abs(all[k] - expected) <= 1e-4 * expected + 1e-9,
        `size ${size} bin ${k}: ${all[k]} for ${expected}`,
      )
      if (k >= 1 && k < 3) assert.is(some[k], all[k])
      else assert.is(some[k], 0)
    }
  }
})

test('frames follow the window: 25 ms apart for a 2 s window, a fifth of a millisecond for a 3 ms window at 384 kHz', () => {
  assert.is(frameGrid(8000, 2).frameSeconds, 0.025)
  const bat = frameGrid(384000, 0.003)
  assert.ok(bat.frameSeconds <= 0.0002, `${bat.frameSeconds}`)
  assert.ok(bat.fftSize >= 1.5 * bat.hop && bat.fftSize <= 512, `${bat.fftSize}`)
  const tiny = frameGrid(8000, 0.001)
  assert.is(tiny.hop, 1)
  const plan = planFile(384000, 384000, 0.003)
  assert.is(plan.windowFrames, 16)
})

test('a 3 ms chirp at 384 kHz and its twin an octave lower embed apart; the same chirp twice embeds alike', async () => {
  const rate = 384000
  const chirp = (from: number, f: number): Tone => ({
    from,
    to: from + 0.003,
    frequency: 2 * f,
    toFrequency: f,
    amplitude: 0.5,
  })
  const samples = signal(0.2, rate, [chirp(0.05, 40000), chirp(0.1, 40000), chirp(0.15, 20000)], 0.02, 9)
  const [a, b, c] = await Promise.all(
    [0.05, 0.1, 0.15].map((at) => embeddingAt(samples, rate, at, 0.003, 10000, 160000)),
  )
  const same = dot(shapeOf(a), shapeOf(b)),
    lower = dot(shapeOf(a), shapeOf(c))
  assert.ok(same > 0.7 && same > lower + 0.4, `same chirp ${same}, an octave lower ${lower}`)
})

test.run()
