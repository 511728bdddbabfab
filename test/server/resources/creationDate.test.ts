import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeJob, makeProject } from '../../helpers/jobs.js'
import { makeRecords } from '../../helpers/world.js'
import { postMultipart } from '../../helpers/upload.js'

// creationDate is kept as given on create and written on update, as the original's serializers do, for
// every resource that has it (data moved from the original keeps its dates); without it, the time of the
// create. Every answer here is also checked against the OpenAPI document (test/helpers/app.ts).

const t = suiteApp(test)
let alice: TestUser
const GIVEN = '2019-05-01T06:30:00'
const LATER = '2020-01-02T03:04:05'

test.before(async () => {
  alice = await t.user('alice')
})

test('every resource with a creationDate keeps the one given on create, writes one on update, stamps one otherwise', async () => {
  const { library, tagSet, mediaFile, tagClass } = await makeRecords(t, alice)
  const project = await makeProject(t.db, alice)
  const group = (await t.call('POST', '/api/v0/appUserGroup/', { as: alice, body: { name: 'g' } })).data.id
  const bodies: Record<string, Record<string, unknown>> = {
    library: { name: 'moved' },
    tagSet: { name: 'moved', library },
    tag: { tagSet, mediaFile, tagClass, startTime: 0, endTime: 1, minFrequency: 0, maxFrequency: 100 },
    tagExample: { tagSet, mediaFile, startTime: 0, endTime: 1, minFrequency: 0, maxFrequency: 100 },
    project: { name: 'moved' },
    jobs: { name: 'moved', project, type: 8 },
    appUserGroup: { name: 'moved' },
    appPermission: {
      bearer_type: 'appusergroup',
      bearer_id: group,
      target_type: 'library',
      target_id: library,
      read: true,
    },
  }
  for (const [resource, body] of Object.entries(bodies)) {
    const kept = await t.call('POST', `/api/v0/${resource}/`, { as: alice, body: { ...body, creationDate: GIVEN } })
    assert.is(kept.statusCode, 201, `${resource}: ${kept.body}`)
    assert.is(kept.data.creationDate, GIVEN, resource)
    const read = await t.call('GET', `/api/v0/${resource}/${kept.data.id}/`, { as: alice })
    assert.is(read.data.creationDate, GIVEN, resource)
    const listed = await t.call('GET', `/api/v0/${resource}/?page_size=1000`, { as: alice })
    if (listed.statusCode === 200)
      assert.is(listed.data.results.find((r: any) => r.id === kept.data.id).creationDate, GIVEN, resource)
    const changed = await t.call('PATCH', `/api/v0/${resource}/${kept.data.id}/`, {
      as: alice,
      body: { creationDate: LATER },
    })
    assert.is(changed.statusCode, 200, `${resource}: ${changed.body}`)
    assert.is(changed.data.creationDate, LATER, resource)
    const stamped = await t.call('POST', `/api/v0/${resource}/`, { as: alice, body })
    assert.is(stamped.statusCode, 201, resource)
    assert.ok(stamped.data.creationDate > '2026', `${resource}: ${stamped.data.creationDate}`)
    const bad = await t.call('POST', `/api/v0/${resource}/`, { as: alice, body: { ...body, creationDate: 'May 1st' } })
    assert.is(bad.statusCode, 400, resource)
    assert.ok(bad.data.creationDate, resource)
  }
  // a bulk create keeps each one's own
  const many = await t.call('POST', '/api/v0/tag/', {
    as: alice,
    body: [{ ...bodies.tag, creationDate: GIVEN }, bodies.tag, { ...bodies.tag, creationDate: LATER }],
  })
  assert.is(many.statusCode, 201, many.body)
  assert.equal([many.data[0].creationDate, many.data[2].creationDate], [GIVEN, LATER])
  assert.ok(many.data[1].creationDate > '2026')
})

test('a job result file uploaded with a creationDate part keeps it', async () => {
  const job = await makeJob(t.db, alice, await makeProject(t.db, alice), 8)
  const res = await postMultipart(t, '/api/v0/jobResultFile/', alice, {
    job: String(job),
    creationDate: GIVEN,
    resultFile: { data: Buffer.from('x'), filename: 'r.txt' },
  })
  assert.is(res.statusCode, 201, res.body)
  assert.is(res.data.creationDate, GIVEN)
})

test('the documents list creationDate as writable and optional', async () => {
  const openapi = (await t.call('GET', '/api/openapi.json')).data
  for (const path of ['/api/v0/library/{id}/', '/api/v0/tag/{id}/', '/api/v0/jobs/{id}/']) {
    const record = openapi.paths[path].get.responses['200'].content['application/json'].schema
    assert.not.ok(record.properties.creationDate.readOnly, path)
    const request = openapi.paths[path].put.requestBody.content['application/json'].schema
    assert.ok(request.properties.creationDate, path)
    assert.not.ok((request.required ?? []).includes('creationDate'), path)
  }
  const coreapi = await t.call('GET', '/api/', { as: alice, headers: { accept: 'application/coreapi+json' } })
  assert.match(coreapi.body, /creationDate/)
})

test.run()
