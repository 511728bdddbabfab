import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { SUPERVISED_TAG_DISCOVERY } from '../../server/analysis/catalog.js'
import {
  episodesOf,
  iou,
  mergeOverlapping,
  precisionRecallF,
  score,
  windowOf,
  type LabelledCall,
  type Recording,
} from '../../bench/fewShot.js'

// The few-shot protocol's own arithmetic (bench/fewShot.ts): which calls are examples and which are to be
// found, and the scorer — overlapping tags merged, tags before the last example's end not counted, a match
// at time IoU >= 0.3, strongest tags first, each call matched once.

const tag = (start: number, end: number, strength = 0.9) => ({ start, end, strength })
const call = (start: number, end: number) => ({ start, end })

test('overlapping tags merge into their union with the strongest strength; touching and apart tags stay', () => {
  const merged = mergeOverlapping([
    tag(2.9, 4, 0.6),
    tag(1, 2, 0.5),
    tag(1.5, 2.5, 0.8),
    tag(2.4, 3, 0.7),
    tag(5, 6, 0.4),
    tag(6, 7, 0.3),
  ])
  assert.equal(merged, [tag(1, 4, 0.8), tag(5, 6, 0.4), tag(6, 7, 0.3)])
})

test('IoU is the time intersection over the union', () => {
  assert.is(iou(call(0, 1), call(0, 1)), 1)
  assert.is(iou(call(0, 1), call(2, 3)), 0)
  assert.is(iou(call(0, 2), call(1, 3)), 1 / 3)
  assert.is(iou(call(0, 1), call(0, 4)), 0.25)
})

test('a tag matches a call at IoU 0.3 or more, not below', () => {
  assert.equal(score([tag(10, 13)], [call(10, 20)], 0), { counted: 1, tp: 1, fp: 0, fn: 0 })
  assert.equal(score([tag(10, 12.9)], [call(10, 20)], 0), { counted: 1, tp: 0, fp: 1, fn: 1 })
})

test('each call is matched once: a second tag on it is a false positive', () => {
  assert.equal(score([tag(10, 11.9, 0.9), tag(12, 14, 0.8)], [call(10, 14)], 0), { counted: 2, tp: 1, fp: 1, fn: 0 })
})

test('tags are matched strongest first, each to the unmatched call it overlaps most', () => {
  // the long tag overlaps both calls (IoU 0.31 and 0.4), the short one the second call only (0.35)
  const calls = [call(10, 12), call(12, 14)]
  const long = (strength: number) => tag(11, 13.2, strength),
    short = (strength: number) => tag(13.3, 14, strength)
  // stronger, the long tag takes the second call, and the short tag finds it taken
  assert.equal(score([short(0.5), long(0.9)], calls, 0), { counted: 2, tp: 1, fp: 1, fn: 1 })
  // weaker, it finds the second call taken and matches the first
  assert.equal(score([short(0.9), long(0.5)], calls, 0), { counted: 2, tp: 2, fp: 0, fn: 0 })
})

test('merging comes before matching: two halves of a call merged are one true positive', () => {
  assert.equal(score([tag(10, 11.2, 0.6), tag(11, 12, 0.7)], [call(10, 12)], 0), { counted: 1, tp: 1, fp: 0, fn: 0 })
})

test('tags starting before the last example ends are not counted', () => {
  const calls = [call(20, 21)]
  assert.equal(score([tag(4, 5), tag(9.5, 10), tag(20, 21), tag(10, 10.4)], calls, 10), {
    counted: 2,
    tp: 1,
    fp: 1,
    fn: 0,
  })
  // a tag merged with one that starts earlier starts earlier
  assert.equal(score([tag(9.8, 20.2, 0.2), tag(20, 21)], calls, 10), { counted: 0, tp: 0, fp: 0, fn: 1 })
})

test('precision, recall and F of pooled counts; none found is 0, not NaN', () => {
  assert.equal(precisionRecallF({ counted: 4, tp: 3, fp: 1, fn: 3 }), { p: 0.75, r: 0.5, f: 0.6 })
  assert.equal(precisionRecallF({ counted: 0, tp: 0, fp: 0, fn: 2 }), { p: 0, r: 0, f: 0 })
})

const labelled = (label: string, start: number, end: number): LabelledCall => ({
  file: 'r.wav',
  label,
  start,
  end,
  lowHz: 1000,
  highHz: 4000,
})
const recording = (calls: LabelledCall[]): Recording => ({
  name: 'r.wav',
  bytes: Buffer.alloc(0),
  samples: new Float32Array(0),
  sampleRate: 22050,
  calls,
})

test('the first min(5, calls - 1) calls of a class by start time are its examples; the later ones are to be found', () => {
  const many = Array.from({ length: 8 }, (_, i) => labelled('b', 7 - i, 7.5 - i)) // listed last call first
  const { episodes, skipped } = episodesOf(
    recording([labelled('a', 5, 6), labelled('a', 1, 2), labelled('a', 3, 4), ...many, labelled('c', 2, 3)]),
  )
  assert.equal(
    episodes.map((e) => [e.label, e.examples.map((c) => c.start), e.toFind.map((c) => c.start), e.after]),
    [
      ['a', [1, 3], [5], 4],
      ['b', [0, 1, 2, 3, 4], [5, 6, 7], 4.5],
    ],
  )
  assert.equal(skipped, [{ recording: 'r.wav', label: 'c', calls: 1, reason: 'fewer than 2 calls' }])
})

test("the window is the examples' median length, not below the job type's declared minimum", () => {
  assert.is(windowOf([call(0, 0.2), call(1, 1.4), call(2, 2.3)]).toFixed(6), '0.300000')
  assert.is(windowOf([call(0, 0.2), call(1, 1.4)]).toFixed(6), '0.300000')
  const least = Math.max(0.001, SUPERVISED_TAG_DISCOVERY.params.windowSizeInSeconds.min ?? 0)
  assert.is(windowOf([call(0, 0.0001), call(1, 1.0001)]), least)
})

test.run()
