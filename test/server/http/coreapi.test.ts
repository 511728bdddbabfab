import { readFileSync } from 'node:fs'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { decodeDocument, linkPath, linkRequest, lookupLink, type CoreLink } from '../../helpers/coreapi.js'
import { makeLibrary, makeMediaFile } from '../../helpers/records.js'

// Scripts written for the original service find every link of its coreapi
// document under the same name in ours (loaded and looked up as python coreapi
// does), with the same url and method, taking the parameters they took; like
// the original, a caller's document leaves out the links only site admins may
// use. The original's links are in test/fixtures/coreapi-original-links.json,
// as its documents for a user (alice) and a site admin list them.

interface OriginalLink {
  keys: string[]
  action: string
  url: string
  fields: string[]
  required: string[]
}
const original: Record<'alice' | 'admin', OriginalLink[]> = JSON.parse(
  readFileSync(new URL('../../../../test/fixtures/coreapi-original-links.json', import.meta.url), 'utf8'),
)

const t = suiteApp(test)
let alice: TestUser, admin: TestUser

test.before(async () => {
  alice = await t.user('alice')
  admin = await t.user('admin', { admin: true })
})

const documentFor = async (who: TestUser) => {
  const res = await t.call('GET', '/api/', { as: who, headers: { accept: 'application/coreapi+json' } })
  assert.is(res.statusCode, 200)
  return decodeDocument(res.data)
}

for (const who of ['alice', 'admin'] as const) {
  test(`every link of the original's document for ${who === 'admin' ? 'a site admin' : 'a user'} is found under its name`, async () => {
    const doc = await documentFor(who === 'admin' ? admin : alice)
    for (const o of original[who]) {
      const name = o.keys.join(' > ')
      // every parameter the original's link took, required or not
      const link = lookupLink(doc, o.keys, Object.fromEntries(o.fields.map((f) => [f, 1])))
      assert.type(link, 'object', `${name}: ${link as string}`)
      const l = link as CoreLink
      assert.is(linkPath(l), o.url, name)
      assert.is(l.action, o.action, name)
      // a parameter ours requires is one the original's link had (so a script may already pass it)
      for (const f of l.fields.filter((x) => x.required)) assert.ok(o.fields.includes(f.name), `${name}: ${f.name}`)
    }
  })
}

test("every create and update link requires what the original's requires, but for the differences kept on purpose", async () => {
  const doc = await documentFor(admin)
  const differences: string[] = []
  for (const o of original.admin.filter((l) => ['create', 'update'].includes(l.keys[l.keys.length - 1]))) {
    const link = lookupLink(doc, o.keys, Object.fromEntries(o.fields.map((f) => [f, 1])))
    if (typeof link === 'string') continue
    const ours = new Set(link.fields.filter((f) => f.required).map((f) => f.name))
    const theirs = new Set(o.required)
    for (const f of theirs)
      if (!ours.has(f)) differences.push(`${o.keys.join(' > ')}: ${f} required by the original only`)
    for (const f of ours) if (!theirs.has(f)) differences.push(`${o.keys.join(' > ')}: ${f} required by mas only`)
  }
  // docs/decisions.md §15: bearer_username may stand for bearer_type and bearer_id (the server requires one way);
  // a result file's PUT keeps its stored file (the original requires a new upload); a media file stays in its library
  assert.equal(differences.sort(), [
    'api > v0 > appPermission > create: bearer_id required by the original only',
    'api > v0 > appPermission > create: bearer_type required by the original only',
    'api > v0 > appPermission > update: bearer_id required by the original only',
    'api > v0 > appPermission > update: bearer_type required by the original only',
    'api > v0 > jobResultFile > update: resultFile required by the original only',
    'api > v0 > mediaFile > update: library required by the original only',
  ])
})

test("links only site admins may use are left out of a user's document, as in the original", async () => {
  const doc = await documentFor(alice)
  for (const keys of [
    ['api', 'v0', 'project', 'list'],
    ['api', 'v0', 'user', 'list'],
    ['api', 'v0', 'user', 'read'],
  ]) {
    assert.type(lookupLink(doc, keys, {}), 'string', keys.join(' > '))
  }
  const adminDoc = await documentFor(admin)
  assert.type(lookupLink(adminDoc, ['api', 'v0', 'project', 'list'], {}), 'object')
  assert.type(lookupLink(adminDoc, ['api', 'v0', 'user', 'read'], { id: 1 }), 'object')
})

test("client.action(doc, [api, v0, library, mediaFiles], {id}) lists the library's media files; the extensions have keys of their own", async () => {
  const library = await makeLibrary(t.db, alice)
  const file = await makeMediaFile(t.db, alice, library)
  const doc = await documentFor(alice)
  const link = lookupLink(doc, ['api', 'v0', 'library', 'mediaFiles'], { id: library }) as CoreLink
  const req = linkRequest(link, { id: library })
  assert.equal(req, { method: 'GET', url: `/api/v0/library/${library}/mediaFiles/` })
  const res = await t.call(req.method, req.url, { as: alice })
  assert.is(res.statusCode, 200)
  assert.equal(
    res.data.results.map((m: any) => m.id),
    [file],
  )
  for (const [name, path] of [
    ['importMediaFiles', 'import'],
    ['checkMediaFiles', 'check'],
  ]) {
    const ext = lookupLink(doc, ['api', 'v0', 'library', name], {
      id: library,
      ...(name === 'importMediaFiles' ? { file: 1 } : {}),
    }) as CoreLink
    assert.is(linkPath(ext), `/api/v0/library/{id}/mediaFiles/${path}/`)
  }
  // every list link of the original without a path parameter answers 200 for a user when followed
  for (const o of original.alice.filter((l) => l.action === 'get' && !l.url.includes('{id}') && l.keys[0] === 'api')) {
    const r = linkRequest(lookupLink(doc, o.keys, {}) as CoreLink, {})
    assert.is((await t.call(r.method, r.url, { as: alice })).statusCode, 200, r.url)
  }
})

test.run()
