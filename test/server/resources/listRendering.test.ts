import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { atFixedTime } from '../../helpers/clock.js'
import { makeJob, makeProject } from '../../helpers/jobs.js'
import type { TableName } from '../../../server/db/schema.js'
import { toJson } from '../../../server/http/fields.js'
import { appPermissions } from '../../../server/resources/appPermission.js'
import { anyTable, type ResourceDef } from '../../../server/resources/core/define.js'
import { tagClasses } from '../../../server/resources/tagClass.js'
import { tags } from '../../../server/resources/tag.js'
import { tagSets } from '../../../server/resources/tagSet.js'
import { grant, makeMediaFile, makeMetaData, makeTag, makeTagSet } from '../../helpers/records.js'
import { makeRecords } from '../../helpers/world.js'

// Lists are written as JSON by the database, and so are the details of resources without an `embed`; the
// answers of writes are rendered by the server (toJson, docs/decisions.md §11): every record of a list must be
// the record its detail answer gives, and a detail the database writes the record toJson gives, whatever
// its values.

const API = '/api/v0'
const t = suiteApp(test)
let owner: TestUser
let lib: number
let tagSet: number
let tagClass: number

test.before(async () => {
  ;({
    owner,
    library: lib,
    tagSet,
    tagClass,
  } = await makeRecords(t, 'render-owner', {
    tagClass: { className: 'Turdus merula', displayName: 'Blackbird "common"' },
  }))
})

/** The record as the server renders its row itself (toJson), through JSON as an answer would carry it. */
async function renderedByServer<T extends TableName>(def: ResourceDef<T>, id: number): Promise<unknown> {
  const row = await anyTable(t.db)
    .selectFrom(`${def.table} as r`)
    .selectAll()
    .where('r.id', '=', id)
    .executeTakeFirstOrThrow()
  return JSON.parse(JSON.stringify(toJson(def.compiled.fields, row)))
}

/** GET a list (every page) and each of its records' details; the two must agree record for record. With
 * `def` (a resource whose details the database writes), each detail must also be what toJson renders. */
async function listMatchesDetails<T extends TableName>(
  list: string,
  detail: (id: number) => string,
  expectIds: number[],
  def?: ResourceDef<T>,
) {
  const res = await t.call('GET', `${API}/${list}`, { as: owner, headers: { host: 'mas.example:8000' } })
  assert.is(res.statusCode, 200, `${list}: ${res.body}`)
  assert.is(res.headers['content-type'], 'application/json')
  const ids = res.data.results.map((r: { id: number }) => r.id)
  for (const id of expectIds) assert.ok(ids.includes(id), `${list} lists ${id}`)
  for (const record of res.data.results) {
    const one = await t.call('GET', `${API}/${detail(record.id)}`, { as: owner, headers: { host: 'mas.example:8000' } })
    assert.is(one.statusCode, 200)
    assert.equal(record, one.data, `${list}: record ${record.id}`)
    assert.equal(Object.keys(record), Object.keys(one.data), `${list}: the fields of ${record.id} in their order`)
    if (def) {
      const server = await renderedByServer(def, record.id)
      assert.equal(one.data, server, `${detail(record.id)} as toJson renders it`)
      assert.equal(
        Object.keys(one.data),
        Object.keys(server as object),
        `${detail(record.id)}: its fields in toJson's order`,
      )
    }
  }
}

test('media files: addresses of every kind of file name, timestamps, nulls and embedded metadata', async () => {
  const names = [
    'plain/rec_01.wav',
    'site 1/rec #1.wav',
    "été/chant d'oiseau (2).flac",
    '100%/a?b&c=d+e.wav',
    'ünï/😀 emoji.wav',
    'a~b*c!d/e.f-g_h.wav',
  ]
  // the database writes timestamps in its own JSON form: the same as toJson's for every year an answer can hold
  const starts = [undefined, '2021-06-30 23:59:59', '0001-01-01 00:00:00', '0999-12-31 23:59:59', '9999-12-31 23:59:59']
  const ids: number[] = []
  for (const [i, file] of names.entries()) {
    const id = await makeMediaFile(t.db, owner, lib, {
      file,
      alias: i % 2 ? `alias ${i}` : '',
      realStartTime: starts[i % starts.length],
      uploadDate: '2020-02-29 12:00:00',
    })
    if (i % 3 === 0) {
      await makeMetaData(t.db, id, 'fileSize', String(1000 * i))
      await makeMetaData(t.db, id, 'note "quoted"\n', 'tab\tand \\ backslash', true)
    }
    ids.push(id)
  }
  await listMatchesDetails(`mediaFile/?library=${lib}`, (id) => `mediaFile/${id}/`, ids)
  await listMatchesDetails(`library/${lib}/mediaFiles/`, (id) => `mediaFile/${id}/`, ids)
})

test("tags: floats of every magnitude, in the tag list and in the tag set's list", async () => {
  const mediaFile = await makeMediaFile(t.db, owner, lib)
  const values = [
    { startTime: 0.1, endTime: 0.30000000000000004, minFrequency: 123456.789, maxFrequency: 1e21, strength: -0.5 },
    { startTime: 1e-7, endTime: 2.5e-5, minFrequency: 0, maxFrequency: 22050, strength: 1 },
    { startTime: 3600, endTime: 86400.125, minFrequency: 1 / 3, maxFrequency: 2 ** 53, strength: 0 },
  ]
  const ids: number[] = []
  for (const v of values) ids.push(await makeTag(t.db, owner, { tagSet, mediaFile, tagClass }, v))
  await listMatchesDetails(`tag/?tagSet=${tagSet}`, (id) => `tag/${id}/`, ids, tags)
  await listMatchesDetails(`tagSet/${tagSet}/tags/`, (id) => `tag/${id}/`, ids)
  const res = await t.call('GET', `${API}/tag/${ids[1]}/`, { as: owner })
  assert.is(res.data.startTime, 1e-7)
  assert.is(res.data.maxFrequency, 22050)
})

test('tag classes, tag sets and grants: strings with quotes, choices and nulls', async () => {
  const other = await t.user('render-other')
  const permission = await grant(t.db, owner, { user: other.id }, { library: lib }, ['read'])
  const looseSet = await makeTagSet(t.db, owner, null, 'no library "set"')
  await listMatchesDetails(`tagClass/?library=${lib}`, (id) => `tagClass/${id}/`, [tagClass], tagClasses)
  await listMatchesDetails('tagSet/', (id) => `tagSet/${id}/`, [tagSet, looseSet], tagSets)
  await listMatchesDetails('appPermission/', (id) => `appPermission/${id}/`, [permission], appPermissions)
})

test('jobs: embedded parameters, and a running job whose worker went silent', async () => {
  const project = await makeProject(t.db, owner)
  const plain = await makeJob(t.db, owner, project, 1)
  const withParams = await makeJob(t.db, owner, project, 1, { threshold: '0.5', 'label "x"': 'a\\b' })
  const silent = await makeJob(t.db, owner, project, 1)
  const running = await makeJob(t.db, owner, project, 1)
  // the leases are judged against the request's clock: stopped, so that the silent worker was last heard 20.2 s
  // before every request, however long the requests take
  const listed = await atFixedTime(async () => {
    const ago = (s: number) => new Date(Date.now() - s * 1000)
    await t.db
      .updateTable('jobs')
      .set({
        status_id: 3,
        is_running: true,
        lease_expires: ago(5),
        lease_renewed: ago(20.2),
        started_date: '2026-01-02 03:04:05',
      })
      .where('id', '=', silent)
      .execute()
    await t.db
      .updateTable('jobs')
      .set({ status_id: 3, is_running: true, lease_expires: new Date(Date.now() + 60_000) })
      .where('id', '=', running)
      .execute()
    await listMatchesDetails('jobs/', (id) => `jobs/${id}/`, [plain, withParams, silent, running])
    return (await t.call('GET', `${API}/jobs/`, { as: owner })).data.results
  })
  const of = (id: number) => listed.find((j: { id: number }) => j.id === id)
  assert.equal([of(silent).isRunning, of(silent).workerSilentSeconds], [false, 20])
  assert.equal([of(running).isRunning, of(running).workerSilentSeconds], [true, null])
  assert.equal(
    of(withParams).jobparameters_set.map((p: { name: string }) => p.name),
    ['threshold', 'label "x"'],
  )
})

test("a single create's answer, written by the database, is the record toJson renders", async () => {
  const mediaFile = await makeMediaFile(t.db, owner, lib)
  const created = [
    await t.call('POST', `${API}/tag/`, {
      as: owner,
      body: {
        tagSet,
        mediaFile,
        tagClass,
        startTime: 1e-7,
        endTime: 0.30000000000000004,
        minFrequency: 1 / 3,
        maxFrequency: 1e21,
        strength: -0.5,
        userTagged: true,
      },
    }),
    await t.call('POST', `${API}/tagClass/`, {
      as: owner,
      body: { library: lib, className: 'Parus major', displayName: 'Great tit "\\ \t é"' },
    }),
  ]
  for (const [i, def] of [tags, tagClasses].entries()) {
    const res = created[i] as { statusCode: number; body: string; data: { id: number } }
    assert.is(res.statusCode, 201, res.body)
    const server = await renderedByServer(def as ResourceDef<TableName>, res.data.id)
    assert.equal(res.data, server)
    assert.equal(Object.keys(res.data), Object.keys(server as object))
  }
})

test('a page past the first keeps its envelope: count, links and the records of that page', async () => {
  const mediaFile = await makeMediaFile(t.db, owner, lib)
  const set = await makeTagSet(t.db, owner, lib)
  for (let i = 0; i < 5; i++) await makeTag(t.db, owner, { tagSet: set, mediaFile, tagClass }, { startTime: i })
  const res = await t.call('GET', `${API}/tagSet/${set}/tags/?page=2&page_size=2`, { as: owner })
  assert.is(res.statusCode, 200)
  assert.is(res.data.count, 5)
  assert.match(res.data.next, /page=3/)
  assert.match(res.data.previous, /page_size=2/)
  assert.equal(
    res.data.results.map((r: { startTime: number }) => r.startTime),
    [2, 3],
  )
})

test.run()
