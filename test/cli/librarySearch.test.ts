import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Worker } from '../../server/jobs/worker.js'
import type { TestUser } from '../helpers/app.js'
import { makeWav } from '../helpers/wav.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// `mas job create --library NAME --folder PATH` without --project: a job that searches a folder of a
// library, run by a worker, tags the files of that folder and nothing else.

let w: CliWorld
let alice: TestUser
const ids = new Map<string, number>()

/** Imports `aliases` as real WAV files (3 s each, each other bytes) into a new library called `name`. */
async function importSeason(name: string, aliases: string[], tone: number): Promise<void> {
  const made = await w.mas(['library', 'create', name])
  assert.is(made.code, 0, made.stderr)
  const root = join(w.home, name)
  for (const [i, alias] of aliases.entries()) {
    mkdirSync(dirname(join(root, alias)), { recursive: true })
    writeFileSync(join(root, alias), makeWav({ seconds: 3, sampleRate: 8000, frequency: tone + 20 * i }))
  }
  const run = await w.mas(['media', 'import', root, '--library', name, '--recursive'])
  assert.is(run.code, 0, run.stderr)
  for (const f of json(await w.mas(['media', 'list', '--library', name, '--json']))) ids.set(`${name}:${f.alias}`, f.id)
  for (const alias of aliases) assert.ok(ids.has(`${name}:${alias}`), `${alias} imported into ${name}`)
}

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  await importSeason(
    'Season 2026',
    ['site-A/2024/a.wav', 'site-A/2024/b.wav', 'site-A/2023/c.wav', 'site-B/2024/d.wav'],
    400,
  )
  await importSeason('Elsewhere', ['site-A/2024/a.wav'], 900)
  assert.is((await w.mas(['tagset', 'create', 'windows'])).code, 0)
})
test.after(async () => {
  await w.close()
})

test("job create --library NAME --folder PATH, no --project: the windows land on that folder's files of that library", async () => {
  const create = await w.mas([
    'job',
    'create',
    '--library',
    'Season 2026',
    '--folder',
    'site-A/2024/',
    '--type',
    'RandomWindowTagging',
    '--param',
    'destinationTagSet=windows',
    '--param',
    'numWindowsToTag=50',
    '--param',
    'seed=3',
    '--json',
  ])
  assert.is(create.code, 0, create.stderr)
  const job = json(create)
  assert.is(job.project, null)
  const params = Object.fromEntries(job.jobparameters_set.map((p: any) => [p.name, p.value]))
  assert.equal([params.library, params.folder], [String(await libraryId('Season 2026')), 'site-A/2024/'])
  const worker = new Worker({ db: w.t.db, config: w.t.app.config, pollMs: 20 }).start()
  try {
    const watch = await w.mas(['job', 'watch', String(job.id), '--interval', '1'])
    assert.is(watch.code, 0, watch.stderr)
  } finally {
    await worker.stop()
  }
  const tags = await w.t.db
    .selectFrom('tags')
    .innerJoin('tag_sets as s', 's.id', 'tags.tag_set_id')
    .select('tags.media_file_id')
    .distinct()
    .where('s.name', '=', 'windows')
    .execute()
  assert.equal(
    tags.map((t) => t.media_file_id).sort((a, b) => a - b),
    [ids.get('Season 2026:site-A/2024/a.wav'), ids.get('Season 2026:site-A/2024/b.wav')].sort((a, b) => a! - b!),
  )
})

test('job create refuses --folder without --library, a type without a folder, and a media type given no files to read', async () => {
  const noLibrary = await w.mas([
    'job',
    'create',
    '--folder',
    'site-A/',
    '--type',
    'RandomWindowTagging',
    '--param',
    'destinationTagSet=windows',
  ])
  assert.is(noLibrary.code, 2)
  assert.match(noLibrary.stderr, /--folder/)
  assert.match(noLibrary.stderr, /--library/)
  const test = await w.mas(['job', 'create', '--library', 'Season 2026', '--folder', 'site-A/', '--type', 'Test'])
  assert.is(test.code, 2)
  assert.match(test.stderr, /--folder: jobs of type Test read no library's folders/)
  const nothing = await w.mas([
    'job',
    'create',
    '--type',
    'RandomWindowTagging',
    '--param',
    'destinationTagSet=windows',
  ])
  assert.is(nothing.code, 2)
  assert.match(
    nothing.stderr,
    /RandomWindowTagging reads media files: give --project, --library or --param mediaFileId/,
  )
  for (const run of [noLibrary, test, nothing]) assert.is(run.stderr.trim().split('\n').length, 1, run.stderr)
  const jobs = await w.t.call('GET', '/api/v0/jobs/', { as: alice })
  assert.is(jobs.data.count, 1, 'only the job of the first test was created')
})

test('job create --library with --param mediaFileId: the library only finds the file, so a reader of it runs a job on that file', async () => {
  const bobHome = w.newHome()
  const bob = await w.loggedIn('bob', bobHome)
  const grant = await w.mas(['perms', 'grant', '--user', 'bob', '--library', 'Season 2026', '--read'])
  assert.is(grant.code, 0, grant.stderr)
  assert.is((await w.mas(['tagset', 'create', 'bob windows'], { home: bobHome })).code, 0)
  const create = await w.mas(
    [
      'job',
      'create',
      '--library',
      'Season 2026',
      '--type',
      'RandomWindowTagging',
      '--param',
      'mediaFileId=site-A/2024/b.wav',
      '--param',
      'destinationTagSet=bob windows',
      '--param',
      'numWindowsToTag=5',
      '--param',
      'seed=3',
      '--json',
    ],
    { home: bobHome },
  )
  assert.is(create.code, 0, create.stderr)
  const job = await w.t.call('GET', `/api/v0/jobs/${json(create).id}/`, { as: bob })
  const params = Object.fromEntries(
    job.data.jobparameters_set.map((p: { name: string; value: string }) => [p.name, p.value]),
  )
  assert.equal(
    [params.mediaFileId, params.library, job.data.waitingFor],
    [String(ids.get('Season 2026:site-A/2024/b.wav')), undefined, []],
  )
  const worker = new Worker({ db: w.t.db, config: w.t.app.config, pollMs: 20 }).start()
  try {
    const watch = await w.mas(['job', 'watch', String(job.data.id), '--interval', '1'], { home: bobHome })
    assert.is(watch.code, 0, watch.stderr)
  } finally {
    await worker.stop()
  }
  const tags = await w.t.db
    .selectFrom('tags')
    .innerJoin('tag_sets as s', 's.id', 'tags.tag_set_id')
    .select('tags.media_file_id')
    .distinct()
    .where('s.name', '=', 'bob windows')
    .execute()
  assert.equal(
    tags.map((t) => t.media_file_id),
    [ids.get('Season 2026:site-A/2024/b.wav')],
  )
  // a folder is no search of one file: refused in one line, not left waiting for a library
  const folder = await w.mas(
    [
      'job',
      'create',
      '--library',
      'Season 2026',
      '--folder',
      'site-A/',
      '--type',
      'RandomWindowTagging',
      '--param',
      'mediaFileId=site-A/2024/b.wav',
      '--param',
      'destinationTagSet=bob windows',
    ],
    { home: bobHome },
  )
  assert.equal([folder.code, folder.stderr.trim().split('\n').length], [2, 1], folder.stderr)
  assert.match(folder.stderr, /--folder: a job given --param mediaFileId reads that one file/)
})

async function libraryId(name: string): Promise<number> {
  const row = await w.t.db.selectFrom('libraries').select('id').where('name', '=', name).executeTakeFirstOrThrow()
  return row.id
}

test.run()
