import { randomBytes } from 'node:crypto'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeJob, makeProject } from '../../helpers/jobs.js'
import { postMultipart, storedFiles } from '../../helpers/upload.js'
import { storeResultFile } from '../../../server/analysis/resultFiles.js'
import { makeCallers } from '../../helpers/world.js'

// jobResultFile/: multipart create (parts resultFile, job, notes), the owner-only rule, and the
// stored file following its record.

const t = suiteApp(test)
let alice: TestUser, bob: TestUser, admin: TestUser
let job: number, bobsJob: number

const upload = (as: TestUser, parts: Record<string, any>) => postMultipart(t, '/api/v0/jobResultFile/', as, parts)
const download = (url: string, as?: TestUser) =>
  t.app.inject({ method: 'GET', url: new URL(url).pathname, headers: as?.auth ?? {} })

test.before(async () => {
  ;({ alice, bob, admin } = await makeCallers(t))
  job = await makeJob(t.db, alice, await makeProject(t.db, alice), 8)
  bobsJob = await makeJob(t.db, bob, await makeProject(t.db, bob), 8)
})

test('multipart create answers 201 as the original service; the URL serves the same bytes to the owner', async () => {
  const bytes = randomBytes(100_000)
  const res = await upload(alice, {
    job: String(job),
    notes: 'golden',
    resultFile: { data: bytes, filename: 'golden result.bin' },
  })
  assert.is(res.statusCode, 201, res.body)
  assert.is(res.headers.allow, 'GET, POST, HEAD, OPTIONS')
  assert.equal(Object.keys(res.data), ['id', 'job', 'creationDate', 'resultFile', 'notes'])
  assert.is(res.data.job, job)
  assert.is(res.data.notes, 'golden')
  assert.match(res.data.creationDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
  assert.match(res.data.resultFile, /^http:\/\/localhost:80\/media\/jobResultFiles\/golden_result_[0-9a-f]{24}\.bin$/)
  const got = await download(res.data.resultFile, alice)
  assert.is(got.statusCode, 200)
  assert.ok(got.rawPayload.equals(bytes))
  assert.is((await download(res.data.resultFile, admin)).statusCode, 200)
  assert.is((await download(res.data.resultFile, bob)).statusCode, 404)

  const text = await upload(alice, {
    resultFile: { data: Buffer.from('a,b\n1,2\n'), filename: '../../report.csv' },
    job: String(job),
  })
  assert.is(text.statusCode, 201)
  assert.is(text.data.notes, '')
  assert.match(text.data.resultFile, /\/media\/jobResultFiles\/report_[0-9a-f]{24}\.csv$/)
  assert.is((await download(text.data.resultFile, alice)).headers['content-type'], 'text/csv; charset=utf-8')
})

test('JSON, or multipart without a file, is 400 {"resultFile": ["No file was submitted."]}; nothing is stored', async () => {
  const before = storedFiles(t)
  const json = await t.call('POST', '/api/v0/jobResultFile/', { as: alice, body: { job, notes: 'x' } })
  assert.is(json.statusCode, 400)
  assert.equal(json.data, { resultFile: ['No file was submitted.'] })
  assert.is(json.headers.allow, 'GET, POST, HEAD, OPTIONS')
  const noFile = await upload(alice, { job: String(job), notes: 'x' })
  assert.equal([noFile.statusCode, noFile.data], [400, { resultFile: ['No file was submitted.'] }])
  const noJob = await upload(alice, { resultFile: { data: Buffer.from('x'), filename: 'x.txt' } })
  assert.equal([noJob.statusCode, noJob.data], [400, { job: ['This field is required.'] }])
  const nothing = await t.call('POST', '/api/v0/jobResultFile/', { as: alice, body: {} })
  assert.equal(nothing.data, { job: ['This field is required.'], resultFile: ['No file was submitted.'] })
  assert.equal(storedFiles(t), before)
  assert.is((await t.db.selectFrom('job_result_files').select('id').where('notes', '=', 'x').execute()).length, 0)
})

test('only the job owner may attach, see and change result files', async () => {
  const before = storedFiles(t)
  const foreign = await upload(alice, {
    job: String(bobsJob),
    resultFile: { data: Buffer.from('x'), filename: 'x.txt' },
  })
  assert.is(foreign.statusCode, 400)
  assert.equal(foreign.data, { job: [`Invalid pk "${bobsJob}" - object does not exist.`] })
  assert.equal(storedFiles(t), before)

  const mine = (
    await upload(alice, {
      job: String(job),
      notes: 'mine',
      resultFile: { data: Buffer.from('mine'), filename: 'm.txt' },
    })
  ).data
  assert.is((await t.call('GET', `/api/v0/jobResultFile/${mine.id}/`, { as: bob })).statusCode, 404)
  assert.is(
    (await t.call('PATCH', `/api/v0/jobResultFile/${mine.id}/`, { as: bob, body: { notes: 'x' } })).statusCode,
    404,
  )
  assert.is((await t.call('DELETE', `/api/v0/jobResultFile/${mine.id}/`, { as: bob })).statusCode, 404)
  const bobsList = await t.call('GET', '/api/v0/jobResultFile/', { as: bob })
  assert.ok(bobsList.data.results.every((r: any) => r.job === bobsJob))
  const list = await t.call('GET', `/api/v0/jobResultFile/?job=${job}`, { as: alice })
  assert.is(list.statusCode, 200)
  assert.ok(list.data.results.some((r: any) => r.id === mine.id))
  assert.is((await t.call('GET', `/api/v0/jobResultFile/${mine.id}/`, { as: admin })).data.notes, 'mine')

  const patched = await t.call('PATCH', `/api/v0/jobResultFile/${mine.id}/`, {
    as: alice,
    body: { notes: 'better', resultFile: 'http://evil/x' },
  })
  assert.is(patched.statusCode, 200)
  assert.is(patched.data.notes, 'better')
  assert.is(patched.data.resultFile, mine.resultFile)
  const other = await makeJob(t.db, alice, await makeProject(t.db, alice), 8)
  const put = await t.call('PUT', `/api/v0/jobResultFile/${mine.id}/`, {
    as: alice,
    body: { job: other, notes: 'moved' },
  })
  assert.is(put.statusCode, 200)
  assert.equal([put.data.job, put.data.notes], [other, 'moved'])
  const stolen = await t.call('PATCH', `/api/v0/jobResultFile/${mine.id}/`, { as: alice, body: { job: bobsJob } })
  assert.is(stolen.statusCode, 400)
})

test('DELETE removes the record and then its stored file', async () => {
  const res = await upload(alice, { job: String(job), resultFile: { data: Buffer.from('bye'), filename: 'bye.txt' } })
  const name = new URL(res.data.resultFile).pathname.slice('/media/'.length)
  assert.ok(storedFiles(t).includes(name))
  const del = await t.call('DELETE', `/api/v0/jobResultFile/${res.data.id}/`, { as: alice })
  assert.is(del.statusCode, 204)
  assert.not.ok(storedFiles(t).includes(name))
  assert.is((await download(res.data.resultFile, alice)).statusCode, 404)
})

test("storeResultFile stores a worker's output under a safe name, served to the owner", async () => {
  const storage = t.app.storage
  const row = await storeResultFile(t.db, storage, job, 'spectra/summary.json', '{"ok":true}', 'from the worker')
  assert.match(row.result_file, /^jobResultFiles\/summary_[0-9a-f]{24}\.json$/)
  const res = await t.call('GET', `/api/v0/jobResultFile/${row.id}/`, { as: alice })
  assert.is(res.data.notes, 'from the worker')
  const got = await download(res.data.resultFile, alice)
  assert.is(got.body, '{"ok":true}')
  assert.is(got.headers['content-type'], 'application/json')
})

test.run()
