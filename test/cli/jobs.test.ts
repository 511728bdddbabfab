import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeLibrary, makeMediaFile, makeTagSet } from '../helpers/records.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// Projects and their media, jobs (create, list, get, stop, watch) and result files.

let w: CliWorld
let alice: TestUser
let project: number
let job: number
let media: number[]

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  const library = await makeLibrary(w.t.db, alice)
  media = [await makeMediaFile(w.t.db, alice, library), await makeMediaFile(w.t.db, alice, library)]
})
test.after(async () => {
  await w.close()
})

test('project create, add-media (added / already there), remove-media (removed / not there)', async () => {
  const created = await w.mas(['project', 'create', 'nest survey', '--notes', '2026 season'])
  assert.is(created.code, 0, created.stderr)
  project = Number(created.stdout.trim())
  const add = await w.mas(['project', 'add-media', String(project), String(media[0]), String(media[1]), '--json'])
  assert.is(add.code, 0, add.stderr)
  assert.equal(json(add), [
    { mediaFile: media[0], changed: true },
    { mediaFile: media[1], changed: true },
  ])
  const again = await w.mas(['project', 'add-media', String(project), String(media[0])])
  assert.match(again.stderr, new RegExp(`${media[0]}: already in the project`))
  // a file given by its alias is told by its alias
  const { alias } = await w.t.db
    .selectFrom('media_files')
    .select('alias')
    .where('id', '=', media[0])
    .executeTakeFirstOrThrow()
  const named = await w.mas(['project', 'add-media', String(project), alias])
  assert.is(named.code, 0, named.stderr)
  assert.is(named.stderr, `${alias}: already in the project\n`)
  const remove = await w.mas(['project', 'remove-media', String(project), String(media[1]), String(media[1])])
  assert.is(remove.code, 0, remove.stderr)
  assert.match(remove.stderr, new RegExp(`${media[1]}: removed\\n${media[1]}: was not in the project`))
  const stored = await w.t.call('GET', `/api/v0/project/${project}/`, { as: alice })
  assert.equal(stored.data.mediaFiles, [media[0]])
  assert.is(stored.data.notes, '2026 season')
})

test('job create resolves the type by name and sends --param values as parameters', async () => {
  const run = await w.mas([
    'job',
    'create',
    '--project',
    String(project),
    '--type',
    'test',
    '--param',
    'numToComplete=3',
    '--name',
    'count',
    '--json',
  ])
  assert.is(run.code, 0, run.stderr)
  const created = json(run)
  job = created.id
  assert.is(created.type, 8)
  assert.is(created.status, 2)
  assert.equal(
    created.jobparameters_set.map((p: any) => [p.name, p.value]),
    [['numToComplete', '3']],
  )
  const unknown = await w.mas(['job', 'create', '--project', String(project), '--type', 'NoSuchType'])
  assert.is(unknown.code, 1)
  assert.match(unknown.stderr, /^Error: Unknown job type "NoSuchType"\. Types a worker runs: .*Test \(8\)/)
  // the original's types that no worker of mas runs are not offered
  assert.not.match(unknown.stderr, /TagAnalysis|Transcription|SupervisedTagDiscoveryParent|SupervisedTagDiscoveryChild/)
  const misspeltType = await w.mas(['job', 'create', '--project', String(project), '--type', 'SupervisedTagDiscover'])
  assert.match(
    misspeltType.stderr,
    /^Error: Unknown job type "SupervisedTagDiscover"\. Did you mean SupervisedTagDiscovery\? Types a worker runs: /,
  )
  const typo = await w.mas(['job', 'create', '--project', String(project), '--type', 'RandomWindowTaging'])
  assert.match(typo.stderr, /Did you mean RandomWindowTagging\?/)
  const badParam = await w.mas(['job', 'create', '--project', String(project), '--type', '8', '--param', 'novalue'])
  assert.is(badParam.code, 2)
  // a type that writes tags would run a misspelt parameter with its default, replacing the last run's tags: refused
  const misspelt = await w.mas([
    'job',
    'create',
    '--project',
    String(project),
    '--type',
    'SupervisedTagDiscovery',
    '--param',
    'windowSize=0.5',
    '--param',
    'sourceTagSet=1',
    '--param',
    'destinationTagSet=1',
  ])
  assert.is(misspelt.code, 2)
  assert.match(
    misspelt.stderr,
    /^Error: --param windowSize: jobs of type SupervisedTagDiscovery have no parameter windowSize\. Did you mean windowSizeInSeconds\? \(they take [^\n]*windowSizeInSeconds/,
  )
  assert.is(misspelt.stderr.trim().split('\n').length, 1)
})

test('job list and job get show the job', async () => {
  const list = await w.mas(['job', 'list', '--project', String(project)])
  assert.match(list.stdout, new RegExp(`\\n${job}\\s+count\\s+${project}\\s+Test\\s+Queued\\s+0%`)) // the job type by name
  assert.equal(
    json(await w.mas(['job', 'list', '--json'])).map((j: any) => j.id),
    [job],
  )
  // --status by name, as the tables show it, or by id
  assert.equal(
    json(await w.mas(['job', 'list', '--status', 'queued', '--json'])).map((j: any) => j.id),
    [job],
  )
  assert.equal(
    json(await w.mas(['job', 'list', '--status', '2', '--json'])).map((j: any) => j.id),
    [job],
  )
  assert.equal(json(await w.mas(['job', 'list', '--status', 'Error', '--json'])), [])
  const badStatus = await w.mas(['job', 'list', '--status', 'Finished'])
  assert.is(badStatus.code, 2)
  assert.match(
    badStatus.stderr,
    /^Error: --status: Expected a status name or id \(Unknown 1, Queued 2, Running 3, Error 4, Stopped 5, Complete 6\) but received: Finished/,
  )
  const get = await w.mas(['job', 'get', String(job)])
  assert.match(get.stdout, /status\s+Queued \(2\)/)
  assert.match(get.stdout, /type\s+Test \(8\)/)
  assert.match(get.stdout, /param numToComplete\s+3/)
})

test('job get names the tag set, library and media file its parameters give by id', async () => {
  const library = await makeLibrary(w.t.db, alice, 'Dawn chorus')
  const tagSet = await makeTagSet(w.t.db, alice, library, 'random windows')
  const file = await makeMediaFile(w.t.db, alice, library, { alias: 'siteA/20260501_050000.WAV' })
  const created = await w.t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: {
      name: 'named',
      type: 2,
      project,
      status: 5,
      parameters: { destinationTagSet: String(tagSet), mediaFileId: String(file), numWindowsToTag: '2' },
    },
  })
  assert.is(created.statusCode, 201, created.body)
  const get = await w.mas(['job', 'get', String(created.data.id)])
  assert.is(get.code, 0, get.stderr)
  assert.match(get.stdout, new RegExp(`param destinationTagSet\\s+random windows \\(${tagSet}\\)\\n`))
  assert.match(get.stdout, new RegExp(`param mediaFileId\\s+siteA/20260501_050000\\.WAV \\(${file}\\)\\n`))
  assert.match(get.stdout, /param numWindowsToTag\s+2\n/)
  assert.equal(
    json(await w.mas(['job', 'get', String(created.data.id), '--json'])).jobparameters_set.find(
      (p: any) => p.name === 'destinationTagSet',
    ).value,
    String(tagSet),
  )
  assert.is((await w.t.call('DELETE', `/api/v0/jobs/${created.data.id}/`, { as: alice })).statusCode, 204)
})

test('job get shows what a job created before its parameters waits for', async () => {
  const created = await w.t.call('POST', '/api/v0/jobs/', { as: alice, body: { name: 'later', type: 2 } })
  assert.is(created.statusCode, 201, created.body)
  const get = await w.mas(['job', 'get', String(created.data.id)])
  assert.is(get.code, 0, get.stderr)
  assert.match(get.stdout, /waitingFor\s+destinationTagSet, project/)
  assert.not.match((await w.mas(['job', 'get', String(job)])).stdout, /waitingFor/)
  // nothing runs it: the watch says what it waits for, that nothing changes, and ends at --timeout
  const watch = await w.mas([
    'job',
    'watch',
    String(created.data.id),
    '--interval',
    '1',
    '--stale-after',
    '1',
    '--timeout',
    '3',
  ])
  assert.is(watch.code, 1, watch.stderr)
  assert.match(watch.stderr, `job ${created.data.id}: waits for destinationTagSet, project before a worker may run it`)
  assert.match(
    watch.stderr,
    new RegExp(`job ${created.data.id}: nothing has changed for \\d+ s \\(Queued\\); is a worker running\\?`),
  )
  assert.match(watch.stderr, `Error: job ${created.data.id}: still Queued after 3 s (--timeout); it runs on`)
  assert.is((await w.t.call('DELETE', `/api/v0/jobs/${created.data.id}/`, { as: alice })).statusCode, 204)
})

test('job watch follows a job to its end: exit 0 when complete, 1 when stopped', async () => {
  // an external worker drives the job through the API
  const done = await w.t.call('PATCH', `/api/v0/jobs/${job}/`, {
    as: alice,
    body: { status: 6, isComplete: true, fractionCompleted: 1, numCompleted: 3, numToComplete: 3 },
  })
  assert.is(done.statusCode, 200, done.body)
  const watch = await w.mas(['job', 'watch', String(job), '--interval', '1'])
  assert.is(watch.code, 0, watch.stderr)
  assert.match(watch.stderr, new RegExp(`job ${job}: Complete, 100% \\(3/3\\)`))
  // stopping an ended job changes nothing and says so
  const late = await w.mas(['job', 'stop', String(job)])
  assert.is(late.code, 0, late.stderr)
  assert.match(late.stderr, `Job ${job} already ended (Complete)`)
  const after = await w.t.call('GET', `/api/v0/jobs/${job}/`, { as: alice })
  assert.equal([after.data.status, after.data.requestedStatus], [6, null])

  const other = json(
    await w.mas([
      'job',
      'create',
      '--project',
      String(project),
      '--type',
      'Test',
      '--param',
      'numToComplete=1',
      '--json',
    ]),
  )
  const stop = await w.mas(['job', 'stop', String(other.id), '--json'])
  assert.is(stop.code, 0, stop.stderr)
  const asked = json(stop)
  assert.ok(asked.status === 5 || asked.requestedStatus === 5)
  const stopped = await w.mas(['job', 'watch', String(other.id), '--json'])
  assert.is(stopped.code, 1)
  assert.is(json(stopped).status, 5)
})

test('job result upload streams a file; list shows it; download gives the same bytes to a file or stdout', async () => {
  const dir = w.newHome()
  const bytes = randomBytes(300_000)
  writeFileSync(join(dir, 'detections.bin'), bytes)
  const up = await w.mas([
    'job',
    'result',
    'upload',
    String(job),
    join(dir, 'detections.bin'),
    '--notes',
    'threshold 0.8',
  ])
  assert.is(up.code, 0, up.stderr)
  const id = Number(up.stdout.trim())
  const list = json(await w.mas(['job', 'result', 'list', String(job), '--json']))
  assert.equal(
    list.map((r: any) => [r.id, r.job, r.notes]),
    [[id, job, 'threshold 0.8']],
  )
  const down = await w.mas(['job', 'result', 'download', String(id), '-o', join(dir, 'copy.bin')])
  assert.is(down.code, 0, down.stderr)
  assert.ok(readFileSync(join(dir, 'copy.bin')).equals(bytes))

  writeFileSync(join(dir, 'notes.txt'), 'species,count\nblackbird,3\n')
  const text = Number((await w.mas(['job', 'result', 'upload', String(job), join(dir, 'notes.txt')])).stdout.trim())
  const stdout = await w.mas(['job', 'result', 'download', String(text)])
  assert.is(stdout.code, 0, stdout.stderr)
  assert.is(stdout.stdout, 'species,count\nblackbird,3\n')

  const missing = await w.mas(['job', 'result', 'upload', String(job), join(dir, 'nope.bin')])
  assert.is(missing.code, 2)
  const noJob = await w.mas(['job', 'result', 'upload', '999999', join(dir, 'notes.txt')])
  assert.is(noJob.code, 1)
  assert.match(noJob.stderr, /JOB: Invalid pk "999999" - object does not exist\./i)
})

test('job create: a job whose parameters the server refuses when it is queued is deleted again; without --name it is named after its type', async () => {
  const jobs = async () => (await w.t.call('GET', '/api/v0/jobs/', { as: alice })).data.count
  const before = await jobs()
  const run = await w.mas([
    'job',
    'create',
    '--project',
    String(project),
    '--type',
    'RandomWindowTagging',
    '--param',
    'numWindowsToTag=5',
  ])
  assert.is(run.code, 1)
  assert.match(run.stderr, /destinationTagSet.*\(job \d+ was deleted again\)/)
  assert.is(await jobs(), before)
  const named = json(await w.mas(['job', 'create', '--project', String(project), '--type', 'Test', '--json']))
  assert.match(named.name, /^Test \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
})

test('job list shows the jobs people made; the child jobs a job made for its parts only with --children or --json', async () => {
  const home = w.newHome()
  const bob = await w.loggedIn('jobsParent', home)
  const create = (body: Record<string, unknown>) =>
    w.t.call('POST', '/api/v0/jobs/', { as: bob, body: { type: 8, status: 2, parameters: {}, ...body } })
  const parent = (await create({ name: 'season discovery' })).data.id
  for (const name of ['part a', 'part b']) assert.is((await create({ name, parentJob: parent })).statusCode, 201)
  const list = await w.mas(['job', 'list'], { home })
  assert.is(list.code, 0, list.stderr)
  assert.match(list.stdout, /season discovery/)
  assert.not.match(list.stdout, /part a|part b/)
  assert.match(list.stderr, /^2 child jobs of 1 not shown \(--children shows them\)$/m)
  const all = await w.mas(['job', 'list', '--children'], { home })
  assert.match(all.stdout, /part a[\s\S]*part b|part b[\s\S]*part a/)
  assert.is(all.stderr, '')
  assert.is(json(await w.mas(['job', 'list', '--json'], { home })).length, 3)
})

test.run()
