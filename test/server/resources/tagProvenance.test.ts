import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Worker } from '../../../server/jobs/worker.js'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { waitForStatus } from '../../helpers/jobs.js'
import { makeMediaFile, makeMetaData, makeTag, makeTagSet } from '../../helpers/records.js'
import { makeRecords, tagRefs, type Records } from '../../helpers/world.js'

// A tag's provenance (docs/decisions.md, "Provenance"): what made it, given when it is created (an import says
// which tool), written by every job that writes tags, never changed by an update, null for a tag made by hand.

const API = '/api/v0'
const t = suiteApp(test)
let alice: TestUser
let records: Records

test.before(async () => {
  alice = await t.user('provenance')
  records = await makeRecords(t, alice)
})

const body = (more: Record<string, unknown> = {}) => ({
  ...tagRefs(records),
  startTime: 1,
  endTime: 2,
  minFrequency: 100,
  maxFrequency: 200,
  ...more,
})
const birdnet = { source: 'BirdNET-Analyzer', version: '2.4', parameters: { minConfidence: 0.25 } }

test('a tag made by hand has none; one given on create keeps it, single or in bulk, in its detail, lists and export', async () => {
  const hand = await t.call('POST', `${API}/tag/`, { as: alice, body: body() })
  assert.is(hand.statusCode, 201, hand.body)
  assert.is(hand.data.provenance, null)
  const one = await t.call('POST', `${API}/tag/`, {
    as: alice,
    body: body({ machineTagged: true, strength: 0.8, provenance: birdnet }),
  })
  assert.is(one.statusCode, 201, one.body)
  assert.equal(one.data.provenance, birdnet)
  const bulk = await t.call('POST', `${API}/tag/`, {
    as: alice,
    body: [body({ provenance: birdnet }), body({ startTime: 3, endTime: 4 })],
  })
  assert.is(bulk.statusCode, 201, bulk.body)
  assert.equal(
    bulk.data.map((r: { provenance: unknown }) => r.provenance),
    [birdnet, null],
  )

  assert.equal((await t.call('GET', `${API}/tag/${one.data.id}/`, { as: alice })).data.provenance, birdnet)
  const listed = await t.call('GET', `${API}/tag/?tagSet=${records.tagSet}`, { as: alice })
  assert.equal(
    Object.fromEntries(listed.data.results.map((r: { id: number; provenance: unknown }) => [r.id, r.provenance])),
    {
      [hand.data.id]: null,
      [one.data.id]: birdnet,
      [bulk.data[0].id]: birdnet,
      [bulk.data[1].id]: null,
    },
  )
  const exported = await t.call('GET', `${API}/tagSet/${records.tagSet}/tags.ndjson`, { as: alice })
  const lines = exported.body
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: number; provenance: unknown })
  assert.equal(lines.find((l) => l.id === one.data.id)?.provenance, birdnet)
})

test('an update never changes it: PATCH and PUT keep what made the tag', async () => {
  const made = await t.call('POST', `${API}/tag/`, { as: alice, body: body({ provenance: birdnet }) })
  const patched = await t.call('PATCH', `${API}/tag/${made.data.id}/`, {
    as: alice,
    body: { provenance: { source: 'me' }, startTime: 1.5 },
  })
  assert.is(patched.statusCode, 200, patched.body)
  assert.equal([patched.data.startTime, patched.data.provenance], [1.5, birdnet])
  const put = await t.call('PUT', `${API}/tag/${made.data.id}/`, { as: alice, body: body({ provenance: null }) })
  assert.is(put.statusCode, 200, put.body)
  assert.equal(put.data.provenance, birdnet)
})

test('a provenance that is not an object, or too long, is refused with the field named, and nothing is stored', async () => {
  const before = await t.db.selectFrom('tags').select('id').where('tag_set_id', '=', records.tagSet).execute()
  for (const provenance of ['BirdNET', [1], 3, { source: 'x'.repeat(10_001) }]) {
    const res = await t.call('POST', `${API}/tag/`, { as: alice, body: body({ provenance }) })
    assert.is(res.statusCode, 400, res.body)
    assert.ok(Array.isArray(res.data.provenance), res.body)
  }
  const bulk = await t.call('POST', `${API}/tag/`, { as: alice, body: [body(), body({ provenance: 'x' })] })
  assert.is(bulk.statusCode, 400)
  assert.equal(bulk.data[0], {})
  assert.is(
    (await t.db.selectFrom('tags').select('id').where('tag_set_id', '=', records.tagSet).execute()).length,
    before.length,
  )
})

test("a job writes its type, mas's version, the job and its parameters (with the seed it chose) on every tag it makes", async () => {
  const library = records.library
  const media = await makeMediaFile(t.db, alice, library, { alias: 'site/a.wav' })
  await makeMetaData(t.db, media, 'durationInSeconds', '10')
  const destination = await makeTagSet(t.db, alice, library)
  await makeTag(t.db, alice, { ...tagRefs(records), tagSet: destination })
  const created = await t.call('POST', `${API}/jobs/`, {
    as: alice,
    body: {
      name: 'windows',
      type: 2,
      parameters: {
        numWindowsToTag: '5',
        windowSizeInSeconds: '1',
        library: String(library),
        destinationTagSet: String(destination),
      },
    },
  })
  assert.is(created.statusCode, 201, created.body)
  const worker = new Worker({ db: t.db, config: t.app.config, pollMs: 20 }).start()
  try {
    assert.is((await waitForStatus(t.db, created.data.id, [4, 5, 6])).status_id, 6)
  } finally {
    await worker.stop()
  }
  const made = await t.db
    .selectFrom('tags')
    .select(['provenance', 'randomly_chosen'])
    .where('tag_set_id', '=', destination)
    .where('randomly_chosen', '=', true)
    .execute()
  assert.is(made.length, 5)
  const seed = (
    await t.db
      .selectFrom('job_parameters')
      .select('value')
      .where('job_id', '=', created.data.id)
      .where('name', '=', 'seed')
      .executeTakeFirstOrThrow()
  ).value
  for (const { provenance } of made) {
    assert.is(provenance?.source, 'mas RandomWindowTagging')
    assert.is(provenance?.job, created.data.id)
    assert.match(String(provenance?.version), /^\d+\.\d+\.\d+/)
    assert.equal(provenance?.parameters, {
      numWindowsToTag: 5,
      windowSizeInSeconds: 1,
      library,
      destinationTagSet: destination,
      seed: Number(seed),
    })
  }
  // the tag made by hand in the same set has none
  assert.ok(
    (
      await t.db
        .selectFrom('tags')
        .select('provenance')
        .where('tag_set_id', '=', destination)
        .where('randomly_chosen', '=', false)
        .execute()
    ).every((r) => r.provenance === null),
  )
})

test.run()
