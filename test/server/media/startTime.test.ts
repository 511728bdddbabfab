import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  audioMothTime,
  bextTime,
  guanoTime,
  nameStartTime,
  parseTimeOffset,
  shiftTime,
  startTimeOf,
} from '../../../server/media/startTime.js'

// Start times as recorders write them (README, "Recording start times").

test('file names: the usual recorder patterns, the time as written; no date, or an impossible one, gives none', () => {
  const cases: Array<[string, string | null]> = [
    ['20260501_050000.WAV', '2026-05-01T05:00:00'],
    ['siteA/2026-05-01/20260501_050000.WAV', '2026-05-01T05:00:00'],
    ['SM4BAT_20260501_213015.wav', '2026-05-01T21:30:15'],
    ['S4A12345_20260501_050000.wav', '2026-05-01T05:00:00'],
    ['2026-05-01_05-00-00.flac', '2026-05-01T05:00:00'],
    ['2026-05-01 05:00:00.mp3', '2026-05-01T05:00:00'],
    ['20260501T050000.wav', '2026-05-01T05:00:00'],
    ['20260501-050000.wav', '2026-05-01T05:00:00'],
    ['take-3.wav', null],
    ['20261301_050000.WAV', null],
    ['20260230_050000.WAV', null],
    ['20260501_256000.WAV', null],
    ['120260501_050000.WAV', null],
  ]
  for (const [name, want] of cases) assert.is(nameStartTime(name), want, name)
})

test('metadata: AudioMoth comment (day/month/year), GUANO, bext', () => {
  assert.is(
    audioMothTime('Recorded at 05:00:00 01/05/2026 (UTC) by AudioMoth 24A04F085FDF2793 at medium gain'),
    '2026-05-01T05:00:00',
  )
  assert.is(audioMothTime('Recorded at 23:59:59 31/12/2025 (UTC+2) by AudioMoth'), '2025-12-31T23:59:59')
  assert.is(audioMothTime('Recorded at 05:00:00 31/02/2026'), null)
  assert.is(audioMothTime('a comment'), null)
  assert.is(guanoTime('GUANO|Version: 1.0\nTimestamp: 2026-05-05T22:00:00.123+02:00\n'), '2026-05-05T22:00:00')
  assert.is(guanoTime('GUANO|Version: 1.0\nMake: x\n'), null)
  assert.is(bextTime('2026-05-03', '21:15:00'), '2026-05-03T21:15:00')
  assert.is(bextTime('2026:05:03', '21-15-00'), '2026-05-03T21:15:00')
  assert.is(bextTime('', ''), null)
})

test('offsets and shifts, across midnight and the year', () => {
  assert.equal(['+02:00', '-05:30', '+0200', 'Z', '+24:00', '2h', ''].map(parseTimeOffset), [
    120,
    -330,
    120,
    0,
    null,
    null,
    null,
  ])
  assert.is(shiftTime('2026-12-31T23:30:00', 120), '2027-01-01T01:30:00')
  assert.is(shiftTime('2026-03-01T01:00:00', -330), '2026-02-28T19:30:00')
  assert.is(startTimeOf('metadata', '2026-05-01T05:00:00', '20990101_000000.WAV', 60), '2026-05-01T06:00:00')
  assert.is(startTimeOf('metadata', null, '20990101_000000.WAV'), '2099-01-01T00:00:00')
  assert.is(startTimeOf('name', '2026-05-01T05:00:00', 'x.WAV'), null)
  assert.is(startTimeOf('none', '2026-05-01T05:00:00', '20990101_000000.WAV'), null)
})

test.run()
