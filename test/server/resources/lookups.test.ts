import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'

const t = suiteApp(test)
let alice: TestUser
let admin: TestUser

test.before(async () => {
  alice = await t.user('alice')
  admin = await t.user('admin', { admin: true })
})

test("jobTypes lists the original's eleven job types, then mas's own (ModelInference, SpeechDetection, EmbedAudio, TrainClassifier)", async () => {
  const res = await t.call('GET', '/api/v0/jobTypes/', { as: alice })
  assert.is(res.statusCode, 200)
  assert.is(res.headers.allow, 'GET, HEAD, OPTIONS')
  assert.match(String(res.headers['content-type']), /^application\/json/)
  assert.equal(res.data, {
    count: 15,
    next: null,
    previous: null,
    results: [
      { id: 1, name: 'SupervisedTagDiscovery' },
      { id: 2, name: 'RandomWindowTagging' },
      { id: 3, name: 'TagAnalysis' },
      { id: 4, name: 'AdaptAnalysis' },
      { id: 5, name: 'Transcription' },
      { id: 6, name: 'UnknownTagDiscovery' },
      { id: 7, name: 'UnsupervisedTagDiscovery' },
      { id: 8, name: 'Test' },
      { id: 9, name: 'ImportAudioFile' },
      { id: 10, name: 'SupervisedTagDiscoveryParent' },
      { id: 11, name: 'SupervisedTagDiscoveryChild' },
      { id: 12, name: 'ModelInference' },
      { id: 13, name: 'SpeechDetection' },
      { id: 14, name: 'EmbedAudio' },
      { id: 15, name: 'TrainClassifier' },
    ],
  })
})

test('jobStatusTypes, projectTypes and mediaTypes hold the spec rows', async () => {
  const status = await t.call('GET', '/api/v0/jobStatusTypes/', { as: alice })
  assert.equal(
    status.data.results.map((r: any) => `${r.id} ${r.name}`),
    ['1 Unknown', '2 Queued', '3 Running', '4 Error', '5 Stopped', '6 Complete'],
  )
  for (const path of ['projectTypes', 'mediaTypes']) {
    const res = await t.call('GET', `/api/v0/${path}/`, { as: alice })
    assert.equal(
      res.data.results.map((r: any) => `${r.id} ${r.name}`),
      ['1 audio', '2 image', '3 movement', '4 text', '5 video'],
    )
  }
})

test('lookup detail reads one row; a missing or non-integer id is 404', async () => {
  assert.equal((await t.call('GET', '/api/v0/jobTypes/8/', { as: alice })).data, { id: 8, name: 'Test' })
  const missing = await t.call('GET', '/api/v0/jobTypes/99/', { as: alice })
  assert.is(missing.statusCode, 404)
  assert.equal(missing.data, { detail: 'Not found.' })
  const abc = await t.call('GET', '/api/v0/jobTypes/abc/', { as: alice })
  assert.is(abc.statusCode, 404)
  assert.is(abc.headers.allow, 'GET, HEAD, OPTIONS')
})

test('lookup tables refuse writes with 405, even for a site admin', async () => {
  const del = await t.call('DELETE', '/api/v0/jobTypes/1/', { as: admin })
  assert.is(del.statusCode, 405)
  assert.equal(del.data, { detail: 'Method "DELETE" not allowed.' })
  assert.is(del.headers.allow, 'GET, HEAD, OPTIONS')
  const post = await t.call('POST', '/api/v0/mediaTypes/', { as: admin, body: { id: 9, name: 'x' } })
  assert.is(post.statusCode, 405)
  assert.equal(post.data, { detail: 'Method "POST" not allowed.' })
  const put = await t.call('PUT', '/api/v0/projectTypes/1/', { as: alice, body: { name: 'x' } })
  assert.is(put.statusCode, 405)
  assert.is((await t.call('GET', '/api/v0/projectTypes/1/', { as: alice })).data.name, 'audio')
})

test('lookup tables need authentication', async () => {
  const res = await t.call('GET', '/api/v0/jobTypes/')
  assert.is(res.statusCode, 401)
  assert.equal(res.data, { detail: 'Authentication credentials were not provided.' })
  assert.is(res.headers['www-authenticate'], 'Basic realm="api"')
})

test.run()
