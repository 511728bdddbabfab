import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { AppConfig } from '../../server/config.js'
import { Worker } from '../../server/jobs/worker.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { addToProject, makeProject, waitForStatus } from '../helpers/jobs.js'
import { makeLibrary, makeMediaFile, makeTag, makeTagClass, makeTagSet } from '../helpers/records.js'
import { signal, storedWav } from '../helpers/signals.js'

// The discovery jobs on generated audio with known content: supervised
// discovery finds planted tones (stronger than any noise window) with the
// class of the matching example, one child job per media file; clustering
// separates two distinct tones.

const RATE = 8000
const t = suiteApp(test)
let alice: TestUser
let config: AppConfig
let library: number

test.before(async () => {
  config = t.app.config
  alice = await t.user('alice')
  library = await makeLibrary(t.db, alice)
  const worker = new Worker({ db: t.db, config, pollMs: 20 }).start()
  t.beforeClose(() => worker.stop())
})

const createJob = async (project: number, type: number, parameters: Record<string, string>) => {
  const res = await t.call('POST', '/api/v0/jobs/', { as: alice, body: { name: 'discover', project, type, parameters } })
  assert.is(res.statusCode, 201, JSON.stringify(res.data))
  return res.data.id as number
}

test('supervised discovery finds the planted tones, stronger than noise, with the class of the matching example', async () => {
  const examples = await storedWav(t.db, config, alice, library,
    signal(8, RATE, [{ from: 2, to: 3, frequency: 1000 }, { from: 5, to: 6, frequency: 2500 }], 0.05, 11), RATE)
  const target = await storedWav(t.db, config, alice, library,
    signal(20, RATE, [{ from: 4, to: 5, frequency: 1000 }, { from: 8, to: 9, frequency: 2500 }, { from: 12, to: 13, frequency: 1000 }], 0.05, 12), RATE)
  const second = await storedWav(t.db, config, alice, library, signal(6, RATE, [{ from: 1, to: 2, frequency: 2500 }], 0.05, 13), RATE)
  const source = await makeTagSet(t.db, alice, library)
  const low = await makeTagClass(t.db, alice, library, 'low')
  const high = await makeTagClass(t.db, alice, library, 'high')
  await makeTag(t.db, alice, { tagSet: source, mediaFile: examples, tagClass: low }, { startTime: 2, endTime: 3, minFrequency: 800, maxFrequency: 1200 })
  await makeTag(t.db, alice, { tagSet: source, mediaFile: examples, tagClass: high }, { startTime: 5, endTime: 6, minFrequency: 2300, maxFrequency: 2700 })
  const destination = await makeTagSet(t.db, alice, library)
  const project = await makeProject(t.db, alice)
  await addToProject(t.db, project, [target, second])

  const id = await createJob(project, 1, {
    sourceTagSet: String(source), destinationTagSet: String(destination), numberOfTagsToDiscover: '5', windowSizeInSeconds: '1',
  })
  await waitForStatus(t.db, id, [4, 5, 6], 120)
  const parent = (await t.call('GET', `/api/v0/jobs/${id}/`, { as: alice })).data
  const children = (await t.call('GET', `/api/v0/jobs/?parentJob=${id}`, { as: alice })).data.results
  assert.is(parent.status, 6, JSON.stringify(await t.db.selectFrom('job_result_files').select('notes').execute()))
  assert.equal(children.map((c: any) => [c.type, c.status, c.jobparameters_set.find((p: any) => p.name === 'mediaFileId').value]),
    [[11, 6, String(target)], [11, 6, String(second)]])
  assert.is(parent.numToComplete, children.reduce((s: number, c: any) => s + c.numToComplete, 0))
  assert.equal([parent.numCompleted, parent.fractionCompleted], [parent.numToComplete, 1])

  const found = await t.db.selectFrom('tags').selectAll().where('tag_set_id', '=', destination).where('media_file_id', '=', target)
    .orderBy('strength', 'desc').execute()
  assert.is(found.length, 5)
  assert.ok(found.every((g) => g.machine_tagged && !g.randomly_chosen))
  assert.equal(found.slice(0, 3).map((g) => g.start_time).sort((a, b) => a - b), [4, 8, 12])
  assert.ok(found[2].strength > found[3].strength, `planted ${found[2].strength} vs noise ${found[3].strength}`)
  const classAt = (start: number) => found.find((g) => g.start_time === start)!
  assert.equal([classAt(4).tag_class_id, classAt(8).tag_class_id, classAt(12).tag_class_id], [low, high, low])
  assert.equal([classAt(8).min_frequency, classAt(8).max_frequency], [2300, 2700])
  const inSecond = await t.db.selectFrom('tags').select(['start_time', 'tag_class_id']).where('tag_set_id', '=', destination)
    .where('media_file_id', '=', second).orderBy('strength', 'desc').execute()
  assert.equal(inSecond[0], { start_time: 1, tag_class_id: high })
})

test('unsupervised discovery separates two distinct tones into two clusters', async () => {
  const media = await storedWav(t.db, config, alice, library,
    signal(10, RATE, [{ from: 0, to: 5, frequency: 600 }, { from: 5, to: 10, frequency: 2000 }], 0.02, 21), RATE)
  const destination = await makeTagSet(t.db, alice, library)
  const project = await makeProject(t.db, alice)
  const id = await createJob(project, 7, {
    numberOfTagsToDiscover: '2', windowSizeInSeconds: '1', destinationTagSet: String(destination), mediaFileId: String(media), seed: '3',
  })
  const job = await waitForStatus(t.db, id, [4, 5, 6], 120)
  assert.is(job.status_id, 6)
  const tags = await t.db.selectFrom('tags as g').innerJoin('tag_classes as c', 'c.id', 'g.tag_class_id')
    .select(['g.start_time', 'g.end_time', 'c.class_name', 'g.machine_tagged']).where('g.tag_set_id', '=', destination)
    .orderBy('g.start_time').execute()
  assert.is(tags.length, 19)
  assert.ok(tags.every((g) => g.machine_tagged))
  const first = tags.filter((g) => g.end_time <= 5).map((g) => g.class_name)
  const second = tags.filter((g) => g.start_time >= 5).map((g) => g.class_name)
  assert.equal(new Set(first), new Set(['cluster-1']))
  assert.equal(new Set(second), new Set(['cluster-2']))
})

test('a child that fails ends its parent in Error, each with an error.txt saying why', async () => {
  const examples = await storedWav(t.db, config, alice, library, signal(3, RATE, [{ from: 1, to: 2, frequency: 1000 }]), RATE)
  const missing = await makeMediaFile(t.db, alice, library) // a row whose bytes were never stored
  const source = await makeTagSet(t.db, alice, library)
  const cls = await makeTagClass(t.db, alice, library)
  await makeTag(t.db, alice, { tagSet: source, mediaFile: examples, tagClass: cls }, { startTime: 1, endTime: 2 })
  const project = await makeProject(t.db, alice)
  await addToProject(t.db, project, [missing])
  const id = await createJob(project, 1, {
    sourceTagSet: String(source), destinationTagSet: String(source), numberOfTagsToDiscover: '1', windowSizeInSeconds: '1',
  })
  const parent = await waitForStatus(t.db, id, [4, 5, 6], 120)
  assert.is(parent.status_id, 4)
  const [child] = await t.db.selectFrom('jobs').selectAll().where('parent_job_id', '=', id).execute()
  assert.is(child.status_id, 4)
  const notes = async (job: number) => (await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', job).execute()).map((n) => n.notes)
  assert.equal(await notes(child.id), [`Media file ${missing}: its stored file cannot be read.`])
  assert.equal(await notes(id), [`Child job ${child.id} failed.`])
})

test('discovery parameters are checked when the job is created', async () => {
  const project = await makeProject(t.db, alice)
  const res = await t.call('POST', '/api/v0/jobs/', {
    as: alice, body: { name: 'discovery', project, type: 1, parameters: { sourceTagSet: '999999', numberOfTagsToDiscover: 'x', windowSizeInSeconds: '1' } },
  })
  assert.is(res.statusCode, 400)
  assert.equal(res.data, { parameters: {
    sourceTagSet: ['Invalid pk "999999" - object does not exist.'],
    destinationTagSet: ['This field is required.'],
    numberOfTagsToDiscover: ['A valid integer is required.'],
  } })
})

test.run()
