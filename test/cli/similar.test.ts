import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { BUILTIN_KIND, storeEmbeddings } from '../../server/analysis/similar/store.js'
import type { TestUser } from '../helpers/app.js'
import { makeMediaFile, makeTag, makeTagClass, makeTagSet } from '../helpers/records.js'
import { makeRecords } from '../helpers/world.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// mas similar and mas train against a real server, over stored embeddings of a known structure: file "near.wav"
// holds windows like the query stretch (nearer the earlier they are), "far.wav" windows unlike it.

let w: CliWorld
let alice: TestUser
let tag: number
let library: number

const D = 8
async function store(mediaFile: number, like: (i: number) => number) {
  const vectors = new Float32Array(10 * D)
  for (let i = 0; i < 10; i++) {
    const a = like(i)
    vectors[i * D] = a
    vectors[i * D + 1] = Math.sqrt(1 - a * a)
  }
  await storeEmbeddings(w.t.db, {
    mediaFile,
    library,
    kind: BUILTIN_KIND,
    windowSeconds: 1,
    hopSeconds: 1,
    lengthSeconds: 1,
    stepSeconds: 1,
    duration: 10,
    dimensions: D,
    vectors,
  })
}

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  const r = await makeRecords(w.t, alice, { tagSet: 'calls', tagClass: { className: 'whistle' } })
  library = r.library
  const query = await makeMediaFile(w.t.db, alice, library, { alias: 'query.wav' })
  const near = await makeMediaFile(w.t.db, alice, library, { alias: 'near.wav' })
  const far = await makeMediaFile(w.t.db, alice, library, { alias: 'far.wav' })
  await store(query, () => 1)
  await store(near, (i) => 1 - 0.01 * i)
  await store(far, (i) => 0.1 * (i % 3))
  tag = await makeTag(
    w.t.db,
    alice,
    { tagSet: r.tagSet, mediaFile: query, tagClass: r.tagClass },
    { startTime: 0, endTime: 10 },
  )
  const reviewed = await makeTagSet(w.t.db, alice, library, 'whistles reviewed')
  const whistle = await makeTagClass(w.t.db, alice, library, 'whistle-2')
  for (const [start, decision] of [
    [0, 'yes'],
    [5, 'yes'],
  ] as const) {
    const decided = await makeTag(
      w.t.db,
      alice,
      { tagSet: reviewed, mediaFile: near, tagClass: whistle },
      { startTime: start, endTime: start + 1 },
    )
    const res = await w.t.call('POST', '/api/v0/tagReview/', { as: alice, body: { tag: decided, decision } })
    assert.is(res.statusCode, 201, res.body)
  }
  await makeTagSet(w.t.db, alice, library, 'whistles found')
})
test.after(async () => {
  await w.close()
})

test('similar --tag: a table of the nearest windows by media file alias, nearest first', async () => {
  const run = await w.mas(['similar', '--tag', String(tag), '-k', '3'])
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stdout, /^MEDIA FILE\s+START\s+END\s+DISTANCE\n/)
  const rows = run.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(/\s+/))
  assert.equal(
    rows.map((r) => [r[0], r[1]]),
    [
      ['near.wav', '0'],
      ['near.wav', '1'],
      ['near.wav', '2'],
    ],
  )
  assert.match(run.stderr, /3 windows, nearest first/)
})

test('similar --media-file by alias with --start and --end, --json; refusals in one line', async () => {
  const answer = json(
    await w.mas([
      'similar',
      '--media-file',
      'query.wav',
      '--start',
      '0',
      '--end',
      '10',
      '-k',
      '2',
      '--exact',
      '--json',
    ]),
  )
  assert.equal(
    answer.results.map((r: { startTime: number }) => r.startTime),
    [0, 1],
  )
  const none = await w.mas(['similar', '--media-file', 'nowhere.wav', '--start', '0', '--end', '1'])
  assert.is(none.code, 1, none.stderr)
  assert.match(none.stderr, /nowhere\.wav/)
  const backwards = await w.mas(['similar', '--media-file', 'query.wav', '--start', '3', '--end', '1'])
  assert.not.equal(backwards.code, 0)
  assert.match(backwards.stderr, /--end after --start/)
  const neither = await w.mas(['similar'])
  assert.not.equal(neither.code, 0)
  assert.match(neither.stderr, /give --tag/)
})

test('train --tag-set --destination-tag-set by names: a TrainClassifier job is queued', async () => {
  const run = await w.mas(['train', '--tag-set', 'whistles reviewed', '--destination-tag-set', 'whistles found'])
  assert.is(run.code, 0, run.stderr)
  const id = Number(run.stdout.trim())
  const job = await w.t.db
    .selectFrom('jobs')
    .select(['type_id', 'status_id'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  assert.equal([job.type_id, job.status_id], [15, 2])
  const params = await w.t.db
    .selectFrom('job_parameters')
    .select(['name', 'value'])
    .where('job_id', '=', id)
    .orderBy('name')
    .execute()
  assert.ok(params.some((p) => p.name === 'sourceTagSet') && params.some((p) => p.name === 'destinationTagSet'))
  assert.match(run.stderr, /job \d+ queued/)
  const missing = await w.mas(['train', '--tag-set', 'no such set', '--destination-tag-set', 'whistles found'])
  assert.not.equal(missing.code, 0)
  assert.match(missing.stderr, /no such set/)
})

test.run()
