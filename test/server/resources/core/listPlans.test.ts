import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Caller } from '../../../../server/access.js'
import type { TableName } from '../../../../server/db/schema.js'
import type { CallerBase } from '../../../../server/resources/core/listStatements.js'
import { plannedCountedPage } from '../../../../server/resources/fast/page.js'
import { StatementCache, type Plan } from '../../../../server/resources/fast/statements.js'
import { readable } from '../../../../server/resources/core/read.js'
import type { ResourceDef } from '../../../../server/resources/core/define.js'
import { jobs } from '../../../../server/resources/jobs.js'
import { sensorArrays } from '../../../../server/resources/sensor.js'
import { mediaFiles } from '../../../../server/resources/mediaFile.js'
import { tagClasses } from '../../../../server/resources/tagClass.js'
import { tags } from '../../../../server/resources/tag.js'
import { tagSets } from '../../../../server/resources/tagSet.js'
import { suiteApp, type TestUser } from '../../../helpers/app.js'
import { inlinedIdRule, usernameRule, usersUnder } from '../../../helpers/callers.js'
import { makeJob, makeProject } from '../../../helpers/jobs.js'
import { grant, makeLibrary, makeMediaFile } from '../../../helpers/records.js'

// An unfiltered page of a top-level list is read by a statement compiled once per shape, with stand-ins for
// the caller's id, the request's origin, the clock and the offset (server/resources/fast/page.ts):
// whoever asks next, from whatever host, at whatever time, for whichever page, gets the answer of its own
// request. A rule that uses more of the caller than its id is never planned.

const API = '/api/v0'
const t = suiteApp(test)

/** the plans of these tests' pages (the accelerators keep one such cache) */
const plans = new StatementCache<Plan>(64)

const base =
  <T extends TableName>(def: ResourceDef<T>): CallerBase =>
  (db, caller) =>
    readable(db, def, caller)
const request = (caller: Caller, query: Record<string, string> = {}) => ({
  caller,
  query,
  origin: 'http://mas.example',
  now: new Date(),
})
const alice: Caller = { id: 7, username: 'alice', isAdmin: false }

test('the lists of the resources are planned for callers of every kind; filtered lists and other rules are not', () => {
  for (const def of [mediaFiles, jobs, tags, tagSets, tagClasses] as ResourceDef<TableName>[]) {
    for (const caller of [alice, { ...alice, isAdmin: true }]) {
      assert.ok(
        plannedCountedPage(plans, def, base(def), request(caller, { page: '2' }), 100, 100),
        `${def.name} (admin: ${caller.isAdmin})`,
      )
    }
  }
  assert.is(
    plannedCountedPage(plans, mediaFiles, base(mediaFiles), request(alice, { alias: 'a' }), 100, 0),
    null,
    'a filtered list',
  )
  assert.is(
    plannedCountedPage(plans, sensorArrays, base(sensorArrays), request(alice), 100, 0),
    null,
    'a list rendered by the server',
  )
  for (const rule of [usernameRule, inlinedIdRule]) {
    const def = usersUnder(`users by ${rule === usernameRule ? 'username' : 'inlined id'}`, rule)
    assert.is(plannedCountedPage(plans, def, base(def), request(alice), 100, 0), null)
  }
})

let owner: TestUser
let other: TestUser
let grantee: TestUser
let stranger: TestUser
let admin: TestUser
let lib: number
let ownFiles: number[]

test.before(async () => {
  owner = await t.user('plans-owner')
  other = await t.user('plans-other')
  grantee = await t.user('plans-grantee')
  stranger = await t.user('plans-stranger')
  admin = await t.user('plans-admin', { admin: true })
  lib = await makeLibrary(t.db, owner)
  ownFiles = []
  for (let i = 0; i < 5; i++) ownFiles.push(await makeMediaFile(t.db, owner, lib, { file: `site a/rec ${i}.wav` }))
  const otherLib = await makeLibrary(t.db, other)
  for (let i = 0; i < 3; i++) await makeMediaFile(t.db, other, otherLib)
  await grant(t.db, owner, { user: grantee.id }, { library: lib }, ['read'])
})

test('callers, hosts and pages asked in turn each get the page of their own request', async () => {
  const asked = [
    { as: owner, host: 'first.example', page: 2 },
    { as: other, host: 'second.example:8000', page: 1 },
    { as: stranger, host: 'first.example', page: 1 },
    { as: grantee, host: 'third.example', page: 3 },
    { as: owner, host: 'second.example:8000', page: 1 },
    { as: grantee, host: 'first.example', page: 1 },
    { as: admin, host: 'third.example', page: 4 },
    { as: other, host: 'first.example', page: 2 },
    { as: admin, host: 'first.example', page: 1 },
  ]
  for (const { as, host, page } of asked) {
    const headers = { host }
    const res = await t.call('GET', `${API}/mediaFile/?page_size=2&page=${page}`, { as, headers })
    const count = as === admin ? 8 : as === other ? 3 : as === stranger ? 0 : 5
    if (page > Math.max(1, Math.ceil(count / 2))) {
      assert.is(res.statusCode, 404, `${as.username} page ${page}`)
      continue
    }
    assert.is(res.statusCode, 200, res.body)
    assert.is(res.data.count, count, `${as.username}: the count of its own list`)
    // the same page of a filtered list is built for its request alone
    const filtered = await t.call('GET', `${API}/mediaFile/?page_size=2&page=${page}&active=true`, { as, headers })
    assert.equal(res.data.results, filtered.data.results, `${as.username} page ${page}`)
    for (const record of res.data.results)
      assert.ok(record.url.startsWith(`http://${host}/media/`), `${record.url} is an address on ${host}`)
    const ids = res.data.results.map((r: { id: number }) => r.id)
    if (as === admin) assert.is(ids.length, 2)
    else if (as === other)
      assert.ok(
        ids.length && ids.every((id: number) => !ownFiles.includes(id)),
        'the other owner sees only its own files',
      )
    else
      assert.equal(ids, as === stranger ? [] : ownFiles.slice((page - 1) * 2, page * 2), `${as.username} page ${page}`)
  }
})

test("a job's lease is judged against the clock of each request", async () => {
  const project = await makeProject(t.db, owner)
  const job = await makeJob(t.db, owner, project, 1)
  await t.db
    .updateTable('jobs')
    .set({ status_id: 3, is_running: true, lease_expires: new Date(Date.now() + 1500) })
    .where('id', '=', job)
    .execute()
  const listed = async () =>
    (await t.call('GET', `${API}/jobs/`, { as: owner })).data.results.find((j: { id: number }) => j.id === job)
  assert.equal([(await listed()).isRunning, (await listed()).workerSilentSeconds], [true, null])
  await new Promise((resolve) => setTimeout(resolve, 2600))
  const later = await listed()
  assert.is(later.isRunning, false, 'the lease ran out since the first page')
  assert.ok(later.workerSilentSeconds >= 1)
})

test.run()
