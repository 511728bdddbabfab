import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  iou,
  matchInOrder,
  MAX_CURVE_POINTS,
  RankedScores,
  scoresOf,
  strongestFirst,
} from '../../../server/analysis/evaluation.js'

// The arithmetic of evaluating detections (server/analysis/evaluation.ts): the IoU bound, one-to-one matching in
// ranking order, the ranking, average precision and the precision-recall curve.

const span = (start: number, end: number) => ({ start, end })
const near = (a: number | null, b: number, what: string) =>
  assert.ok(a !== null && Math.abs(a - b) < 1e-12, `${what}: ${a} is not ${b}`)

test('the IoU bound: at it a match, below it none; decimal times equal to the bound match', () => {
  assert.equal(matchInOrder([span(10, 13)], [span(10, 20)], 0.3), [0])
  assert.equal(matchInOrder([span(10, 12.9)], [span(10, 20)], 0.3), [-1])
  // 0.3 / 1.0000000000000002 is a rounding below 0.3
  assert.ok(iou(span(1.1, 1.4), span(1.1, 2.1)) < 0.3)
  assert.equal(matchInOrder([span(1.1, 1.4)], [span(1.1, 2.1)], 0.3), [0])
  assert.equal(matchInOrder([span(0, 1)], [span(0, 1)], 1), [0])
  assert.equal(matchInOrder([span(0, 1)], [span(2, 3)], 0.3), [-1])
})

test('each call is matched once, to the detection first in the ranking; a detection takes the call it overlaps most', () => {
  assert.equal(matchInOrder([span(10, 11.9), span(12, 14)], [span(10, 14)], 0.3), [0, -1])
  // the long detection overlaps both calls (IoU 0.31 and 0.4): first, it takes the second; second, the first
  const long = span(11, 13.2),
    short = span(13.3, 14),
    calls = [span(10, 12), span(12, 14)]
  assert.equal(matchInOrder([long, short], calls, 0.3), [1, -1])
  assert.equal(matchInOrder([short, long], calls, 0.3), [1, 0])
  // equal overlaps: the first call
  assert.equal(matchInOrder([span(1, 2)], [span(0, 2), span(1, 3)], 0.3), [0])
})

test('ranking: strongest first, ties by id, a strength that is not a number last', () => {
  const ranked = [
    { id: 5, strength: NaN },
    { id: 1, strength: 0.5 },
    { id: 4, strength: 0.9 },
    { id: 2, strength: 0.9 },
    { id: 3, strength: Infinity },
    { id: 6, strength: -Infinity },
    { id: 0, strength: NaN },
  ].sort(strongestFirst)
  assert.equal(
    ranked.map((r) => r.id),
    [3, 2, 4, 1, 6, 0, 5],
  )
})

test("average precision: each match's precision at its rank, summed, over the calls; counts at a threshold", () => {
  // ranked: match, miss, match, miss, match, of 4 calls
  const scored = [0.9, 0.8, 0.7, 0.6, 0.5].map((strength, i) => ({ id: i + 1, strength, matched: i % 2 === 0 }))
  const all = scoresOf(scored, 4)
  near(all.averagePrecision, (1 + 2 / 3 + 3 / 5) / 4, 'AP')
  assert.equal([all.detections, all.tp, all.fp, all.fn, all.precision, all.recall], [5, 3, 2, 1, 0.6, 0.75])
  near(all.fMeasure, 2 / 3, 'F')
  const above = scoresOf(scored, 4, 0.7)
  assert.equal([above.detections, above.tp, above.fp, above.fn, above.recall], [3, 2, 1, 2, 0.5])
  near(above.precision, 2 / 3, 'P at 0.7')
  near(above.fMeasure, 4 / 7, 'F at 0.7')
  assert.is(above.averagePrecision, all.averagePrecision, 'AP does not depend on the threshold')
  assert.equal(
    all.curve.map((p) => [p.threshold, p.precision, p.recall]),
    [
      [0.9, 1, 0.25],
      [0.8, 0.5, 0.25],
      [0.7, 2 / 3, 0.5],
      [0.6, 0.5, 0.5],
      [0.5, 0.6, 0.75],
    ],
  )
})

test('nothing to find, nothing found: null where a ratio has no denominator, 0 where it is 0', () => {
  const none = scoresOf([], 3)
  assert.equal([none.precision, none.recall, none.fMeasure, none.averagePrecision, none.fn], [null, 0, null, 0, 3])
  const noCalls = scoresOf([{ id: 1, strength: 0.5, matched: false }], 0)
  assert.equal(
    [noCalls.precision, noCalls.recall, noCalls.fMeasure, noCalls.averagePrecision, noCalls.fp],
    [0, null, null, null, 1],
  )
  const missed = scoresOf([{ id: 1, strength: 0.5, matched: false }], 2)
  assert.equal([missed.precision, missed.recall, missed.fMeasure, missed.averagePrecision], [0, 0, 0, 0])
})

test('the curve: one point per distinct strength, those not numbers last with no threshold', () => {
  const scored = [
    { id: 1, strength: 0.5, matched: true },
    { id: 2, strength: 0.5, matched: false },
    { id: 3, strength: NaN, matched: true },
  ]
  assert.equal(scoresOf(scored, 2).curve, [
    { threshold: 0.5, precision: 0.5, recall: 0.5 },
    { threshold: null, precision: 2 / 3, recall: 1 },
  ])
})

test('the curve of many distinct strengths is thinned to at most MAX_CURVE_POINTS, from the strongest to the last', () => {
  const n = 20_000
  const acc = new RankedScores()
  for (let i = 0; i < n; i++) acc.add(1 - i / n, i % 3 === 0)
  const curve = acc.curve(n)
  assert.ok(curve.length <= MAX_CURVE_POINTS && curve.length > MAX_CURVE_POINTS / 2, `${curve.length} points`)
  assert.is(curve[0].threshold, 1)
  assert.is(curve[curve.length - 1].threshold, 1 - (n - 1) / n)
  near(curve[curve.length - 1].recall, Math.ceil(n / 3) / n, 'recall of every detection')
  for (let i = 1; i < curve.length; i++) assert.ok(curve[i].threshold! < curve[i - 1].threshold!, 'strongest first')
})

test.run()
