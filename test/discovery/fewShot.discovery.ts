import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Worker } from '../../server/jobs/worker.js'
import {
  episodeLines,
  FEW_SHOT_RATES,
  FEW_SHOT_SETS,
  fewShotTable,
  judged,
  loadFewShotSets,
  precisionRecallF,
  runFewShotSet,
  type FewShotClient,
  type FewShotSet,
} from '../../bench/fewShot.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { importMedia } from '../helpers/upload.js'

// Few-shot discovery within a recording on the four few-shot sets of the shared labelled recordings (npm run
// test:discovery; the data as bench:discovery finds it), by the protocol of bench/fewShot.ts through the API:
// F >= 0.7 in every set with calls to find, at each recording's own sample rate and resampled to 48,000 Hz.

const t = suiteApp(test)
let alice: TestUser
let sets: FewShotSet[] | undefined

const client: FewShotClient = {
  async api(method, path, body) {
    const res = await t.call(method, path, { as: alice, body })
    assert.ok(res.statusCode < 300, `${method} ${path}: ${res.statusCode} ${JSON.stringify(res.data)}`)
    return res.data
  },
  async upload(library, name, wav) {
    const res = await importMedia(t, alice, library, wav, { filename: name })
    assert.ok(res.statusCode === 201 || res.statusCode === 200, JSON.stringify(res.data))
    return res.data.id as number
  },
}

// set-up as a test of its own, so that a missing data folder is reported with its reason
test('the few-shot sets are found and read', async () => {
  try {
    sets = await loadFewShotSets()
  } catch (e) {
    throw new Error(`test:discovery needs the labelled recordings: ${(e as Error).message}`)
  }
  alice = await t.user('alice')
  const worker = new Worker({ db: t.db, config: t.app.config, pollMs: 20, threads: 2 }).start()
  t.beforeClose(() => worker.stop())
  assert.equal(
    sets.map((s) => s.name),
    [...FEW_SHOT_SETS],
  )
})

for (const name of FEW_SHOT_SETS) {
  for (const rate of FEW_SHOT_RATES) {
    test(`${name} at ${rate === 'own' ? 'its own rate' : `${rate} Hz`}: F >= 0.7 over the calls after the examples`, async () => {
      const set = sets?.find((s) => s.name === name)
      assert.ok(set, 'the few-shot sets were not read')
      const result = await runFewShotSet(client, set, rate)
      const lines = [...fewShotTable([result]), ...episodeLines(result)]
      console.log(lines.map((l) => `   ${l}`).join('\n'))
      if (!judged(result)) return // reported, not judged: no class of the set has a call to find (printed above)
      const { f } = precisionRecallF(result.total)
      assert.ok(f >= 0.7, `F ${f.toFixed(2)} < 0.7:\n${lines.join('\n')}`)
    })
  }
}

test.run()
