import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Worker } from '../../server/jobs/worker.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { makeJob, makeProject, waitForStatus } from '../helpers/jobs.js'
import { makeLibrary } from '../helpers/records.js'
import { tempDir } from '../helpers/tempDir.js'
import { makeWav } from '../helpers/wav.js'

// ImportAudioFile: server-side import of a file or folder, confined to the
// server's import folder, through the import endpoint's code (same md5
// de-duplication and audio metadata).

let alice: TestUser
let project: number
let library: number
const root = tempDir('mas-import-root-')
const outside = tempDir('mas-outside-')
const t = suiteApp(test, { importRoot: root })

test.before(async () => {
  mkdirSync(join(root, 'batch', 'day2'), { recursive: true })
  writeFileSync(join(root, 'batch', 'a.wav'), makeWav({ seconds: 2, frequency: 440, sampleRate: 8000 }))
  writeFileSync(join(root, 'batch', 'day2', 'b.wav'), makeWav({ seconds: 3, frequency: 880, sampleRate: 8000 }))
  writeFileSync(join(root, 'batch', 'notes.txt'), 'not audio')
  writeFileSync(join(outside, 'secret.wav'), makeWav({ seconds: 1, frequency: 300, sampleRate: 8000 }))
  symlinkSync(join(outside, 'secret.wav'), join(root, 'batch', 'link.wav'))
  symlinkSync(outside, join(root, 'away'))
  alice = await t.user('alice')
  project = await makeProject(t.db, alice)
  library = await makeLibrary(t.db, alice)
  const worker = new Worker({ db: t.db, config: t.app.config, pollMs: 20 }).start()
  t.beforeClose(() => {
    for (const dir of [root, outside]) rmSync(dir, { recursive: true, force: true })
  })
  t.beforeClose(() => worker.stop())
})

const importJob = (path: string, lib = library) =>
  t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: { name: 'import', project, type: 9, parameters: { path, library: String(lib) } },
  })

test('a path outside the import folder is refused when the job is created, naming the parameter', async () => {
  for (const path of ['../', join(outside, 'secret.wav'), 'away/secret.wav', 'missing.wav']) {
    const res = await importJob(path)
    assert.is(res.statusCode, 400, path)
    assert.equal(Object.keys(res.data), ['parameters'])
    assert.equal(Object.keys(res.data.parameters), ['path'])
  }
  const bob = await t.user('bob')
  const hidden = await importJob('batch', await makeLibrary(t.db, bob))
  assert.is(hidden.statusCode, 400)
  assert.ok(hidden.data.parameters.library)
})

test('a folder is imported file by file; unreadable files and links out of the folder are skipped and listed', async () => {
  const res = await importJob('batch')
  assert.is(res.statusCode, 201)
  const job = await waitForStatus(t.db, res.data.id, [4, 6])
  assert.is(job.status_id, 6)
  assert.equal([job.num_to_complete, job.num_completed], [4, 4])
  const files = await t.call('GET', `/api/v0/mediaFile/?library=${library}`, { as: alice })
  assert.equal(files.data.results.map((f: any) => f.alias).sort(), ['a.wav', 'day2/b.wav'])
  const durations = await t.db
    .selectFrom('media_file_metadata')
    .select('value')
    .where('name', '=', 'durationInSeconds')
    .where(
      'media_file_id',
      'in',
      files.data.results.map((f: any) => f.id),
    )
    .orderBy('value')
    .execute()
  assert.equal(
    durations.map((d) => Number(d.value)),
    [2, 3],
  )
  const notes = await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', res.data.id).execute()
  assert.equal(
    notes.map((n) => n.notes),
    ['2 files were not imported (not readable media).'],
  )
})

test('importing the same files again stores nothing twice', async () => {
  const res = await importJob('batch/a.wav')
  assert.is(res.statusCode, 201)
  const job = await waitForStatus(t.db, res.data.id, [4, 6])
  assert.equal([job.status_id, job.num_completed], [6, 1])
  const files = await t.call('GET', `/api/v0/mediaFile/?library=${library}`, { as: alice })
  assert.is(files.data.count, 2)
})

test('paths are confined again when the job runs: one outside the import folder ends the job in Error', async () => {
  const id = await makeJob(t.db, alice, project, 9, { path: '../', library: String(library) })
  await waitForStatus(t.db, id, 4)
  const notes = await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', id).execute()
  assert.equal(
    notes.map((n) => n.notes),
    ['Parameter path: "../" is outside the server\'s import folder.'],
  )
})

test.run()
