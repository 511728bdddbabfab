import { setTimeout as delay } from 'node:timers/promises'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { recordFailure } from '../../server/analysis/results.js'
import { claimNext, COMPLETE, ERROR } from '../../server/analysis/state.js'
import { Worker } from '../../server/jobs/worker.js'
import type { TestUser } from '../helpers/app.js'
import { makeJob, makeProject } from '../helpers/jobs.js'
import { cliWorld, type CliWorld } from './cli.js'

// A Running job whose worker died says so: jobs/{id}/ shows isRunning false
// and for how long no worker has renewed it, and `mas job watch` prints that
// instead of waiting in silence. A queued job while no worker is alive, and a
// job that does not change for --stale-after seconds, are said too.

let w: CliWorld
let alice: TestUser
let job: number

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  job = await makeJob(w.t.db, alice, await makeProject(w.t.db, alice), 8, { numToComplete: '3', secondsPerStep: '0' })
})
test.after(async () => {
  await w.close()
})

test('while its worker renews the lease a job is Running; once the lease runs out, isRunning is false with the silence in seconds', async () => {
  const claimed = await claimNext(w.t.db, 'a-worker-that-dies', 1)
  assert.is(claimed?.id, job)
  const live = (await w.t.call('GET', `/api/v0/jobs/${job}/`, { as: alice })).data
  assert.equal([live.status, live.isRunning, live.workerSilentSeconds], [3, true, null])
  await delay(2200)
  const orphan = (await w.t.call('GET', `/api/v0/jobs/${job}/`, { as: alice })).data
  assert.equal([orphan.status, orphan.isRunning], [3, false])
  assert.ok(orphan.workerSilentSeconds >= 2 && orphan.workerSilentSeconds < 60, String(orphan.workerSilentSeconds))
  const listed = (await w.t.call('GET', `/api/v0/jobs/?project=${orphan.project}`, { as: alice })).data.results
  assert.equal(
    listed.map((j: any) => [j.id, j.isRunning, j.workerSilentSeconds > 0]),
    [[job, false, true]],
  )
})

test('mas job watch says that no worker has renewed the job, then follows it to its end', async () => {
  const watching = w.mas(['job', 'watch', String(job), '--interval', '1'])
  await delay(2500)
  await w.t.db
    .updateTable('jobs')
    .set({ status_id: COMPLETE, is_complete: true, is_running: false, worker_id: null, lease_expires: null })
    .where('id', '=', job)
    .execute()
  const run = await watching
  assert.is(run.code, 0, run.stderr)
  assert.match(
    run.stderr,
    new RegExp(`job ${job}: no worker has renewed this job for \\d+ s; it goes on when a worker runs`),
  )
  assert.is(run.stderr.match(/no worker has renewed/g)!.length, 1, 'said once a minute, not at every poll')
  assert.match(run.stderr, new RegExp(`job ${job} \\([^)]+\\) ended: Complete`))
})

test('mas job watch on a queued job says once that no worker runs, says when nothing changed for --stale-after, and follows it once a worker starts', async () => {
  const queued = await makeJob(w.t.db, alice, await makeProject(w.t.db, alice), 8, {
    numToComplete: '2',
    secondsPerStep: '0',
  })
  let worker: Worker | undefined
  try {
    const run = await w.mas(['job', 'watch', String(queued), '--interval', '1', '--stale-after', '2'], {
      onStderr: (text) => {
        if (!worker && /nothing has changed/.test(text))
          worker = new Worker({ db: w.t.db, config: w.t.app.config, pollMs: 20 }).start()
      },
    })
    assert.is(run.code, 0, run.stderr)
    assert.match(
      run.stderr,
      new RegExp(`job ${queued}: queued, but no job worker is running; start one with \`mas worker start\``),
    )
    assert.is(run.stderr.match(/no job worker is running/g)!.length, 1, run.stderr)
    assert.match(
      run.stderr,
      new RegExp(`job ${queued}: nothing has changed for [23] s \\(Queued\\); is a worker running\\?`),
    )
    assert.is(run.stderr.match(/nothing has changed/g)!.length, 1, run.stderr)
    assert.match(run.stderr, new RegExp(`job ${queued} \\([^)]+\\) ended: Complete`))
  } finally {
    await worker?.stop()
  }
})

test('Ctrl-C ends mas job watch with one line: the job it stopped watching, as last seen, left as it is', async () => {
  const queued = await makeJob(w.t.db, alice, await makeProject(w.t.db, alice), 8, {
    numToComplete: '2',
    secondsPerStep: '0',
  })
  let signalled = false
  const run = await w.mas(['job', 'watch', String(queued), '--interval', '1'], {
    onStderr: (text, child) => {
      if (!signalled && /no job worker is running/.test(text)) signalled = child.kill('SIGINT')
    },
  })
  assert.is(run.code, 130, run.stderr)
  assert.is(
    run.stderr.trim().split('\n').at(-1),
    `interrupted: stopped watching job ${queued}, Queued at 0%; the job is left as it is (mas job watch ${queued} follows it again)`,
  )
  assert.is((await w.t.call('GET', `/api/v0/jobs/${queued}/`, { as: alice })).data.status, 2)
})

test('mas job watch on a job that ended in Error says why, from its error.txt, and exits 1', async () => {
  const failed = await makeJob(w.t.db, alice, await makeProject(w.t.db, alice), 8, { numToComplete: '1' })
  await w.t.db.transaction().execute(async (trx) => {
    await trx.updateTable('jobs').set({ status_id: ERROR, is_running: false }).where('id', '=', failed).execute()
    await recordFailure(
      trx,
      w.t.app.storage,
      failed,
      'The search holds no media file: library 3 has none below "siteC/".',
    )
  })
  const run = await w.mas(['job', 'watch', String(failed), '--interval', '1'])
  assert.is(run.code, 1)
  // the end names the job as its owner named it
  const { name } = await w.t.db.selectFrom('jobs').select('name').where('id', '=', failed).executeTakeFirstOrThrow()
  assert.ok(run.stderr.includes(`job ${failed} (${name}) ended: Error: `), run.stderr)
  assert.match(
    run.stderr,
    new RegExp(`ended: Error: The search holds no media file: library 3 has none below "siteC/"\\.\n?$`),
  )
})

test.run()
