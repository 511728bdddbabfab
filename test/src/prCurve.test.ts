import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { MANY_COLOURS, OTHER_COLOUR } from '../../server/analysis/charts.js'
import { precisionRecallPng, type CurveClass } from '../../src/prCurve.js'
import { pixels } from '../helpers/png.js'

// The precision-recall curves of `mas eval -o` (src/prCurve.ts), read from the PNG's pixels: a colour per class in
// the legend, names whole, and a note on a plot with no curve.

// where src/prCurve.ts draws: the plot's corners, the legend's lines
const PLOT = { left: 64, top: 40, size: 420 }
const legendLine = (i: number) => ({ x: PLOT.left + PLOT.size + 16 + 9, y: PLOT.top + 10 + i * 18 })
const hex = ([r, g, b]: number[]) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`

const classes = (n: number, name = (i: number) => `class ${i + 1}`): CurveClass[] =>
  Array.from({ length: n }, (_, i) => ({
    className: name(i),
    gold: 100 - i,
    averagePrecision: 0.5,
    curve: [
      { precision: 1, recall: 0.1 },
      { precision: 0.5, recall: 0.5 + i / 100 },
    ],
  }))

/** pixels of the note's grey (#666666) in the middle of the plot */
function notePixels(p: Awaited<ReturnType<typeof pixels>>): number {
  let n = 0
  const mid = PLOT.left + PLOT.size / 2
  for (let y = PLOT.top + 180; y < PLOT.top + 260; y++)
    for (let x = mid - 150; x < mid + 150; x++) {
      const [r, g, b] = p.at(x, y)
      if (Math.abs(r - 0x66) < 30 && Math.abs(g - 0x66) < 30 && Math.abs(b - 0x66) < 30) n++
    }
  return n
}

test('14 classes: 14 colours in the legend, each once', async () => {
  const p = await pixels(await precisionRecallPng('14 classes', classes(14)))
  const colours = Array.from({ length: 14 }, (_, i) => hex(p.at(legendLine(i).x, legendLine(i).y)))
  assert.is(new Set(colours).size, 14, colours.join(' '))
  assert.ok(
    colours.every((c) => MANY_COLOURS.includes(c)),
    colours.join(' '),
  )
})

test('more than 18 classes: 17 colours, then one grey entry for the classes of the fewest gold tags', async () => {
  const p = await pixels(await precisionRecallPng('24 classes', classes(24)))
  const colours = Array.from({ length: 18 }, (_, i) => hex(p.at(legendLine(i).x, legendLine(i).y)))
  assert.is(new Set(colours.slice(0, 17)).size, 17, colours.join(' '))
  assert.is(colours[17], OTHER_COLOUR)
  assert.equal(p.at(legendLine(18).x, legendLine(18).y), [255, 255, 255, 255], 'no 19th entry')
})

test("the image is as wide as the legend's longest label", async () => {
  const short = await pixels(await precisionRecallPng('short', classes(2)))
  const long = await pixels(
    await precisionRecallPng(
      'long',
      classes(2, (i) => `Dendrocopos major (drumming) and its echo ${i}`),
    ),
  )
  assert.ok(long.width > short.width + 50, `${long.width} against ${short.width}`)
  // the label's last characters are drawn before the right edge, which stays white
  let inked = 0
  for (let x = long.width - 60; x < long.width - 8; x++) if (long.at(x, legendLine(0).y)[0] < 128) inked++
  assert.ok(inked > 0, 'the end of the label is drawn')
  for (let y = 0; y < long.height; y++) assert.equal(long.at(long.width - 1, y), [255, 255, 255, 255])
})

test('no curve to draw: the plot says so; with curves it says nothing', async () => {
  const empty = await pixels(await precisionRecallPng('nothing', []))
  assert.ok(notePixels(empty) > 200, `${notePixels(empty)} pixels of the note`)
  // classes without gold tags (no recall) draw no curve either
  const noGold = await pixels(
    await precisionRecallPng('no gold', [
      { className: 'robin', gold: 0, averagePrecision: null, curve: [{ precision: 0, recall: null }] },
    ]),
  )
  assert.ok(notePixels(noGold) > 200)
  assert.is(notePixels(await pixels(await precisionRecallPng('some', classes(3)))), 0)
})

test('a line at precision 1 is drawn inside the frame, not on it', async () => {
  const curve = [
    { precision: 1, recall: 0 },
    { precision: 1, recall: 0.6 },
  ]
  const p = await pixels(
    await precisionRecallPng('perfect', [{ className: 'owl', gold: 3, averagePrecision: 1, curve }]),
  )
  const colour = hex(p.at(legendLine(0).x, legendLine(0).y))
  const inset = 8
  const atPrecisionOne = PLOT.top + inset
  const xAt = (recall: number) => Math.round(PLOT.left + inset + recall * (PLOT.size - 2 * inset))
  assert.is(hex(p.at(xAt(0.3), atPrecisionOne)), colour)
  // the frame's top edge keeps its own grey (antialiased black) where the line runs below it
  const [r, g, b] = p.at(xAt(0.3), PLOT.top)
  assert.ok(r === g && g === b && r < 160, `the frame at precision 1 is ${hex([r, g, b])}`)
})

test.run()
