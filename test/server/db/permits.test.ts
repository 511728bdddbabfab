import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Permits } from '../../../server/db/permits.js'

const settled = () => new Promise<void>((resolve) => setImmediate(resolve))

test('at most `limit` at once; the others start in turn as permits are handed on, failures included', async () => {
  const permits = new Permits(2)
  const finish: Array<(fail: boolean) => void> = []
  const started: number[] = []
  const runs = Array.from({ length: 5 }, (_, i) =>
    permits.run(
      () =>
        new Promise<number>((resolve, reject) => {
          started.push(i)
          finish[i] = (fail) => (fail ? reject(new Error(`run ${i}`)) : resolve(i))
        }),
    ),
  )
  const results = Promise.allSettled(runs)
  await settled()
  assert.equal([started, permits.inUse], [[0, 1], 2])
  finish[1](true)
  await settled()
  assert.equal(started, [0, 1, 2])
  finish[0](false)
  finish[2](false)
  await settled()
  assert.equal([started, permits.inUse], [[0, 1, 2, 3, 4], 2])
  finish[3](false)
  finish[4](false)
  assert.equal(
    (await results).map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled'],
  )
  assert.is(permits.inUse, 0)
})

test.run()
