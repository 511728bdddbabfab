import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Worker } from '../../server/jobs/worker.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { makeProject, waitForStatus } from '../helpers/jobs.js'
import { makeLibrary, makeTagSet } from '../helpers/records.js'
import { importMedia } from '../helpers/upload.js'

// Jobs read FLAC and MP3 recordings as they read WAV: unsupervised discovery on the fixtures
// (test/fixtures/make-audio.sh: 1 kHz for half a second, then 2 kHz) puts the windows of each half
// into a cluster of its own.

const FIXTURES = resolve(fileURLToPath(import.meta.url), '../../../../test/fixtures')
const t = suiteApp(test)
let alice: TestUser
let library: number

test.before(async () => {
  alice = await t.user('alice')
  library = await makeLibrary(t.db, alice)
  const worker = new Worker({ db: t.db, config: t.app.config, pollMs: 20 }).start()
  t.beforeClose(() => worker.stop())
})

for (const name of ['tone.flac', 'tone.mp3']) {
  test(`unsupervised discovery on ${name} separates its two tones`, async () => {
    const media = (await importMedia(t, alice, library, readFileSync(resolve(FIXTURES, name)), { filename: name })).data
      .id
    const destination = await makeTagSet(t.db, alice, library)
    const project = await makeProject(t.db, alice)
    const res = await t.call('POST', '/api/v0/jobs/', {
      as: alice,
      body: {
        name: 'discover',
        project,
        type: 7,
        parameters: {
          numberOfTagsToDiscover: '2',
          windowSizeInSeconds: '0.2',
          destinationTagSet: String(destination),
          mediaFileId: String(media),
          seed: '3',
        },
      },
    })
    assert.is(res.statusCode, 201, JSON.stringify(res.data))
    const job = await waitForStatus(t.db, res.data.id, [4, 5, 6], 120)
    assert.is(job.status_id, 6, JSON.stringify(await t.db.selectFrom('job_result_files').select('notes').execute()))
    const tags = await t.db
      .selectFrom('tags as g')
      .innerJoin('tag_classes as c', 'c.id', 'g.tag_class_id')
      .select(['g.start_time', 'g.end_time', 'c.class_name'])
      .where('g.tag_set_id', '=', destination)
      .orderBy('g.start_time')
      .execute()
    const low = new Set(tags.filter((g) => g.end_time <= 0.4).map((g) => g.class_name))
    // (the MP3 decoder's padding of silence after the second's end is left out)
    const high = new Set(tags.filter((g) => g.start_time >= 0.65 && g.end_time <= 1).map((g) => g.class_name))
    assert.is(low.size, 1, JSON.stringify(tags))
    assert.is(high.size, 1, JSON.stringify(tags))
    assert.not.equal([...low], [...high])
  })
}

test.run()
