import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openAudio, type AudioSource, type MonoChunk } from '../../server/analysis/audioSource.js'
import { trainDetector } from '../../server/analysis/detector.js'
import {
  BANDS, bandFloor, dot, frameGrid, framesIn, melFilters, melFrames, samplesFor, SLICES, windowShape,
} from '../../server/analysis/features.js'
import { planFile, scanBlocks, strongestApart } from '../../server/analysis/scan.js'
import { splitBlocks } from '../../server/analysis/threads.js'
import { LocalStorage } from '../../server/storage/local.js'
import { signal, wavOf } from '../helpers/signals.js'
import { tempDir } from '../helpers/tempDir.js'

// The features discovery compares, on generated audio: frames read as a stream of small chunks from a
// long stored file equal those of the same samples held whole; a file scanned in parts (as threads do)
// gives what it gives scanned at once; and a call at 22,050 and at 48,000 Hz has the same shape.

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
  const grid = frameGrid(rate)
  const filters = melFilters(grid, { lo: 500, hi: 9000 })
  for (const [first, count] of [[0, 200], [1234, 1800], [framesIn(grid, samples.length) - 300, 300]]) {
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
  const grid = frameGrid(rate)
  const filters = melFilters(grid, { lo: 900, hi: 8400 })
  const frames = await melFrames(whole(samples, 0, samples.length), grid, filters, 0, framesIn(grid, samples.length))
  const template = windowShape(frames, 0, Math.round(5 / grid.frameSeconds), Math.round(0.3 / grid.frameSeconds), bandFloor(frames, 0, 0, 1500))
  const detector = trainDetector({ lo: 900, hi: 8400 }, [{ shape: template, tagClass: 1, minFrequency: 1800, maxFrequency: 4200 }], [])
  const plan = planFile(rate, samples.length, 0.3)
  assert.is(plan.blocks, 3)
  const once = await scanBlocks(source, detector, plan, 0, plan.blocks, 10, 0.5)
  const parts = await Promise.all(splitBlocks(plan.blocks, 3).map(([a, b]) => scanBlocks(source, detector, plan, a, b, 10, 0.5)))
  assert.is(parts.reduce((n, p) => n + p.windows, 0), once.windows)
  assert.is(Math.max(...parts.map((p) => p.best)), once.best)
  assert.equal(strongestApart(parts.flatMap((p) => p.candidates), 10), once.candidates)
  const starts = once.candidates.map((c) => Math.round(c.start * 10) / 10).sort((a, b) => a - b)
  assert.equal(starts, [5, 29.9, 31, 61, 95])
})

test('a call has the same shape at 22,050 and at 48,000 Hz', async () => {
  const shapeAt = async (rate: number) => {
    const samples = signal(4, rate, [call(2)], 0.02, 5)
    const grid = frameGrid(rate)
    const frames = await melFrames(whole(samples, 0, samples.length), grid, melFilters(grid, { lo: 900, hi: 8400 }), 0, framesIn(grid, samples.length))
    const floor = bandFloor(frames, 0, 0, framesIn(grid, samples.length))
    return windowShape(frames, 0, Math.round(2 / grid.frameSeconds), Math.round(0.3 / grid.frameSeconds), floor)
  }
  const [a, b] = [await shapeAt(22050), await shapeAt(48000)]
  assert.is(a.length, SLICES * BANDS)
  assert.ok(dot(a, b) > 0.95, `correlation ${dot(a, b)}`)
})

test.run()
