import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { audioInMemory } from '../../server/analysis/audioSource.js'
import {
  openSpeechModel,
  SPEECH_BATCHES,
  speechChances,
  spansOf,
  type SpeechBatches,
} from '../../server/analysis/models/speech.js'
import { signal, wavOf } from '../helpers/signals.js'
import { spoken, voiced } from '../helpers/speech.js'

// The speech detector runs a recording's 32 ms steps in batches: blocks of steps side by side, each warmed up on
// the seconds before it. A minute of espeak-ng sentences among chirps, some across the blocks' edges, run in blocks
// of 6.4 s four at a time (three groups, the last one short) and in the blocks a job uses: the first block's chances
// are a step-by-step run's, and the spans found cover the spoken seconds as a step-by-step run's do.

const RATE = 22_050
const SECONDS = 61.3
const SENTENCES: Array<[number, string]> = [
  [2, 'Recording number four, site B, north transect.'],
  [11.5, 'Meet me by the old oak tree at noon.'], // across the edge at 12.8 s
  [24.9, 'Did you hear the blackbird singing this morning?'], // across 25.6 s
  [50, 'We will come back to collect the cards on Friday.'],
]

function recording(): { samples: Float32Array; spoken: Array<{ start: number; end: number }> } {
  const chirps = Array.from({ length: Math.floor(SECONDS / 0.7) }, (_, i) => ({
    from: i * 0.7 + 0.1,
    to: i * 0.7 + 0.22,
    frequency: 2500,
    toFrequency: 5500,
    amplitude: 0.2,
  }))
  const samples = signal(SECONDS, RATE, chirps, 0.01, 3)
  const truth = SENTENCES.map(([at, text]) => {
    const speech = spoken(text, { voice: 'en' })
    const from = Math.round(at * RATE)
    for (let k = 0; k < speech.samples.length && from + k < samples.length; k++)
      samples[from + k] += 0.8 * speech.samples[k]
    const where = voiced(speech.samples, speech.sampleRate)
    return { start: at + where.start, end: at + where.end }
  })
  return { samples, spoken: truth }
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start))

test('steps run in batches of blocks find the spoken seconds a step-by-step run finds', async () => {
  const { samples, spoken: truth } = recording()
  const wav = wavOf(samples, RATE)
  const session = await openSpeechModel()
  const chancesWith = async (batches: SpeechBatches) => speechChances(session, await audioInMemory(wav), batches)
  const oneByOne = await chancesWith({ lanes: 1, blockSteps: 4000, warmSteps: 128 }) // one block: each step after the last
  const small = await chancesWith({ lanes: 4, blockSteps: 200, warmSteps: SPEECH_BATCHES.warmSteps })
  assert.is(small.length, Math.ceil((SECONDS * 16_000) / 512))
  assert.is(oneByOne.length, small.length)
  // the first block has nothing before it: the same chances
  for (let i = 0; i < 200; i++)
    assert.ok(Math.abs(small[i] - oneByOne[i]) < 1e-5, `step ${i}: ${small[i]} against ${oneByOne[i]}`)
  const spoken = truth.reduce((n, s) => n + s.end - s.start, 0)
  for (const [name, chances] of [
    ['step by step', oneByOne],
    ['blocks of 6.4 s', small],
    ["a job's blocks", await chancesWith(SPEECH_BATCHES)],
  ] as const) {
    const spans = spansOf(chances, SECONDS)
    const tagged = spans.reduce((n, s) => n + s.end - s.start, 0)
    const both = spans.reduce((n, s) => n + truth.reduce((m, t) => m + overlap(s, t), 0), 0)
    assert.ok(
      both / spoken >= 0.9,
      `${name}: ${((100 * both) / spoken).toFixed(1)}% of the spoken seconds tagged: ${JSON.stringify(spans)}`,
    )
    assert.ok(
      both / tagged >= 0.9,
      `${name}: ${((100 * both) / tagged).toFixed(1)}% of the tagged seconds spoken: ${JSON.stringify(spans)}`,
    )
    for (const t of truth)
      assert.ok(
        spans.some((s) => overlap(s, t) > 0),
        `${name}: nothing found of ${JSON.stringify(t)}`,
      )
  }
})

test.run()
