import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Worker } from '../../server/jobs/worker.js'
import {
  discoveryDataDir,
  hiddenCalls,
  trainingTags,
  loadDiscoveryData,
  resampled,
  type DiscoveryData,
  type HiddenCall,
} from '../../bench/discoveryData.js'
import { wavOf } from '../helpers/signals.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { waitForStatus } from '../helpers/jobs.js'
import { importMedia } from '../helpers/upload.js'

// Discovery on real labelled field recordings (npm run test:discovery; the data as bench:discovery finds
// it): SupervisedTagDiscovery through the API, learning from the labelled training calls tagged with their
// band and full-band, puts its strongest tag on the hidden call in at least 8 of 10 hidden-call files
// (seed 1) at 22,050 and at 48,000 Hz. The benchmark holds the full target (9 of 10) and the AUC.

const t = suiteApp(test)
let alice: TestUser
let data: DiscoveryData
let library: number
let window: number
const sources: Record<'band' | 'full', number> = { band: 0, full: 0 }
let hidden: HiddenCall[]

const api = async (method: string, url: string, body?: unknown) => {
  const res = await t.call(method, `/api/v0/${url}`, { as: alice, body })
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${JSON.stringify(res.data)}`)
  return res.data
}

const upload = async (name: string, bytes: Buffer) => {
  const res = await importMedia(t, alice, library, bytes, { filename: name })
  assert.ok(res.statusCode === 201 || res.statusCode === 200, JSON.stringify(res.data))
  return res.data.id as number
}

// set-up as a test of its own, so that a missing data folder is reported with its reason
test('the labelled recordings are found, imported and tagged', async () => {
  const found = discoveryDataDir()
  if ('error' in found) throw new Error(`test:discovery needs the labelled recordings: ${found.error}`)
  data = await loadDiscoveryData(found.dir)
  window = [...data.train.map((c) => c.end - c.start)].sort((a, b) => a - b)[Math.floor(data.train.length / 2)]
  hidden = hiddenCalls(data, 10, 1)
  alice = await t.user('alice')
  library = (await api('POST', 'library/', { name: 'currawong' })).id
  const cls = (await api('POST', 'tagClass/', { className: 'currawong', displayName: 'Pied currawong', library })).id
  const train: number[] = []
  for (const c of data.train) train.push(await upload(`train-${c.name}`, wavOf(c.samples, c.sampleRate)))
  for (const banded of [true, false]) {
    const set = (await api('POST', 'tagSet/', { name: banded ? 'band' : 'full band', library })).id
    const tags = await trainingTags(data, train, { tagSet: set, tagClass: cls }, banded)
    await api('POST', 'tag/', tags)
    sources[banded ? 'band' : 'full'] = set
  }
  const worker = new Worker({ db: t.db, config: t.app.config, pollMs: 20, threads: 2 }).start()
  t.beforeClose(() => worker.stop())
  assert.ok(data.train.length > 0 && hidden.length === 10)
})

for (const rate of [22050, 48000]) {
  for (const examples of ['band', 'full'] as const) {
    test(`the strongest tag is on the hidden call in at least 8 of 10 files at ${rate} Hz, learning from ${examples === 'band' ? 'band-limited' : 'full-band'} examples`, async () => {
      assert.ok(hidden, 'the labelled recordings were not set up')
      const files: number[] = []
      for (const h of hidden)
        files.push(await upload(`${examples}-${rate}-${h.name}`, wavOf(resampled(h.samples, h.sampleRate, rate), rate)))
      const destination = (await api('POST', 'tagSet/', { name: `found ${examples} ${rate}`, library })).id
      const project = (await api('POST', 'project/', { name: `hidden ${examples} ${rate}`, type: 1 })).id
      for (const id of files) await api('POST', `project/${project}/mediaFiles/add/`, { id })
      const job = await api('POST', 'jobs/', {
        name: 'find',
        project,
        type: 1,
        parameters: {
          sourceTagSet: String(sources[examples]),
          destinationTagSet: String(destination),
          numberOfTagsToDiscover: '1',
          windowSizeInSeconds: String(window),
        },
      })
      assert.is((await waitForStatus(t.db, job.id, [4, 5, 6], 300)).status_id, 6)
      const tags = (await api('GET', `tag/?tagSet=${destination}&page_size=100`)).results as Array<{
        mediaFile: number
        startTime: number
        endTime: number
      }>
      const hits = hidden.filter((h, i) =>
        tags.some((g) => g.mediaFile === files[i] && g.startTime < h.callEnd && g.endTime > h.callStart),
      ).length
      assert.ok(hits >= 8, `${hits} of 10 hidden calls found`)
    })
  }
}

test.run()
