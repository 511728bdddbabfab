import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'

// Both schema documents are generated from the route table: every path of the
// spec is in them, and they agree with each other.

const SPEC_PATHS = [
  'mediaFile/',
  'mediaFile/{id}/',
  'project/',
  'project/{id}/',
  'tag/',
  'tag/{id}/',
  'tagClass/',
  'tagClass/{id}/',
  'tagExample/',
  'tagExample/{id}/',
  'tagSet/',
  'tagSet/{id}/',
  'sensor/',
  'sensor/{id}/',
  'sensorArray/',
  'sensorArray/{id}/',
  'jobResultFile/',
  'jobResultFile/{id}/',
  'library/',
  'library/{id}/',
  'user/',
  'user/{id}/',
  'userSettings/',
  'userSettings/{id}/',
  'jobs/',
  'jobs/{id}/',
  'jobParameters/',
  'jobParameters/{id}/',
  'appPermission/',
  'appPermission/{id}/',
  'appUserGroup/',
  'appUserGroup/{id}/',
  'mediaFileUserMetaData/',
  'mediaFileUserMetaData/{id}/',
  'mediaFileUserMetaDataField/',
  'mediaFileUserMetaDataField/{id}/',
  'mediaFileMetaData/',
  'mediaFileMetaData/{id}/',
  'randomWindow/',
  'randomWindow/{id}/',
  'jobTypes/',
  'jobTypes/{id}/',
  'jobStatusTypes/',
  'jobStatusTypes/{id}/',
  'projectTypes/',
  'projectTypes/{id}/',
  'mediaTypes/',
  'mediaTypes/{id}/',
  'mediaFile/{id}/userMetaData/',
  'mediaFile/{id}/projects/',
  'project/{id}/mediaFiles/',
  'project/{id}/mediaFiles/add/',
  'project/{id}/mediaFiles/remove/',
  'tagSet/{id}/tags/',
  'library/{id}/mediaFiles/',
  'library/{id}/userMetaDataFields/',
].map((p) => `/api/v0/${p}`)

const t = suiteApp(test)
let alice: TestUser, admin: TestUser

test.before(async () => {
  alice = await t.user('alice')
  admin = await t.user('admin', { admin: true })
})

function links(node: any, out: any[] = []): any[] {
  if (node && typeof node === 'object') {
    if (node._type === 'link') out.push(node)
    else for (const v of Object.values(node)) links(v, out)
  }
  return out
}

test('GET /api/ is the coreapi document, whatever the Accept header, and needs authentication', async () => {
  for (const accept of ['application/coreapi+json', '*/*', 'application/json']) {
    const res = await t.call('GET', '/api/', { as: alice, headers: { accept } })
    assert.is(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^application\/coreapi\+json/)
    assert.is(res.data._type, 'document')
    assert.is(typeof res.data._meta.title, 'string')
  }
  assert.is((await t.call('GET', '/api/')).statusCode, 401)
})

test('the coreapi document links every path of the spec, with list/create/read/... actions and fields', async () => {
  const doc = (await t.call('GET', '/api/', { as: admin })).data
  const urls = new Set(links(doc.api).map((l) => l.url))
  for (const path of SPEC_PATHS) assert.ok(urls.has(path), `missing ${path}`)
  const tag = doc.api.v0.tag
  assert.equal(Object.keys(tag).sort(), ['create', 'delete', 'list', 'partial_update', 'read', 'update'])
  assert.is(tag.list.action, 'get')
  assert.equal(tag.list.fields[0].name, 'page')
  assert.is(tag.create.action, 'post')
  const create = Object.fromEntries(tag.create.fields.map((f: any) => [f.name, f]))
  assert.is(create.tagSet.required, true)
  assert.is(create.tagSet.location, 'form')
  assert.is(create.startTime.schema._type, 'number')
  assert.is(create.id, undefined)
  assert.is(tag.read.fields[0].location, 'path')
  assert.equal(Object.keys(doc.api.v0.jobTypes).sort(), ['list', 'read'])
  assert.is(doc['api-token-auth'].create.url, '/api-token-auth/')
  assert.is(doc['api-token-auth'].create.action, 'post')
  assert.is(doc.api.v0.tagSet.tags.url, '/api/v0/tagSet/{id}/tags/')
  assert.is(doc.api.v0.project.mediaFiles.add.url, '/api/v0/project/{id}/mediaFiles/add/')
})

test('the OpenAPI 3.1 document has every spec path and agrees with the coreapi document', async () => {
  const res = await t.call('GET', '/api/openapi.json', { as: alice })
  assert.is(res.statusCode, 200)
  assert.is(res.data.openapi, '3.1.0')
  const paths = res.data.paths
  for (const path of SPEC_PATHS) assert.ok(paths[path], `missing ${path}`)
  // a site admin's coreapi document has every link (a user's leaves out those only site admins may use)
  const core = links((await t.call('GET', '/api/', { as: admin })).data)
  for (const l of core) assert.ok(paths[l.url]?.[l.action], `${l.action} ${l.url} only in coreapi`)
  let operations = 0
  // paths only in the OpenAPI document (the coreapi document keeps the original's shape)
  const openapiOnly = new Set([
    '/api/',
    '/api/openapi.json',
    '/api/v0/',
    '/healthz',
    '/api-auth/login/',
    '/api-auth/logout/',
    '/api/v0/loginCode/',
    '/api-auth/code/',
  ])
  for (const [path, item] of Object.entries<any>(paths)) {
    if (openapiOnly.has(path)) continue
    for (const method of Object.keys(item)) {
      operations++
      assert.ok(
        core.some((l) => l.url === path && l.action === method),
        `${method} ${path} only in openapi`,
      )
    }
  }
  assert.is(operations, core.length)
  const tagPost = paths['/api/v0/tag/'].post
  assert.ok(tagPost.requestBody.content['application/json'].schema.oneOf[0].required.includes('tagSet'))
  assert.ok(tagPost.responses['201'])
  const list = paths['/api/v0/tag/'].get
  assert.ok(list.parameters.some((p: any) => p.name === 'tagSet' && p.in === 'query'))
  assert.ok(list.responses['200'].content['application/json'].schema.properties.results)
})

test('the OpenAPI document states what the server answers and enforces', async () => {
  const doc = (await t.call('GET', '/api/openapi.json', { as: alice })).data
  const ok = (path: string, method: string) =>
    Object.keys(doc.paths[path][method].responses)
      .filter((s) => s < '300')
      .sort()
  assert.equal(ok('/api-token-auth/', 'post'), ['200'])
  assert.equal(ok('/api/v0/project/{id}/mediaFiles/add/', 'post'), ['200', '201'])
  assert.equal(ok('/api/v0/project/{id}/mediaFiles/remove/', 'post'), ['200', '204'])
  assert.equal(ok('/api/v0/library/{id}/mediaFiles/import/', 'post'), ['200', '201'])
  assert.equal(ok('/api/v0/tag/{id}/', 'delete'), ['204'])
  const tagPost = doc.paths['/api/v0/tag/'].post
  for (const status of ['413', '415', '429']) assert.ok(tagPost.responses[status], status)
  // the bulk form: an array of records in, an array out, an array of errors back
  const request = tagPost.requestBody.content['application/json'].schema
  assert.is(request.oneOf[1].type, 'array')
  // anyOf: beside the record and the array, the answer of ?onDuplicate=skip ({results, skipped})
  assert.is(tagPost.responses['201'].content['application/json'].schema.anyOf[1].type, 'array')
  assert.is(tagPost.responses['400'].content['application/json'].schema.oneOf[1].type, 'array')
  // a media import is a multipart upload: the bytes in the part "file", beside the other fields
  const upload = doc.paths['/api/v0/library/{id}/mediaFiles/import/'].post.requestBody
  assert.equal(Object.keys(upload.content), ['multipart/form-data'])
  assert.is(upload.required, true)
  const parts = upload.content['multipart/form-data'].schema
  assert.equal(
    [parts.properties.file.type, parts.properties.file.contentMediaType],
    ['string', 'application/octet-stream'],
  )
  assert.ok(parts.required.includes('file'))
  for (const field of ['alias', 'sensor', 'realStartTime', 'md5', 'startTimeFrom', 'timeOffset', 'strict'])
    assert.ok(parts.properties[field], field)
  // timestamps have no zone: a pattern, never format date-time
  const text = JSON.stringify(doc)
  assert.not.ok(text.includes('date-time'))
  const tag = tagPost.responses['201'].content['application/json'].schema.anyOf[0]
  assert.ok(new RegExp(tag.properties.creationDate.pattern).test('2026-11-23T10:00:00'))
  // constraints: non-blank strings, the username pattern, minimums, enums
  const tagClass = doc.paths['/api/v0/tagClass/'].post.requestBody.content['application/json'].schema
  assert.is(tagClass.properties.className.minLength, 1)
  assert.is(tagClass.properties.className.pattern, '\\S')
  const user = doc.paths['/api/v0/user/'].post.requestBody.content['application/json'].schema
  assert.ok(JSON.stringify(user.properties.username).includes('^[\\\\w.@+-]+$'))
  const job = doc.paths['/api/v0/jobs/'].post.requestBody.content['application/json'].schema
  assert.is(job.properties.numToComplete.minimum, 0)
  const perm = doc.paths['/api/v0/appPermission/'].post.requestBody.content['application/json'].schema
  assert.equal(perm.properties.target_type.enum, ['tagset', 'library', 'appusergroup'])
  // the fields an update of a media file may change
  const patch = doc.paths['/api/v0/mediaFile/{id}/'].patch.requestBody.content['application/json'].schema
  assert.equal(Object.keys(patch.properties).sort(), ['active', 'alias', 'hasTranscript', 'realStartTime', 'sensor'])
})

test.run()
