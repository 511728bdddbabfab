import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { recordingWav } from '../../../bench/longRecording.js'
import { audioInMemory } from '../../../server/analysis/audioSource.js'
import { decibels, frameLayout, framesOf, spectrogram, type SpectraSettings } from '../../../server/analysis/spectra.js'
import { decodeAudio } from '../../../server/analysis/decode.js'
import { foldPart, partsOf, type StretchPlan } from '../../../server/media/overview.js'
import { ColumnFold, STATISTICS } from '../../../server/media/pictureColumns.js'
import { Readable } from 'node:stream'

// A long stretch's picture is folded in parts (one a thread), each read from a little before its first frame:
// the parts merged are the fold of one pass over the stretch (240,000 frames), whatever the smoothing; and one pass over
// chunks is the spectrogram of the samples in memory, frame for frame.

const RATE = 8000
const FRAMES = 20 * 60 * RATE
const wav = Buffer.concat([...recordingWav(FRAMES, { sampleRate: RATE, seed: 9, callEvery: 5 })])
const settings = (damping: number): SpectraSettings => ({
  bands: 64,
  minFrequency: 0,
  maxFrequency: 4000,
  framesPerSecond: 200,
  damping,
})

for (const damping of [0, 0.1, 0.9]) {
  for (const statistic of STATISTICS) {
    test(`damping ${damping}, ${statistic}: three parts merged are one pass`, async () => {
      const source = await audioInMemory(wav)
      const l = frameLayout(RATE, settings(damping))
      const range = { from: 12_345, to: FRAMES - 999 }
      const frames = framesOf(l, range.to - range.from)
      const plan: StretchPlan = {
        range,
        sampleRate: RATE,
        settings: settings(damping),
        frames,
        columns: 1000,
        statistic,
      }
      const whole = (await foldPart(source, plan, { from: 0, to: frames })).result(decibels)
      const parts = partsOf(frames, 3)
      assert.is(parts.length, 3)
      const merged = new ColumnFold(frames, 1000, l.bands, statistic)
      for (const part of parts) merged.merge((await foldPart(source, plan, part)).state)
      const m = merged.result(decibels)
      let worst = 0
      for (let i = 0; i < m.length; i++) worst = Math.max(worst, Math.abs(m[i] - whole[i]))
      // the smoothing's share of what came before the warm-up is under 10^-6: a few units of a float's last place
      assert.ok(worst < 1e-4, `worst difference ${worst} dB`)
    })
  }
}

test('a stretch of fewer frames than columns is folded a frame a column: the spectrogram of the samples', async () => {
  const source = await audioInMemory(wav)
  const l = frameLayout(RATE, settings(0.1))
  const range = { from: 100_000, to: 100_000 + 4 * RATE }
  const frames = framesOf(l, range.to - range.from)
  const fold = await foldPart(
    source,
    { range, sampleRate: RATE, settings: settings(0.1), frames, columns: frames, statistic: 'max' },
    { from: 0, to: frames },
  )
  const samples = (await decodeAudio(Readable.from([wav]))).samples.subarray(range.from, range.to)
  const s = await spectrogram(samples, RATE, settings(0.1))
  assert.is(s.frames, frames)
  assert.equal(Array.from(fold.result(decibels)), Array.from(s.data))
})

test('parts: one for a stretch of at most 100,000 frames, else one a thread, covering every frame once', () => {
  assert.equal(partsOf(100_000, 2), [{ from: 0, to: 100_000 }])
  assert.equal(partsOf(100_001, 4), [
    { from: 0, to: 50_000 },
    { from: 50_000, to: 100_001 },
  ])
  assert.equal(partsOf(1_000_000, 2), [
    { from: 0, to: 500_000 },
    { from: 500_000, to: 1_000_000 },
  ])
})

test.run()
