import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp } from '../../helpers/app.js'
import {
  listMatrix,
  makeRoleWorld,
  sharedLibrary,
  statusMatrix,
  tagRefs,
  type RoleCallers,
} from '../../helpers/world.js'
import { makeMediaFile, makeTag, makeTagClass, makeTagSet } from '../../helpers/records.js'

const API = '/api/v0'
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/

const t = suiteApp(test)
let c: RoleCallers
let lib: number
let refs: { tagSet: number; mediaFile: number; tagClass: number }
const newTag = () => makeTag(t.db, c.owner, refs, { strength: 0.5 })

test.before(async () => {
  const w = await makeRoleWorld(t, 'rv')
  c = w.callers
  lib = w.library
  refs = tagRefs(w)
})

test('a decision is a record; deciding again changes it', async () => {
  const tag = await newTag()
  const first = await t.call('POST', `${API}/tagReview/`, {
    as: c.writer,
    body: { tag, decision: 'no', user: c.owner.id },
  })
  assert.is(first.statusCode, 201)
  const d = first.data
  assert.equal(Object.keys(d), ['id', 'tag', 'user', 'decision', 'tagClass', 'note', 'creationDate'])
  assert.match(d.creationDate, TIMESTAMP)
  assert.equal(d, {
    id: d.id,
    tag,
    user: c.writer.id,
    decision: 'no',
    tagClass: null,
    note: '',
    creationDate: d.creationDate,
  })
  const other = await makeTagClass(t.db, c.owner, lib, 'robin')
  const again = await t.call('POST', `${API}/tagReview/`, {
    as: c.writer,
    body: { tag, decision: 'no', tagClass: other, note: 'a robin' },
  })
  assert.equal([again.statusCode, again.data], [200, { ...d, tagClass: other, note: 'a robin' }])
  const owners = await t.call('POST', `${API}/tagReview/`, { as: c.owner, body: { tag, decision: 'yes' } })
  assert.is(owners.statusCode, 201)
  const list = await t.call('GET', `${API}/tagReview/?tag=${tag}`, { as: c.reader })
  assert.equal(
    list.data.results.map((r: any) => [r.user, r.decision]),
    [
      [c.writer.id, 'no'],
      [c.owner.id, 'yes'],
    ],
  )
  assert.equal((await t.call('GET', `${API}/tagReview/${d.id}/`, { as: c.reader })).data, again.data)
  const patched = await t.call('PATCH', `${API}/tagReview/${d.id}/`, {
    as: c.writer,
    body: { decision: 'unsure', tag: 1 },
  })
  assert.equal([patched.statusCode, patched.data.decision, patched.data.tag], [200, 'unsure', tag])
})

test('bad input is a 400 naming the field', async () => {
  const tag = await newTag()
  const bad = await t.call('POST', `${API}/tagReview/`, { as: c.owner, body: { tag, decision: 'maybe' } })
  assert.equal([bad.statusCode, bad.data], [400, { decision: ['"maybe" is not a valid choice.'] }])
  const missing = await t.call('POST', `${API}/tagReview/`, { as: c.owner, body: {} })
  assert.equal(missing.data, { tag: ['This field is required.'], decision: ['This field is required.'] })
  const nothing = await t.call('POST', `${API}/tagReview/`, { as: c.owner, body: { tag: 999999, decision: 'yes' } })
  assert.equal([nothing.statusCode, nothing.data], [400, { tag: ['Invalid pk "999999" - object does not exist.'] }])
  const array = await t.call('POST', `${API}/tagReview/`, { as: c.owner, body: [{ tag, decision: 'yes' }] })
  assert.is(array.statusCode, 400)
  const filter = await t.call('GET', `${API}/tagReview/?tagSet=x`, { as: c.owner })
  assert.equal([filter.statusCode, filter.data], [400, { tagSet: ['Enter a whole number.'] }])
  const decision = await t.call('GET', `${API}/tagReview/?decision=maybe`, { as: c.owner })
  assert.is(decision.statusCode, 400)
})

test('who may decide: writers of the tag set; readers read; each changes only their own', async () => {
  await statusMatrix(
    t,
    c,
    { owner: 201, stranger: 400, reader: 403, writer: 201, member: 201, grantAdmin: 201, admin: 201, anonymous: 401 },
    async () => ({ method: 'POST', url: `${API}/tagReview/`, body: { tag: await newTag(), decision: 'yes' } }),
  )
  const tag = await newTag()
  const mine = (await t.call('POST', `${API}/tagReview/`, { as: c.writer, body: { tag, decision: 'yes' } })).data.id
  const url = `${API}/tagReview/${mine}/`
  await statusMatrix(
    t,
    c,
    { owner: 200, stranger: 404, reader: 200, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
    async () => ({ method: 'GET', url }),
  )
  // another writer may not change the writer's decision; the reviewer and site admins may
  await statusMatrix(
    t,
    c,
    { owner: 403, stranger: 404, reader: 403, writer: 200, member: 403, grantAdmin: 403, admin: 200, anonymous: 401 },
    async () => ({ method: 'PATCH', url, body: { decision: 'no' } }),
  )
  await statusMatrix(
    t,
    c,
    { owner: 403, stranger: 404, reader: 403, writer: 204, member: 403, grantAdmin: 403, admin: 204, anonymous: 401 },
    async (role) => ({
      method: 'DELETE',
      url:
        role === 'admin' || role === 'writer'
          ? `${API}/tagReview/${(await t.call('POST', `${API}/tagReview/`, { as: c.writer, body: { tag: await newTag(), decision: 'yes' } })).data.id}/`
          : url,
    }),
  )
})

test('lists show the decisions of readable tag sets, filtered by tag, tagSet, user and decision', async () => {
  const { callers: cast, library: shared } = await sharedLibrary(t, 'rvlist')
  const f = await makeMediaFile(t.db, cast.owner, shared)
  const k = await makeTagClass(t.db, cast.owner, shared)
  const setA = await makeTagSet(t.db, cast.owner, shared)
  const setB = await makeTagSet(t.db, cast.owner, null)
  const a = await makeTag(t.db, cast.owner, { tagSet: setA, mediaFile: f, tagClass: k })
  const b = await makeTag(t.db, cast.owner, { tagSet: setB, mediaFile: f, tagClass: k })
  const decide = async (who: typeof cast.owner, tag: number, decision: string) =>
    (await t.call('POST', `${API}/tagReview/`, { as: who, body: { tag, decision } })).data.id as number
  const ra = await decide(cast.owner, a, 'yes')
  const rw = await decide(cast.writer, a, 'no')
  const rb = await decide(cast.owner, b, 'skip')
  await listMatrix(t, cast, `${API}/tagReview/?page_size=1000`, {
    owner: [ra, rw, rb],
    stranger: [],
    reader: [ra, rw],
    writer: [ra, rw],
    member: [ra, rw],
    grantAdmin: [ra, rw],
  })
  const ids = async (q: string) =>
    (await t.call('GET', `${API}/tagReview/?${q}`, { as: cast.owner })).data.results.map((r: any) => r.id)
  assert.equal(await ids(`tagSet=${setA}`), [ra, rw])
  assert.equal(await ids(`tagSet=${setB}`), [rb])
  assert.equal(await ids(`tagSet=${setA}&user=${cast.writer.id}`), [rw])
  assert.equal(await ids(`tagSet=${setA}&decision=yes`), [ra])
  assert.equal(await ids(`tag=${b}`), [rb])
  // deleting a tag deletes its decisions
  assert.is((await t.call('DELETE', `${API}/tag/${a}/`, { as: cast.owner })).statusCode, 204)
  assert.equal(await ids('page_size=1000'), [rb])
  assert.is((await t.call('GET', `${API}/tagReview/${ra}/`, { as: cast.owner })).statusCode, 404)
})

test('decisions sent at once are made together, each with its own answer', async () => {
  const tags = await Promise.all(Array.from({ length: 24 }, () => newTag()))
  const hidden = await makeTag(t.db, c.owner, { ...refs, tagSet: await makeTagSet(t.db, c.owner, null) })
  const post = (tag: number, decision: string, note = '') =>
    t.call('POST', `${API}/tagReview/`, { as: c.writer, body: { tag, decision, note } })
  // the first decisions run alone; those that arrive meanwhile wait and are made as one statement, with a
  // tag decided twice, a tag the writer cannot see and one that does not exist among them
  const answers = await Promise.all([
    ...tags.map((tag, i) => post(tag, i % 2 ? 'no' : 'yes', `n${i}`)),
    post(tags[5], 'unsure', 'again'),
    post(hidden, 'yes'),
    post(999999, 'yes'),
  ])
  const made = answers.slice(0, tags.length)
  assert.equal(
    made.map((a, i) => [a.data.tag, a.data.user, a.data.note]),
    tags.map((tag, i) => [tag, c.writer.id, `n${i}`]),
  )
  const again = answers[tags.length]
  assert.equal([again.data.tag, again.data.decision, again.data.note], [tags[5], 'unsure', 'again'])
  // of the two decisions on one tag, one made it (201) and the other changed it (200)
  assert.equal([made[5].statusCode, again.statusCode].sort(), [200, 201])
  assert.ok(made.every((a, i) => a.statusCode === (i === 5 ? made[5].statusCode : 201)))
  assert.equal(
    answers.slice(-2).map((a) => [a.statusCode, a.data]),
    [
      [400, { tag: [`Invalid pk "${hidden}" - object does not exist.`] }],
      [400, { tag: ['Invalid pk "999999" - object does not exist.'] }],
    ],
  )
  const list = (
    await t.call('GET', `${API}/tagReview/?user=${c.writer.id}&page_size=1000`, { as: c.writer })
  ).data.results.filter((r: any) => tags.includes(r.tag))
  assert.equal(list.map((r: any) => r.tag).sort(), [...tags].sort())
  const ids = new Set(made.map((a) => a.data.id))
  assert.is(ids.size, tags.length)
  assert.ok(ids.has(again.data.id))
  // the reader's decisions, at once with the writer's, are refused each
  const refused = await Promise.all(
    tags
      .slice(0, 6)
      .map((tag) => t.call('POST', `${API}/tagReview/`, { as: c.reader, body: { tag, decision: 'yes' } })),
  )
  assert.equal(
    refused.map((a) => a.statusCode),
    Array(6).fill(403),
  )
})

test('a decision follows its tag to another tag set, class and strength', async () => {
  const tag = await newTag()
  await t.call('POST', `${API}/tagReview/`, { as: c.owner, body: { tag, decision: 'yes' } })
  const set = await makeTagSet(t.db, c.owner, lib)
  const ids = async (q: string) =>
    (await t.call('GET', `${API}/tagReview/?${q}`, { as: c.owner })).data.results.map((r: any) => r.tag)
  assert.equal(await ids(`tagSet=${set}`), [])
  const other = await makeTagClass(t.db, c.owner, lib, 'moved')
  const moved = await t.call('PATCH', `${API}/tag/${tag}/`, {
    as: c.owner,
    body: { tagSet: set, tagClass: other, strength: 0.97 },
  })
  assert.is(moved.statusCode, 200, JSON.stringify(moved.data))
  assert.equal(await ids(`tagSet=${set}`), [tag])
  assert.ok(!(await ids(`tagSet=${refs.tagSet}`)).includes(tag))
  const s = (await t.call('GET', `${API}/tagSet/${set}/reviewSummary/`, { as: c.owner })).data
  assert.equal(
    s.classes.map((k: any) => [k.tagClass, k.tags, k.consensus.yes, k.bands[9].yes]),
    [[other, 1, 1, 1]],
  )
})

test('tagReview is in both schema documents', async () => {
  const openapi = (await t.call('GET', '/api/openapi.json')).data
  const post = openapi.paths['/api/v0/tagReview/'].post
  assert.ok(post.responses['201'] && post.responses['200'])
  assert.ok(openapi.paths['/api/v0/tagReview/'].get.parameters.some((p: any) => p.name === 'tagSet'))
  const coreapi = (await t.call('GET', '/api/', { as: c.owner })).data
  assert.ok(coreapi.api.v0.tagReview.list)
  assert.ok(coreapi.api.v0.tagReview.create)
})

test.run()
