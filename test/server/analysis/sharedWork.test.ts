import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { SharedWork } from '../../../server/analysis/sharedWork.js'

// What a worker shares between the jobs it runs (the detectors the children of one discovery job learn): each key's
// work done once while it is kept, a failure tried again, the oldest forgotten past the bound.

test('work is done once per key, and each caller gets its result', async () => {
  const shared = new SharedWork<string>(8)
  let made = 0
  const make = async () => `learned ${++made}`
  const answers = await Promise.all([shared.once('a', make), shared.once('a', make), shared.once('a', make)])
  assert.equal(answers, ['learned 1', 'learned 1', 'learned 1'])
  assert.is(await shared.once('b', make), 'learned 2')
  assert.is(made, 2)
})

test('a failed work is forgotten: the next caller does it again', async () => {
  const shared = new SharedWork<string>(8)
  let tries = 0
  const make = async () => {
    if (++tries === 1) throw new Error('the tag set has no tags yet')
    return 'learned'
  }
  const failed = await shared.once('a', make).then(
    () => 'resolved',
    (e: Error) => e.message,
  )
  assert.is(failed, 'the tag set has no tags yet')
  assert.is(await shared.once('a', make), 'learned')
  assert.is(tries, 2)
})

test('past the bound the oldest is forgotten, the latest kept', async () => {
  const shared = new SharedWork<number>(2)
  let made = 0
  const make = async () => ++made
  for (const key of ['a', 'b', 'c']) await shared.once(key, make)
  assert.is(await shared.once('c', make), 3, 'the latest is kept')
  assert.is(await shared.once('a', make), 4, 'the oldest was forgotten')
})

test('two workers share nothing', async () => {
  const [one, other] = [new SharedWork<string>(8), new SharedWork<string>(8)]
  await one.once('job 7', async () => "the first database's detector")
  assert.is(await other.once('job 7', async () => "the second database's detector"), "the second database's detector")
})

test.run()
