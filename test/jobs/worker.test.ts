import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { AppConfig } from '../../server/config.js'
import { claimNext, renewLease } from '../../server/analysis/state.js'
import { Worker } from '../../server/jobs/worker.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { jobRow, makeJob, makeProject, waitFor, waitForStatus } from '../helpers/jobs.js'

// The state machine driven by real workers in this process: Queued -> Running
// -> Complete | Error | Stopped, requestedStatus applied, progress kept true,
// children summed into their parent, and a dead worker's job taken over once
// its lease ran out. Every wait is a bounded poll, never a timing assertion.

const t = suiteApp(test, { jobLeaseSeconds: 3 })
let alice: TestUser
let project: number
let config: AppConfig
const workers: Worker[] = []
const claims: string[] = []

const startWorker = (id: string, concurrency = 1) => {
  const w = new Worker({
    db: t.db,
    config,
    concurrency,
    pollMs: 20,
    id,
    log: (m) => {
      if (/: running$/.test(m)) claims.push(`${id} ${m}`)
    },
  })
  workers.push(w.start())
  return w
}

t.beforeClose(() => Promise.all(workers.map((w) => w.stop())))

test.before(async () => {
  config = t.app.config
  alice = await t.user('alice')
  project = await makeProject(t.db, alice)
  startWorker('w1', 2)
})

const createJob = async (parameters: Record<string, string>, type = 8) => {
  const res = await t.call('POST', '/api/v0/jobs/', { as: alice, body: { name: 'job', project, type, parameters } })
  assert.is(res.statusCode, 201, JSON.stringify(res.data))
  return res.data.id as number
}
const getJob = async (id: number) => (await t.call('GET', `/api/v0/jobs/${id}/`, { as: alice })).data

test('a Test job given no parameters runs with the defaults (10 steps)', async () => {
  const id = await createJob({})
  const done = await waitForStatus(t.db, id, 6)
  assert.equal([done.num_to_complete, done.num_completed], [10, 10])
})

test('a Test job runs from Queued to Complete with every progress field true at the end', async () => {
  const id = await createJob({ numToComplete: '5', secondsPerStep: '0' })
  await waitForStatus(t.db, id, 6)
  const job = await getJob(id)
  assert.equal(
    [job.status, job.requestedStatus, job.isRunning, job.isComplete, job.wasStopped],
    [6, null, false, true, false],
  )
  assert.equal([job.numToComplete, job.numCompleted, job.fractionCompleted, job.timeToCompletion], [5, 5, 1, 0])
  assert.ok(job.elapsedRealTime >= 0)
  assert.is(
    String(job.elapsedRealTime),
    String(Math.round(job.elapsedRealTime * 1000) / 1000),
    'to the millisecond, no binary noise',
  )
  assert.match(job.startedDate, /^\d{4}-\d\d-\d\dT/)
  assert.ok(job.lastStatusDate >= job.startedDate)
  const row = await jobRow(t.db, id)
  assert.is(row.worker_id, null)
  assert.is(row.lease_expires, null)
})

test('while running, progress is true; requestedStatus 5 stops it and 2 queues it again to completion', async () => {
  const id = await createJob({ numToComplete: '400', secondsPerStep: '0.05' })
  const running = await waitFor('progress', async () => {
    const j = await getJob(id)
    return j.status === 3 && j.numCompleted >= 2 ? j : undefined
  })
  assert.equal(
    [running.isRunning, running.isComplete, running.wasStopped, running.numToComplete],
    [true, false, false, 400],
  )
  assert.ok(Math.abs(running.fractionCompleted - running.numCompleted / 400) < 0.02)
  assert.ok(running.timeToCompletion >= 0)
  assert.ok(running.startedDate)

  const ask = await t.call('PATCH', `/api/v0/jobs/${id}/`, { as: alice, body: { requestedStatus: 5 } })
  assert.is(ask.data.requestedStatus, 5)
  await waitForStatus(t.db, id, 5)
  const stopped = await getJob(id)
  assert.equal(
    [stopped.isRunning, stopped.wasStopped, stopped.isComplete, stopped.requestedStatus],
    [false, true, false, null],
  )
  assert.ok(stopped.numCompleted < 400)

  const again = await t.call('PATCH', `/api/v0/jobs/${id}/`, {
    as: alice,
    body: { requestedStatus: 2, parameters: { secondsPerStep: '0' } },
  })
  assert.equal([again.data.status, again.data.wasStopped, again.data.requestedStatus], [2, false, null])
  await waitForStatus(t.db, id, 6)
  const done = await getJob(id)
  assert.equal([done.numCompleted, done.fractionCompleted, done.isComplete, done.wasStopped], [400, 1, true, false])
})

test('a job type the worker cannot run ends in Error with error.txt saying so', async () => {
  const id = await makeJob(t.db, alice, project, 5)
  await waitForStatus(t.db, id, 4)
  const job = await getJob(id)
  assert.equal([job.isRunning, job.isComplete, job.requestedStatus], [false, false, null])
  const results = await t.call('GET', `/api/v0/jobResultFile/?job=${id}`, { as: alice })
  const rows =
    results.statusCode === 200
      ? results.data.results
      : await t.db
          .selectFrom('job_result_files')
          .select(['notes', 'result_file as resultFile'])
          .where('job_id', '=', id)
          .execute()
  assert.is(rows.length, 1)
  assert.match(String(rows[0].resultFile), /\/error[^/]*\.txt$/)
  assert.is(rows[0].notes, 'Job type Transcription (5) cannot be run by this worker.')
  const stored = await t.db
    .selectFrom('job_result_files')
    .select('result_file')
    .where('job_id', '=', id)
    .executeTakeFirstOrThrow()
  assert.ok(existsSync(join(config.mediaDir, stored.result_file)))
})

test('a job missing a required parameter waits, never fails for it; a bad value is checked again when it runs', async () => {
  // written straight into the database, past the checks of jobs/
  const id = await makeJob(t.db, alice, project, 2, { numWindowsToTag: '3' })
  // a job queued after it runs to its end: the worker, which takes the oldest first, passed the waiting one by
  await waitForStatus(t.db, await createJob({ numToComplete: '1' }), 6)
  const waiting = await getJob(id)
  assert.equal([waiting.status, waiting.waitingFor], [2, ['destinationTagSet']])
  await t.db.insertInto('job_parameters').values({ job_id: id, name: 'destinationTagSet', value: '999999' }).execute()
  await waitForStatus(t.db, id, 4)
  const notes = await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', id).execute()
  assert.equal(
    notes.map((n) => n.notes),
    ['Parameter destinationTagSet: Invalid pk "999999" - object does not exist.'],
  )
})

test('a parent with children: its progress is the sum of theirs and it completes with them', async () => {
  const id = await createJob({ numToComplete: '7', secondsPerStep: '0', numChildren: '3' })
  await waitForStatus(t.db, id, 6)
  const children = await t.call('GET', `/api/v0/jobs/?parentJob=${id}`, { as: alice })
  assert.equal(
    children.data.results.map((c: any) => [c.status, c.numToComplete, c.numCompleted]),
    [
      [6, 3, 3],
      [6, 2, 2],
      [6, 2, 2],
    ],
  )
  const parent = await getJob(id)
  assert.equal(
    [parent.numToComplete, parent.numCompleted, parent.fractionCompleted, parent.isComplete],
    [7, 7, 1, true],
  )
  const sum = children.data.results.reduce((s: number, c: any) => s + c.elapsedRealTime, 0)
  assert.is(parent.elapsedRealTime, Math.round(sum * 1000) / 1000, "the sum of its children's, to the millisecond")
})

test('stopping a parent stops its children; queueing it again finishes them', async () => {
  const id = await createJob({ numToComplete: '600', secondsPerStep: '0.05', numChildren: '3' })
  await waitFor('children running', async () => {
    const kids = (await t.call('GET', `/api/v0/jobs/?parentJob=${id}&status=3`, { as: alice })).data.results
    return kids.length === 2 && kids.every((k: any) => k.numCompleted > 0)
  })
  const parentRunning = await getJob(id)
  assert.is(parentRunning.status, 3)
  assert.ok(parentRunning.numCompleted > 0 && parentRunning.numToComplete === 600)
  const ask = await t.call('PATCH', `/api/v0/jobs/${id}/`, { as: alice, body: { requestedStatus: 5 } })
  assert.is(ask.statusCode, 200)
  await waitForStatus(t.db, id, 5)
  const kids = (await t.call('GET', `/api/v0/jobs/?parentJob=${id}`, { as: alice })).data.results
  assert.equal(
    kids.map((k: any) => [k.status, k.isRunning, k.wasStopped]),
    [
      [5, false, true],
      [5, false, true],
      [5, false, true],
    ],
  )
  const parent = await getJob(id)
  assert.equal(
    [parent.wasStopped, parent.isRunning, parent.numCompleted],
    [true, false, kids.reduce((s: number, k: any) => s + k.numCompleted, 0)],
  )

  await t.call('PATCH', `/api/v0/jobs/${id}/`, {
    as: alice,
    body: { requestedStatus: 2, parameters: { secondsPerStep: '0' } },
  })
  for (const k of kids)
    await t.db
      .updateTable('job_parameters')
      .set({ value: '0' })
      .where('job_id', '=', k.id)
      .where('name', '=', 'secondsPerStep')
      .execute()
  await waitForStatus(t.db, id, 6)
  const done = await getJob(id)
  assert.equal([done.numCompleted, done.numToComplete, done.isComplete], [600, 600, true])
})

test('a job whose worker died is taken over when its lease expires, and completes once', async () => {
  const worker = workers[0]
  await worker.stop()
  workers.length = 0
  const id = await makeJob(t.db, alice, project, 8, { numToComplete: '4', secondsPerStep: '0' })
  await t.db.updateTable('jobs').set({ priority: 1000 }).where('id', '=', id).execute()
  const dead = await claimNext(t.db, 'dead-worker', 3)
  assert.is(dead?.id, id)
  await t.db.updateTable('jobs').set({ num_completed: 2, num_to_complete: 4 }).where('id', '=', id).execute()
  // the dead worker stopped renewing; time passes
  await t.db
    .updateTable('jobs')
    .set({ lease_expires: sql<Date>`now() - interval '1 minute'` })
    .where('id', '=', id)
    .execute()
  startWorker('w2')
  startWorker('w3')
  await waitForStatus(t.db, id, 6)
  const job = await getJob(id)
  assert.equal([job.numCompleted, job.numToComplete, job.isComplete], [4, 4, true])
  assert.is(await renewLease(t.db, id, 'dead-worker', 3), null)
  assert.is(claims.filter((c) => c.endsWith(`job ${id}: running`)).length, 1)
})

test('two workers never run the same job', async () => {
  const ids: number[] = []
  for (let i = 0; i < 12; i++)
    ids.push(await makeJob(t.db, alice, project, 8, { numToComplete: '2', secondsPerStep: '0.01' }))
  for (const id of ids) await waitForStatus(t.db, id, 6)
  for (const id of ids) {
    const runs = claims.filter((c) => c.endsWith(` job ${id}: running`))
    assert.is(runs.length, 1, `job ${id} ran ${runs.length} times`)
  }
  const by = new Set(ids.map((id) => claims.find((c) => c.endsWith(` job ${id}: running`))!.split(' ')[0]))
  assert.ok(by.size >= 1)
})

test.run()
