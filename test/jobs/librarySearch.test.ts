import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { jobMediaQuery } from '../../server/analysis/jobMedia.js'
import { Worker } from '../../server/jobs/worker.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { addToProject, jobRow, makeProject, waitForStatus } from '../helpers/jobs.js'
import { grant, makeLibrary, makeMediaFile, makeMetaData, makeTagSet } from '../helpers/records.js'
import { importMedia } from '../helpers/upload.js'
import { makeWav } from '../helpers/wav.js'

// A job that reads media searches a library (`library`), within a folder of it (`folder`, an alias prefix
// taken literally), or, with a project too, the project's files in that library; the search is made when
// the job runs, so a re-run reads what was imported since. RandomWindowTagging runs the searches here:
// its windows (many, from a fixed seed) land on every file searched and on nothing else.

const t = suiteApp(test)
let alice: TestUser, bob: TestUser
let season: number, other: number, tagSetLibrary: number
const files: Record<string, number> = {}

/** A media file of `library` with this alias and a duration of 10 s. */
async function recording(library: number, alias: string): Promise<number> {
  const id = await makeMediaFile(t.db, alice, library, { alias })
  await makeMetaData(t.db, id, 'durationInSeconds', '10')
  return id
}

test.before(async () => {
  alice = await t.user('alice')
  bob = await t.user('bob')
  season = await makeLibrary(t.db, alice, 'season')
  other = await makeLibrary(t.db, alice, 'other')
  tagSetLibrary = await makeLibrary(t.db, alice, 'tags')
  for (const alias of [
    'site-A/2024/a.wav',
    'site-A/2024/b.wav',
    'site-A/2023/c.wav',
    'site-B/2024/d.wav',
    'x%y/e.wav',
    'xzy/f.wav',
    'x_y/g.wav',
    'xqy/h.wav',
  ])
    files[alias] = await recording(season, alias)
  files['other:site-A/2024/a.wav'] = await recording(other, 'site-A/2024/a.wav')
})

async function run(id: number) {
  const worker = new Worker({ db: t.db, config: t.app.config, pollMs: 20 }).start()
  try {
    return await waitForStatus(t.db, id, [4, 5, 6])
  } finally {
    await worker.stop()
  }
}

const windows = (search: Record<string, string>, project?: number) =>
  t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: {
      name: 'search',
      type: 2,
      ...(project !== undefined ? { project } : {}),
      parameters: { numWindowsToTag: '200', windowSizeInSeconds: '1', seed: '11', ...search },
    },
  })

/** The aliases (library-qualified outside `season`) of the files a job's windows landed on, sorted. */
async function searched(job: number): Promise<string[]> {
  const rows = await t.db
    .selectFrom('random_windows as w')
    .innerJoin('media_files as m', 'm.id', 'w.media_file_id')
    .select(['m.alias', 'm.library_id'])
    .distinct()
    .where('w.job_id', '=', job)
    .execute()
  return rows.map((r) => (r.library_id === season ? r.alias : `other:${r.alias}`)).sort()
}

async function runSearch(search: Record<string, string>, project?: number): Promise<string[]> {
  const tagSet = await makeTagSet(t.db, alice, tagSetLibrary)
  const created = await windows({ destinationTagSet: String(tagSet), ...search }, project)
  assert.is(created.statusCode, 201, JSON.stringify(created.data))
  assert.equal([created.data.project, created.data.waitingFor], [project ?? null, []])
  const ended = await run(created.data.id)
  assert.is(ended.status_id, 6, `job ${created.data.id} ended in status ${ended.status_id}`)
  return searched(created.data.id)
}

test('library: every media file of that library, none of another; no project needed', async () => {
  assert.equal(
    await runSearch({ library: String(season) }),
    Object.keys(files)
      .filter((a) => !a.startsWith('other:'))
      .sort(),
  )
})

test("folder: the library's files whose alias starts with it; % and _ in it are taken literally", async () => {
  assert.equal(await runSearch({ library: String(season), folder: 'site-A/2024/' }), [
    'site-A/2024/a.wav',
    'site-A/2024/b.wav',
  ])
  assert.equal(await runSearch({ library: String(season), folder: 'site-A/' }), [
    'site-A/2023/c.wav',
    'site-A/2024/a.wav',
    'site-A/2024/b.wav',
  ])
  assert.equal(await runSearch({ library: String(other), folder: 'site-A/' }), ['other:site-A/2024/a.wav'])
  assert.equal(await runSearch({ library: String(season), folder: 'x%y/' }), ['x%y/e.wav'])
  assert.equal(await runSearch({ library: String(season), folder: 'x_y/' }), ['x_y/g.wav'])
})

test("a project and a library: the project's files in that library (and folder)", async () => {
  const project = await makeProject(t.db, alice)
  await addToProject(t.db, project, [
    files['site-A/2024/a.wav'],
    files['site-B/2024/d.wav'],
    files['other:site-A/2024/a.wav'],
  ])
  assert.equal(await runSearch({ library: String(season) }, project), ['site-A/2024/a.wav', 'site-B/2024/d.wav'])
  assert.equal(await runSearch({ library: String(season), folder: 'site-B/' }, project), ['site-B/2024/d.wav'])
  assert.equal(await runSearch({}, project), ['other:site-A/2024/a.wav', 'site-A/2024/a.wav', 'site-B/2024/d.wav'])
})

test("folder without library is a 400 naming folder; a job created the original's way waits for the library", async () => {
  const tagSet = await makeTagSet(t.db, alice, tagSetLibrary)
  const refused = await windows(
    { destinationTagSet: String(tagSet), folder: 'site-A/' },
    await makeProject(t.db, alice),
  )
  assert.is(refused.statusCode, 400)
  assert.equal(Object.keys(refused.data.parameters), ['folder'])
  assert.match(refused.data.parameters.folder[0], /library/)
  const created = await t.call('POST', '/api/v0/jobs/', { as: alice, body: { name: 'later', type: 2 } })
  for (const [name, value] of [
    ['destinationTagSet', String(tagSet)],
    ['folder', 'site-A/2023/'],
  ]) {
    const p = await t.call('POST', '/api/v0/jobParameters/', { as: alice, body: { job: created.data.id, name, value } })
    assert.is(p.statusCode, 201, JSON.stringify(p.data))
  }
  const waiting = await t.call('GET', `/api/v0/jobs/${created.data.id}/`, { as: alice })
  assert.equal(waiting.data.waitingFor, ['library', 'project'])
  await t.call('POST', '/api/v0/jobParameters/', {
    as: alice,
    body: { job: created.data.id, name: 'library', value: String(season) },
  })
  assert.equal((await t.call('GET', `/api/v0/jobs/${created.data.id}/`, { as: alice })).data.waitingFor, [])
  assert.is((await run(created.data.id)).status_id, 6)
  assert.equal(await searched(created.data.id), ['site-A/2023/c.wav'])
})

test('neither project, library nor mediaFileId: the job waits for a project, as before', async () => {
  const tagSet = await makeTagSet(t.db, alice, tagSetLibrary)
  for (const type of [1, 2, 7]) {
    const params =
      type === 1
        ? { sourceTagSet: String(tagSet), destinationTagSet: String(tagSet) }
        : { destinationTagSet: String(tagSet) }
    const bare = await t.call('POST', '/api/v0/jobs/', { as: alice, body: { name: 'bare', type, parameters: params } })
    assert.equal([bare.statusCode, bare.data.waitingFor], [201, ['project']], `type ${type}`)
    const searching = await t.call('POST', '/api/v0/jobs/', {
      as: alice,
      body: { name: 'lib', type, parameters: { ...params, library: String(season) } },
    })
    assert.equal([searching.statusCode, searching.data.waitingFor], [201, []], `type ${type}`)
    for (const id of [bare.data.id, searching.data.id]) await t.call('DELETE', `/api/v0/jobs/${id}/`, { as: alice })
  }
})

test('a library the caller reads but may not launch jobs on is 403, one they cannot read 400, as other library parameters', async () => {
  const bobs = await makeLibrary(t.db, bob)
  const tagSet = await makeTagSet(t.db, alice, tagSetLibrary)
  const hidden = await windows({ destinationTagSet: String(tagSet), library: String(bobs) })
  assert.is(hidden.statusCode, 400)
  assert.equal(Object.keys(hidden.data.parameters), ['library'])
  await grant(t.db, bob, { user: alice.id }, { library: bobs }, ['read'])
  const readOnly = await windows({ destinationTagSet: String(tagSet), library: String(bobs) })
  assert.is(readOnly.statusCode, 403)
  const { name } = await t.db.selectFrom('libraries').select('name').where('id', '=', bobs).executeTakeFirstOrThrow()
  assert.is(readOnly.data.detail, `You may not launch jobs on library ${bobs} (${name}), given as library.`)
})

test('the search is made when the job runs: a re-run reads a file imported after its first run', async () => {
  const tagSet = await makeTagSet(t.db, alice, tagSetLibrary)
  const created = await windows({ destinationTagSet: String(tagSet), library: String(season), folder: 'site-C/' })
  assert.is(created.statusCode, 201, JSON.stringify(created.data))
  const id = created.data.id
  assert.is((await run(id)).status_id, 4, 'nothing in site-C/ yet: the job fails')
  const imported = await importMedia(t, alice, season, makeWav({ seconds: 3, sampleRate: 8000 }), {
    fields: { alias: 'site-C/2024/new.wav' },
  })
  assert.is(imported.statusCode, 201, JSON.stringify(imported.data))
  const again = await t.call('PATCH', `/api/v0/jobs/${id}/`, { as: alice, body: { requestedStatus: 2 } })
  assert.is(again.data.status, 2)
  assert.is((await run(id)).status_id, 6)
  assert.equal(await searched(id), ['site-C/2024/new.wav'])
  const tags = await t.db
    .selectFrom('tags')
    .select('media_file_id')
    .distinct()
    .where('tag_set_id', '=', tagSet)
    .execute()
  assert.equal(
    tags.map((r) => r.media_file_id),
    [imported.data.id],
  )
})

test('discovery over a folder with no files ends in Error, its note saying a library (and folder) can give the files', async () => {
  const created = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: {
      name: 'empty folder',
      type: 1,
      parameters: {
        sourceTagSet: String(await makeTagSet(t.db, alice, tagSetLibrary)),
        destinationTagSet: String(await makeTagSet(t.db, alice, tagSetLibrary)),
        library: String(season),
        folder: 'site-Z/',
      },
    },
  })
  assert.is(created.statusCode, 201, JSON.stringify(created.data))
  assert.is((await run(created.data.id)).status_id, 4)
  const note = await t.db
    .selectFrom('job_result_files')
    .select('notes')
    .where('job_id', '=', created.data.id)
    .executeTakeFirstOrThrow()
  assert.is(
    note.notes,
    'This job has no media file to search: give mediaFileId, a library (and folder) holding media files, or add media files to its project.',
  )
})

test('wholeSearch: the project, library and folder even when mediaFileId names one file, by id', async () => {
  const created = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: {
      name: 'child-like',
      type: 7,
      status: 5,
      parameters: {
        destinationTagSet: String(await makeTagSet(t.db, alice, tagSetLibrary)),
        library: String(season),
        folder: 'site-A/',
        mediaFileId: String(files['site-A/2023/c.wav']),
      },
    },
  })
  assert.is(created.statusCode, 201, JSON.stringify(created.data))
  const job = {
    db: t.db,
    job: await jobRow(t.db, created.data.id),
    owner: { id: alice.id, username: alice.username, isAdmin: false },
    params: { library: season, folder: 'site-A/', mediaFileId: files['site-A/2023/c.wav'] },
  }
  const ids = async (wholeSearch?: boolean) =>
    (await jobMediaQuery(job, { wholeSearch }).select('m.id').orderBy('m.id').execute()).map((r) => r.id)
  assert.equal(await ids(), [files['site-A/2023/c.wav']])
  assert.equal(
    await ids(true),
    [files['site-A/2024/a.wav'], files['site-A/2024/b.wav'], files['site-A/2023/c.wav']].sort((a, b) => a - b),
  )
})

test.run()
