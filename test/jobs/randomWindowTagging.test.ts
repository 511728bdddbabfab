import { sql } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { AppConfig } from '../../server/config.js'
import { claimNext } from '../../server/analysis/state.js'
import { Worker } from '../../server/jobs/worker.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { addToProject, makeProject, waitForStatus } from '../helpers/jobs.js'
import { makeMediaFile, makeMetaData, makeTagSet } from '../helpers/records.js'
import { makeRecords } from '../helpers/world.js'

// RandomWindowTagging: windows chosen uniformly over the project's media,
// written as RandomWindow rows and randomlyChosen tags, the same for the same
// seed, and never written twice when another worker takes a job over.

const t = suiteApp(test, { jobLeaseSeconds: 3 })
let alice: TestUser
let project: number
let library: number
let short: number, long: number
let config: AppConfig

test.before(async () => {
  config = t.app.config
  ;({ owner: alice, library, mediaFile: short } = await makeRecords(t, 'alice'))
  project = await makeProject(t.db, alice)
  long = await makeMediaFile(t.db, alice, library)
  const silent = await makeMediaFile(t.db, alice, library) // no known duration: never chosen
  await makeMetaData(t.db, short, 'durationInSeconds', '10')
  await makeMetaData(t.db, long, 'durationInSeconds', '30')
  await makeMetaData(t.db, long, 'sampleRate', '8000')
  await addToProject(t.db, project, [short, long, silent])
})

async function run(ids: number[]) {
  const worker = new Worker({ db: t.db, config, pollMs: 20 }).start()
  try {
    for (const id of ids) await waitForStatus(t.db, id, [4, 5, 6])
  } finally {
    await worker.stop()
  }
}

async function createJob(parameters: Record<string, string>) {
  const res = await t.call('POST', '/api/v0/jobs/', { as: alice, body: { name: 'rwt', project, type: 2, parameters } })
  assert.is(res.statusCode, 201, JSON.stringify(res.data))
  return res.data.id as number
}

const windowsOf = async (job: number) =>
  t.db
    .selectFrom('random_windows')
    .select(['media_file_id', 'start_time', 'end_time'])
    .where('job_id', '=', job)
    .orderBy('id')
    .execute()

test("windows and randomlyChosen tags, inside each file, in a randomWindow class of the tag set's library", async () => {
  const tagSet = await makeTagSet(t.db, alice, library)
  const id = await createJob({
    numWindowsToTag: '20',
    windowSizeInSeconds: '2',
    destinationTagSet: String(tagSet),
    seed: '7',
  })
  await run([id])
  const job = (await t.call('GET', `/api/v0/jobs/${id}/`, { as: alice })).data
  assert.equal([job.status, job.numToComplete, job.numCompleted, job.fractionCompleted], [6, 20, 20, 1])
  const windows = (
    await t.call('GET', `/api/v0/randomWindow/?randomWindowTaggingJob=${id}&page_size=1000`, { as: alice })
  ).data.results
  assert.is(windows.length, 20)
  for (const w of windows) {
    assert.ok([short, long].includes(w.mediaFile))
    assert.ok(
      w.startTime >= 0 &&
        w.endTime <= (w.mediaFile === short ? 10 : 30) &&
        Math.abs(w.endTime - w.startTime - 2) < 1e-9,
    )
  }
  const tags = await t.db.selectFrom('tags').selectAll().where('tag_set_id', '=', tagSet).orderBy('id').execute()
  assert.equal(
    tags.map((g) => [g.media_file_id, g.start_time, g.end_time]),
    windows.map((w: any) => [w.mediaFile, w.startTime, w.endTime]),
  )
  assert.ok(tags.every((g) => g.randomly_chosen && !g.machine_tagged && g.user_id === alice.id))
  assert.ok(tags.filter((g) => g.media_file_id === long).every((g) => g.max_frequency === 4000))
  const classes = await t.db
    .selectFrom('tag_classes')
    .select(['id', 'class_name', 'library_id'])
    .where('id', 'in', [...new Set(tags.map((g) => g.tag_class_id))])
    .execute()
  assert.equal(
    classes.map((c) => [c.class_name, c.library_id]),
    [['randomWindow', library]],
  )
})

test('the same seed gives the same windows; another seed other windows; starts are uniform over the total duration', async () => {
  const tagSet = await makeTagSet(t.db, alice, library)
  const params = { numWindowsToTag: '1000', windowSizeInSeconds: '2', destinationTagSet: String(tagSet) }
  const a = await createJob({ ...params, seed: '12345' })
  const b = await createJob({ ...params, seed: '12345' })
  const c = await createJob({ ...params, seed: '54321' })
  await run([a, b, c])
  const [wa, wb, wc] = [await windowsOf(a), await windowsOf(b), await windowsOf(c)]
  assert.is(wa.length, 1000)
  assert.equal(wb, wa)
  assert.not.equal(wc, wa)
  // the spans of possible starts are 8 s and 28 s: the long file holds 28/36 of them
  const inLong = wa.filter((w) => w.media_file_id === long).length
  assert.ok(inLong > 700 && inLong < 850, `${inLong} of 1000 in the long file`)
  const firstHalf = wa.filter((w) => w.media_file_id === long && w.start_time < 14).length
  assert.ok(Math.abs(firstHalf / inLong - 0.5) < 0.08, `${firstHalf} of ${inLong} in the first half`)
})

test('mediaFileId limits the windows to one file; a job without a seed keeps the one it chose', async () => {
  const tagSet = await makeTagSet(t.db, alice, library)
  const id = await createJob({
    numWindowsToTag: '15',
    windowSizeInSeconds: '1',
    destinationTagSet: String(tagSet),
    mediaFileId: String(short),
  })
  await run([id])
  const windows = await windowsOf(id)
  assert.is(windows.length, 15)
  assert.ok(windows.every((w) => w.media_file_id === short))
  const seed = (await t.call('GET', `/api/v0/jobs/${id}/`, { as: alice })).data.jobparameters_set.find(
    (p: any) => p.name === 'seed',
  )
  assert.match(seed.value, /^\d+$/)
  const again = await createJob({
    numWindowsToTag: '15',
    windowSizeInSeconds: '1',
    destinationTagSet: String(tagSet),
    mediaFileId: String(short),
    seed: seed.value,
  })
  await run([again])
  assert.equal(await windowsOf(again), windows)
})

test('a job taken over after its worker died resumes without writing any window twice', async () => {
  const reference = await makeTagSet(t.db, alice, library)
  const tagSet = await makeTagSet(t.db, alice, library)
  const params = { numWindowsToTag: '500', windowSizeInSeconds: '2', seed: '99' }
  const whole = await createJob({ ...params, destinationTagSet: String(reference) })
  await run([whole])
  const expected = await windowsOf(whole)

  const id = await createJob({ ...params, destinationTagSet: String(tagSet) })
  const claimed = await claimNext(t.db, 'dead-worker', 3)
  assert.is(claimed?.id, id)
  // the dead worker had written its first 200 windows (one step) before it died
  const done = expected.slice(0, 200)
  await t.db
    .insertInto('random_windows')
    .values(done.map((w) => ({ job_id: id, ...w })))
    .execute()
  const cls = await t.db
    .selectFrom('tag_classes')
    .select('id')
    .where('library_id', '=', library)
    .where('class_name', '=', 'randomWindow')
    .executeTakeFirstOrThrow()
  await t.db
    .insertInto('tags')
    .values(
      done.map((w) => ({
        user_id: alice.id,
        creation_date: '2026-01-01 00:00:00',
        tag_set_id: tagSet,
        tag_class_id: cls.id,
        media_file_id: w.media_file_id,
        start_time: w.start_time,
        end_time: w.end_time,
        min_frequency: 0,
        max_frequency: 0,
        randomly_chosen: true,
      })),
    )
    .execute()
  await t.db
    .updateTable('jobs')
    .set({ num_completed: 200, num_to_complete: 500, lease_expires: sql<Date>`now() - interval '1 minute'` })
    .where('id', '=', id)
    .execute()
  await run([id])
  const job = (await t.call('GET', `/api/v0/jobs/${id}/`, { as: alice })).data
  assert.equal([job.status, job.numCompleted], [6, 500])
  assert.equal(await windowsOf(id), expected)
  const tags = await t.db
    .selectFrom('tags')
    .select(['media_file_id', 'start_time'])
    .where('tag_set_id', '=', tagSet)
    .orderBy('id')
    .execute()
  assert.equal(
    tags,
    expected.map((w) => ({ media_file_id: w.media_file_id, start_time: w.start_time })),
  )
})

test('media with no known duration longer than the window ends the job in Error saying so', async () => {
  const tagSet = await makeTagSet(t.db, alice, library)
  const id = await createJob({ numWindowsToTag: '3', windowSizeInSeconds: '60', destinationTagSet: String(tagSet) })
  await run([id])
  const notes = await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', id).execute()
  assert.equal(
    notes.map((n) => n.notes),
    ['No media file of this job is longer than the window size (60 s) with a known duration.'],
  )
  assert.is((await windowsOf(id)).length, 0)
})

test.run()
