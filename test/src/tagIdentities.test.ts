import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { TagIdentities, type TagIdentity } from '../../src/tagIdentities.js'

// The identities a dry run looks rows up in: exact on every one of the six numbers, in any order added, and again
// after more are added.

const tag = (mediaFile: number, tagClass: number, startTime: number, endTime = startTime + 3): TagIdentity => ({
  mediaFile,
  tagClass,
  startTime,
  endTime,
  minFrequency: 0,
  maxFrequency: 15000,
})

test('a tag is found only when all six numbers are equal', () => {
  const ids = new TagIdentities()
  for (const t of [tag(2, 1, 3), tag(1, 2, 0.1 + 0.2), tag(1, 1, 9), tag(3, 1, 0)]) ids.add(t)
  assert.ok(ids.has(tag(1, 2, 0.1 + 0.2)))
  assert.not.ok(ids.has(tag(1, 2, 0.3)), '0.3 is not 0.1 + 0.2, as the server compares doubles')
  assert.ok(ids.has(tag(3, 1, 0)))
  assert.not.ok(ids.has(tag(3, 1, 0, 4)))
  assert.not.ok(ids.has({ ...tag(2, 1, 3), maxFrequency: 12000 }))
  assert.not.ok(ids.has(tag(2, 2, 3)))
  ids.add(tag(2, 2, 3))
  assert.ok(ids.has(tag(2, 2, 3)), 'added after a lookup')
})

test('10^5 tags in random order, each found, none of their neighbours', () => {
  const ids = new TagIdentities()
  const all = Array.from({ length: 100_000 }, (_, i) => tag(1 + (i % 97), 1 + (i % 5), i * 1.5))
  for (const t of [...all].sort(() => Math.random() - 0.5)) ids.add(t)
  assert.ok(all.every((t) => ids.has(t)))
  assert.not.ok(all.some((t) => ids.has({ ...t, startTime: t.startTime + 0.25 })))
})

test.run()
