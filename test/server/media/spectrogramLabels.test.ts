import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { placeLabels } from '../../../server/media/spectrogramPicture.js'

// The labels of tags in a spectrogram picture never cover each other: a label that would is moved down.

const plot = { x0: 0, x1: 500, y0: 0, y1: 300 }
const box = (x0: number, y0: number, x1 = x0 + 100, y1 = y0 + 100, width = 60) => ({ x0, y0, x1, y1, width })

test("a label goes at its box's top left corner when it covers no other", () => {
  assert.equal(placeLabels([box(10, 10), box(200, 10)], plot), [
    { x: 11, y: 11, width: 60 },
    { x: 201, y: 11, width: 60 },
  ])
})

test('labels of boxes at one place are stacked, none covering another', () => {
  const placed = placeLabels([box(10, 10), box(10, 10), box(30, 12)], plot)
  assert.equal(
    placed.map((p) => p.y),
    [11, 27, 45],
  )
  for (let i = 0; i < placed.length; i++) {
    for (let j = i + 1; j < placed.length; j++) {
      const [a, b] = [placed[i], placed[j]]
      assert.ok(
        a.y + 15 <= b.y || b.y + 15 <= a.y || a.x + a.width <= b.x || b.x + b.width <= a.x,
        `${i} and ${j} overlap`,
      )
    }
  }
})

test('with no free place left in the plot, a label stays at its corner', () => {
  const low = { x0: 0, x1: 500, y0: 0, y1: 30 }
  assert.equal(
    placeLabels([box(10, 10, 110, 30), box(10, 10, 110, 30)], low).map((p) => p.y),
    [11, 11],
  )
})

test.run()
