import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { unitShape } from '../../server/analysis/features.js'
import { likenessIndex, nearestAbove } from '../../server/analysis/likeness.js'
import { seededRandom } from '../../server/analysis/random.js'

// The likeness of a window to a set of shapes, measured through a basis of their span with bounds that give up
// early: whatever the floor, the answer is the largest correlation when it is above the floor, and at most the
// floor otherwise, as measuring every shape would say.

const SIZE = 256
const random = seededRandom(11)
const unit = (v: Float32Array) => unitShape(v)
const noise = () => unit(Float32Array.from({ length: SIZE }, () => random() - 0.5))
/** `n` shapes near one another: a call and its variants */
const family = (n: number) => {
  const base = noise()
  return Array.from({ length: n }, () => unit(base.map((x) => x + (0.6 * (random() - 0.5)) / Math.sqrt(SIZE))))
}
const brute = (shapes: Float32Array[], s: Float32Array) =>
  Math.max(...shapes.map((t) => t.reduce((sum, x, i) => sum + x * s[i], 0)))

test('above the floor the likeness is the largest correlation; below it, at most the floor', () => {
  for (const shapes of [family(128), [...family(20), ...family(20)], Array.from({ length: 7 }, noise), family(1)]) {
    const index = likenessIndex(shapes, SIZE)
    const windows = [
      ...Array.from({ length: 40 }, noise),
      ...shapes.slice(0, 5).map((s) => unit(s.map((x) => x + 0.02 * (random() - 0.5)))),
    ]
    for (const w of windows) {
      const exact = brute(shapes, w)
      for (const floor of [-Infinity, -0.2, 0, 0.1, 0.3, 0.5, 0.9, exact - 1e-3, exact + 1e-3]) {
        const got = nearestAbove(index, w, floor)
        if (exact > floor + 1e-4) assert.ok(Math.abs(got - exact) < 1e-5, `floor ${floor}: ${got} for ${exact}`)
        else
          assert.ok(got <= floor + 1e-4 || Math.abs(got - exact) < 1e-5, `floor ${floor}: ${got} above it for ${exact}`)
      }
    }
  }
})

test('no shapes, or only flat ones, are a likeness of 0', () => {
  assert.is(nearestAbove(likenessIndex([], SIZE), noise()), 0)
  assert.is(nearestAbove(likenessIndex([new Float32Array(SIZE)], SIZE), noise(), 0.5), 0)
})

test.run()
