import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { grant, makeLibrary, makeMediaFile, makeTagSet } from '../../helpers/records.js'
import { makeJob, makeProject } from '../../helpers/jobs.js'
import { claimNext, requeue } from '../../../server/analysis/state.js'
import { makeCallers } from '../../helpers/world.js'

// jobs/, jobParameters/ and randomWindow/: owner-only records, the parameters
// extension with its checks, requestedStatus applied at once where no worker
// is needed, and deletion taking everything of a job with it.

const t = suiteApp(test)
let alice: TestUser, bob: TestUser, admin: TestUser
let aliceProject: number, bobProject: number

const JOB_FIELDS = [
  'id',
  'name',
  'user',
  'project',
  'type',
  'creationDate',
  'numToComplete',
  'numCompleted',
  'fractionCompleted',
  'elapsedRealTime',
  'timeToCompletion',
  'isRunning',
  'wasStopped',
  'isComplete',
  'wasDeleted',
  'status',
  'requestedStatus',
  'startedDate',
  'lastStatusDate',
  'parentJob',
  'priority',
  'jobparameters_set',
  'workerSilentSeconds',
  'waitingFor',
]

test.before(async () => {
  ;({ alice, bob, admin } = await makeCallers(t))
  aliceProject = await makeProject(t.db, alice)
  bobProject = await makeProject(t.db, bob)
})

const createTest = (as: TestUser, body: Record<string, unknown> = {}) =>
  t.call('POST', '/api/v0/jobs/', {
    as,
    body: {
      name: 'count',
      project: aliceProject,
      type: 8,
      parameters: { numToComplete: '3', secondsPerStep: '0' },
      ...body,
    },
  })

test('a created job has every field of the spec in order, Queued, with its parameters embedded', async () => {
  const res = await createTest(alice)
  assert.is(res.statusCode, 201)
  const job = res.data
  assert.equal(Object.keys(job), JOB_FIELDS)
  assert.is(job.user, alice.id)
  assert.is(job.project, aliceProject)
  assert.is(job.type, 8)
  assert.match(job.creationDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
  assert.equal(
    [job.numToComplete, job.numCompleted, job.fractionCompleted, job.elapsedRealTime, job.timeToCompletion],
    [0, 0, 0, 0, -1],
  )
  assert.equal([job.isRunning, job.wasStopped, job.isComplete, job.wasDeleted], [false, false, false, false])
  assert.equal(
    [job.status, job.requestedStatus, job.startedDate, job.lastStatusDate, job.parentJob, job.priority],
    [2, null, null, null, null, 0],
  )
  assert.equal(
    job.jobparameters_set.map((p: any) => [p.job, p.name, p.value]),
    [
      [job.id, 'numToComplete', '3'],
      [job.id, 'secondsPerStep', '0'],
    ],
  )
  assert.ok(job.jobparameters_set.every((p: any) => Number.isInteger(p.id)))
  assert.not.ok('parameters' in job)
  const again = await t.call('GET', `/api/v0/jobs/${job.id}/`, { as: alice })
  assert.is(again.statusCode, 200)
  assert.is(again.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
  assert.equal(again.data, job)
})

test('only the owner and site admins see a job; anonymous callers are asked to authenticate', async () => {
  const id = (await createTest(alice)).data.id
  assert.is((await t.call('GET', `/api/v0/jobs/${id}/`, { as: bob })).statusCode, 404)
  assert.is((await t.call('PATCH', `/api/v0/jobs/${id}/`, { as: bob, body: { name: 'x' } })).statusCode, 404)
  assert.is((await t.call('DELETE', `/api/v0/jobs/${id}/`, { as: bob })).statusCode, 404)
  assert.is((await t.call('GET', `/api/v0/jobs/${id}/`, { as: admin })).statusCode, 200)
  assert.is((await t.call('GET', `/api/v0/jobs/${id}/`)).statusCode, 401)
  const bobs = await t.call('GET', '/api/v0/jobs/', { as: bob })
  assert.is(bobs.data.count, 0)
  const alices = await t.call('GET', '/api/v0/jobs/', { as: alice })
  assert.ok(alices.data.results.some((j: any) => j.id === id))
  assert.ok(alices.data.results.every((j: any) => j.user === alice.id))
  const all = await t.call('GET', '/api/v0/jobs/', { as: admin })
  assert.is(all.data.count, alices.data.count)
})

test("a job must have a name and a job type, as the original; its project, if any, is one of the caller's", async () => {
  const missing = await t.call('POST', '/api/v0/jobs/', { as: alice, body: {} })
  assert.is(missing.statusCode, 400)
  assert.equal(missing.data, { name: ['This field is required.'], type: ['This field is required.'] })
  const blank = await createTest(alice, { name: ' ' })
  assert.equal(blank.data, { name: ['This field may not be blank.'] })
  const noProject = await t.call('POST', '/api/v0/jobs/', { as: alice, body: { name: 'x', type: 8 } })
  assert.is(noProject.statusCode, 201, JSON.stringify(noProject.data))
  assert.equal([noProject.data.project, noProject.data.waitingFor], [null, []])
  const foreign = await createTest(alice, { project: bobProject })
  assert.is(foreign.statusCode, 400)
  assert.equal(foreign.data, { project: [`Invalid pk "${bobProject}" - object does not exist.`] })
  const badType = await createTest(alice, { type: 99 })
  assert.equal(badType.data, { type: ['Invalid pk "99" - object does not exist.'] })
  const byAdmin = await createTest(admin, { project: bobProject })
  assert.is(byAdmin.statusCode, 201)
  assert.is(byAdmin.data.user, admin.id)
})

test('filters: project, status, type, parentJob, isRunning; a bad value is 400', async () => {
  const other = await makeProject(t.db, alice)
  const parent = (await createTest(alice, { project: other })).data.id
  const child = (await createTest(alice, { project: other, parentJob: parent, type: 8 })).data.id
  const ids = async (q: string) =>
    (await t.call('GET', `/api/v0/jobs/?${q}`, { as: alice })).data.results.map((j: any) => j.id)
  assert.equal(await ids(`project=${other}`), [parent, child])
  assert.equal(await ids(`parentJob=${parent}`), [child])
  assert.equal(await ids(`project=${other}&status=2&type=8&isRunning=false`), [parent, child])
  assert.equal(await ids(`project=${other}&status=3`), [])
  const bad = await t.call('GET', '/api/v0/jobs/?status=abc', { as: alice })
  assert.is(bad.statusCode, 400)
  assert.ok(bad.data.status)
})

test('parameters are checked against the job type when the job is created, naming the parameter', async () => {
  const defaults = await createTest(alice, { parameters: { secondsPerStep: '1' } })
  assert.is(defaults.statusCode, 201, 'numToComplete has a default')
  const wrong = await createTest(alice, { parameters: { numToComplete: 'many' } })
  assert.equal(wrong.data, { parameters: { numToComplete: ['A valid integer is required.'] } })
  const notStrings = await createTest(alice, { parameters: { numToComplete: ['3'] } })
  assert.is(notStrings.statusCode, 400)
  assert.equal(notStrings.data, { parameters: ['The value of "numToComplete" must be a string.'] })
  const notObject = await createTest(alice, { parameters: 'numToComplete=3' })
  assert.is(notObject.statusCode, 400)
  const before = await t.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  assert.ok(Number(before.n) > 0)
  const outside = await createTest(alice, { type: 9, parameters: { path: '../etc', library: '1' } })
  assert.is(outside.statusCode, 400)
  assert.ok(outside.data.parameters.path)
})

test('a Test job needs no parameters; a parameter the type does not use is kept', async () => {
  const bare = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: { name: 'bare', project: aliceProject, type: 8 },
  })
  assert.is(bare.statusCode, 201, JSON.stringify(bare.data))
  assert.is(bare.data.status, 2)
  assert.equal(bare.data.jobparameters_set, [])
  const extra = await createTest(alice, { parameters: { colour: 'blue' } })
  assert.is(extra.statusCode, 201)
  assert.equal(
    extra.data.jobparameters_set.map((p: any) => `${p.name}=${p.value}`),
    ['colour=blue'],
  )
})

test('a parameter a type needs is checked when the job is created or queued, never left to fail in the worker', async () => {
  const library = await makeLibrary(t.db, alice)
  const tagSet = await makeTagSet(t.db, alice, library)
  const needs: Array<[number, string[]]> = [
    [2, ['destinationTagSet']],
    [7, ['destinationTagSet']],
    [1, ['sourceTagSet', 'destinationTagSet']],
    [9, ['path', 'library']],
  ]
  for (const [type, names] of needs) {
    const res = await t.call('POST', '/api/v0/jobs/', {
      as: alice,
      body: { name: 'n', project: aliceProject, type, parameters: {} },
    })
    assert.is(res.statusCode, 400, `type ${type}`)
    assert.equal(res.data, { parameters: Object.fromEntries(names.map((n) => [n, ['This field is required.']])) })
  }
  const before = await t.db.selectFrom('jobs').select('id').where('type_id', 'in', [1, 2, 7, 9]).execute()
  assert.is(before.length, 0, 'nothing was queued')
  // created stopped, a job may get its parameters afterwards (through jobParameters/); queuing it checks them
  const stopped = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: { name: 'n', project: aliceProject, type: 2, requestedStatus: 5 },
  })
  assert.is(stopped.statusCode, 201)
  assert.is(stopped.data.status, 5)
  const id = stopped.data.id
  const early = await t.call('PATCH', `/api/v0/jobs/${id}/`, { as: alice, body: { requestedStatus: 2 } })
  assert.is(early.statusCode, 400)
  assert.equal(early.data, { parameters: { destinationTagSet: ['This field is required.'] } })
  assert.is(await jobRowStatus(id), 5)
  const param = await t.call('POST', '/api/v0/jobParameters/', {
    as: alice,
    body: { job: id, name: 'destinationTagSet', value: String(tagSet) },
  })
  assert.is(param.statusCode, 201)
  const queued = await t.call('PATCH', `/api/v0/jobs/${id}/`, { as: alice, body: { requestedStatus: 2 } })
  assert.is(queued.statusCode, 200)
  assert.is(queued.data.status, 2)
  assert.is((await t.call('DELETE', `/api/v0/jobs/${id}/`, { as: alice })).statusCode, 204)
})

test("a job created the original's way, then its parameters, waits queued for them and is claimed only then", async () => {
  const library = await makeLibrary(t.db, alice)
  const tagSet = await makeTagSet(t.db, alice, library)
  const created = await t.call('POST', '/api/v0/jobs/', { as: alice, body: { name: 'windows', type: 2 } })
  assert.is(created.statusCode, 201, JSON.stringify(created.data))
  const id = created.data.id
  assert.equal([created.data.status, created.data.waitingFor], [2, ['destinationTagSet', 'project']])
  const listed = async () =>
    (await t.call('GET', '/api/v0/jobs/?type=2', { as: alice })).data.results.find((j: any) => j.id === id)
  assert.equal((await listed()).waitingFor, ['destinationTagSet', 'project'])
  assert.not.ok((await claimAll()).includes(id), 'nobody claims a job that waits')
  const param = await t.call('POST', '/api/v0/jobParameters/', {
    as: alice,
    body: { job: id, name: 'destinationTagSet', value: String(tagSet) },
  })
  assert.is(param.statusCode, 201)
  assert.equal((await t.call('GET', `/api/v0/jobs/${id}/`, { as: alice })).data.waitingFor, ['project'])
  assert.not.ok((await claimAll()).includes(id))
  const withProject = await t.call('PATCH', `/api/v0/jobs/${id}/`, { as: alice, body: { project: aliceProject } })
  assert.equal([withProject.data.status, withProject.data.waitingFor], [2, []])
  assert.equal((await listed()).waitingFor, [])
  assert.ok((await claimAll()).includes(id))
  assert.is((await t.call('DELETE', `/api/v0/jobs/${id}/`, { as: alice })).statusCode, 204)
  // one naming its media file needs no project
  const one = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: {
      name: 'one',
      type: 7,
      parameters: {
        destinationTagSet: String(tagSet),
        mediaFileId: String(await makeMediaFile(t.db, alice, library)),
      },
    },
  })
  assert.equal([one.statusCode, one.data.waitingFor], [201, []])
  assert.is((await t.call('DELETE', `/api/v0/jobs/${one.data.id}/`, { as: alice })).statusCode, 204)
})

/** The ids of every job a worker would claim now (given back to the queue afterwards). */
async function claimAll(): Promise<number[]> {
  const ids: number[] = []
  for (let job = await claimNext(t.db, 'test-worker', 30); job; job = await claimNext(t.db, 'test-worker', 30))
    ids.push(job.id)
  for (const id of ids) await requeue(t.db, id, 'test-worker')
  return ids
}

const jobRowStatus = async (id: number) =>
  (await t.db.selectFrom('jobs').select('status_id').where('id', '=', id).executeTakeFirstOrThrow()).status_id

test('a job needs launch_job on every library and tag set it names: unreadable is 400, read-only is 403', async () => {
  const library = await makeLibrary(t.db, bob)
  const tagSet = await makeTagSet(t.db, bob, library)
  const rwt = (set: number) =>
    createTest(alice, {
      type: 2,
      parameters: { numWindowsToTag: '5', windowSizeInSeconds: '2', destinationTagSet: String(set) },
    })
  const hidden = await rwt(tagSet)
  assert.is(hidden.statusCode, 400)
  assert.equal(hidden.data, { parameters: { destinationTagSet: [`Invalid pk "${tagSet}" - object does not exist.`] } })
  await grant(t.db, bob, { user: alice.id }, { library }, ['read'])
  const readOnly = await rwt(tagSet)
  assert.is(readOnly.statusCode, 403)
  assert.match(readOnly.data.detail, /destinationTagSet/)
  await grant(t.db, bob, { user: alice.id }, { tagSet }, ['launch_job'])
  const allowed = await rwt(tagSet)
  assert.is(allowed.statusCode, 201)
  const count = await t.db
    .selectFrom('jobs')
    .select('id')
    .where('type_id', '=', 2)
    .where('user_id', '=', alice.id)
    .execute()
  assert.is(count.length, 1)
})

test('requestedStatus 5 stops a queued job at once, 2 queues it again; other values are 400', async () => {
  const id = (await createTest(alice)).data.id
  const stop = await t.call('PATCH', `/api/v0/jobs/${id}/`, { as: alice, body: { requestedStatus: 5 } })
  assert.is(stop.statusCode, 200)
  assert.equal(
    [stop.data.status, stop.data.wasStopped, stop.data.isRunning, stop.data.requestedStatus],
    [5, true, false, null],
  )
  assert.ok(stop.data.lastStatusDate)
  const again = await t.call('PATCH', `/api/v0/jobs/${id}/`, { as: alice, body: { requestedStatus: 2 } })
  assert.equal([again.data.status, again.data.wasStopped, again.data.requestedStatus], [2, false, null])
  const odd = await t.call('PATCH', `/api/v0/jobs/${id}/`, { as: alice, body: { requestedStatus: 6 } })
  assert.is(odd.statusCode, 400)
  assert.ok(odd.data.requestedStatus)
})

test('a stop asked of a job that has ended is kept, as the original keeps it, and changes nothing else', async () => {
  const id = (await createTest(alice)).data.id
  // an external worker ends it through the API
  const done = await t.call('PATCH', `/api/v0/jobs/${id}/`, { as: alice, body: { status: 6, isComplete: true } })
  assert.is(done.statusCode, 200)
  const stop = await t.call('PATCH', `/api/v0/jobs/${id}/`, { as: alice, body: { requestedStatus: 5 } })
  assert.is(stop.statusCode, 200)
  assert.equal(
    [stop.data.status, stop.data.isComplete, stop.data.wasStopped, stop.data.requestedStatus],
    [6, true, false, 5],
  )
  assert.is((await t.call('GET', `/api/v0/jobs/${id}/`, { as: alice })).data.requestedStatus, 5)
  assert.not.ok((await claimAll()).includes(id), 'no worker takes it')
  // a stopped job keeps the request too, until it is queued again
  const other = (await createTest(alice)).data.id
  await t.call('PATCH', `/api/v0/jobs/${other}/`, { as: alice, body: { requestedStatus: 5 } })
  const twice = await t.call('PATCH', `/api/v0/jobs/${other}/`, { as: alice, body: { requestedStatus: 5 } })
  assert.equal([twice.data.status, twice.data.requestedStatus], [5, 5])
  const again = await t.call('PATCH', `/api/v0/jobs/${other}/`, { as: alice, body: { requestedStatus: 2 } })
  assert.equal([again.data.status, again.data.requestedStatus], [2, null])
})

test('an update may change parameters: named ones are replaced, others kept', async () => {
  const id = (await createTest(alice)).data.id
  const res = await t.call('PATCH', `/api/v0/jobs/${id}/`, {
    as: alice,
    body: { parameters: { secondsPerStep: '0.5', note: 'x' } },
  })
  assert.is(res.statusCode, 200)
  assert.equal(
    res.data.jobparameters_set.map((p: any) => `${p.name}=${p.value}`),
    ['numToComplete=3', 'secondsPerStep=0.5', 'note=x'],
  )
  const bad = await t.call('PATCH', `/api/v0/jobs/${id}/`, {
    as: alice,
    body: { parameters: { secondsPerStep: '-1' } },
  })
  assert.is(bad.statusCode, 400)
  assert.equal(bad.data, { parameters: { secondsPerStep: ['Ensure this value is greater than or equal to 0.'] } })
})

test('deleting a job deletes its parameters, result rows, random windows and children', async () => {
  const library = await makeLibrary(t.db, alice)
  const media = await makeMediaFile(t.db, alice, library)
  const parent = (await createTest(alice)).data.id
  const child = await makeJob(t.db, alice, aliceProject, 8, { numToComplete: '1' })
  await t.db.updateTable('jobs').set({ parent_job_id: parent }).where('id', '=', child).execute()
  await t.db
    .insertInto('job_result_files')
    .values({ job_id: child, creation_date: '2026-01-01 00:00:00', result_file: '', notes: 'n' })
    .execute()
  await t.db
    .insertInto('random_windows')
    .values({ job_id: parent, media_file_id: media, start_time: 1, end_time: 2 })
    .execute()
  const res = await t.call('DELETE', `/api/v0/jobs/${parent}/`, { as: alice })
  assert.is(res.statusCode, 204)
  assert.is(res.body, '')
  for (const [table, column, id] of [
    ['jobs', 'id', child],
    ['job_parameters', 'job_id', parent],
    ['job_parameters', 'job_id', child],
    ['job_result_files', 'job_id', child],
    ['random_windows', 'job_id', parent],
  ] as const) {
    const left = await t.db.selectFrom(table).select('id').where(column, '=', id).execute()
    assert.is(left.length, 0, `${table} of job ${id}`)
  }
  assert.is((await t.call('GET', `/api/v0/jobs/${parent}/`, { as: alice })).statusCode, 404)
})

test('jobParameters: the owner lists, adds, changes and deletes; others see nothing', async () => {
  const job = (await createTest(alice)).data.id
  const list = await t.call('GET', `/api/v0/jobParameters/?job=${job}`, { as: alice })
  assert.is(list.statusCode, 200)
  assert.equal(
    list.data.results.map((p: any) => Object.keys(p)),
    [
      ['id', 'job', 'name', 'value'],
      ['id', 'job', 'name', 'value'],
    ],
  )
  const added = await t.call('POST', '/api/v0/jobParameters/', {
    as: alice,
    body: { job, name: 'weight', value: '1.0' },
  })
  assert.is(added.statusCode, 201)
  assert.equal({ ...added.data, id: 0 }, { id: 0, job, name: 'weight', value: '1.0' })
  const changed = await t.call('PATCH', `/api/v0/jobParameters/${added.data.id}/`, {
    as: alice,
    body: { value: '2.0' },
  })
  assert.is(changed.data.value, '2.0')
  const bad = await t.call('POST', '/api/v0/jobParameters/', {
    as: alice,
    body: { job, name: 'numToComplete', value: 'ten' },
  })
  assert.is(bad.statusCode, 400)
  assert.equal(bad.data, { value: ['numToComplete: A valid integer is required.'] })
  assert.is((await t.call('GET', `/api/v0/jobParameters/${added.data.id}/`, { as: bob })).statusCode, 404)
  assert.is((await t.call('GET', '/api/v0/jobParameters/', { as: bob })).data.count, 0)
  const foreign = await t.call('POST', '/api/v0/jobParameters/', { as: bob, body: { job, name: 'x', value: 'y' } })
  assert.equal(foreign.data, { job: [`Invalid pk "${job}" - object does not exist.`] })
  assert.is((await t.call('GET', `/api/v0/jobParameters/${added.data.id}/`, { as: admin })).statusCode, 200)
  assert.is((await t.call('GET', '/api/v0/jobParameters/')).statusCode, 401)
  assert.is((await t.call('DELETE', `/api/v0/jobParameters/${added.data.id}/`, { as: alice })).statusCode, 204)
  const after = await t.call('GET', `/api/v0/jobs/${job}/`, { as: alice })
  assert.equal(
    after.data.jobparameters_set.map((p: any) => p.name),
    ['numToComplete', 'secondsPerStep'],
  )
})

test('randomWindow: the job owner writes windows on readable media; others see nothing', async () => {
  const library = await makeLibrary(t.db, alice)
  const media = await makeMediaFile(t.db, alice, library)
  const bobsMedia = await makeMediaFile(t.db, bob, await makeLibrary(t.db, bob))
  const job = await makeJob(t.db, alice, aliceProject, 2)
  const made = await t.call('POST', '/api/v0/randomWindow/', {
    as: alice,
    body: { randomWindowTaggingJob: job, mediaFile: media, startTime: 1.5, endTime: 3.5 },
  })
  assert.is(made.statusCode, 201)
  assert.equal(Object.keys(made.data), ['id', 'randomWindowTaggingJob', 'mediaFile', 'startTime', 'endTime'])
  assert.equal(
    { ...made.data, id: 0 },
    { id: 0, randomWindowTaggingJob: job, mediaFile: media, startTime: 1.5, endTime: 3.5 },
  )
  const hidden = await t.call('POST', '/api/v0/randomWindow/', {
    as: alice,
    body: { randomWindowTaggingJob: job, mediaFile: bobsMedia, startTime: 1, endTime: 2 },
  })
  assert.equal(hidden.data, { mediaFile: [`Invalid pk "${bobsMedia}" - object does not exist.`] })
  const backwards = await t.call('POST', '/api/v0/randomWindow/', {
    as: alice,
    body: { randomWindowTaggingJob: job, mediaFile: media, startTime: 3, endTime: 2 },
  })
  assert.is(backwards.statusCode, 400)
  assert.ok(backwards.data.endTime)
  assert.is((await t.call('GET', `/api/v0/randomWindow/${made.data.id}/`, { as: bob })).statusCode, 404)
  assert.is((await t.call('GET', '/api/v0/randomWindow/', { as: bob })).data.count, 0)
  const byJob = await t.call('GET', `/api/v0/randomWindow/?randomWindowTaggingJob=${job}`, { as: alice })
  assert.equal(
    byJob.data.results.map((w: any) => w.id),
    [made.data.id],
  )
  assert.is((await t.call('GET', `/api/v0/randomWindow/${made.data.id}/`, { as: admin })).statusCode, 200)
  const moved = await t.call('PUT', `/api/v0/randomWindow/${made.data.id}/`, {
    as: alice,
    body: { randomWindowTaggingJob: job, mediaFile: media, startTime: 4, endTime: 6 },
  })
  assert.is(moved.data.startTime, 4)
  assert.is((await t.call('DELETE', `/api/v0/randomWindow/${made.data.id}/`, { as: alice })).statusCode, 204)
})

test.run()
