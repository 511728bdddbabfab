import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { parseInput, toColumns, toJson } from '../../../server/http/fields.js'
import { insertPlan } from '../../../server/resources/fast/create.js'
import { ANNOTATIONS_MAX, tags } from '../../../server/resources/tag.js'
import { makeRecords, tagRefs } from '../../helpers/world.js'

// A tag's annotations (a mas extension): an object of texts, kept with the tag and answered everywhere a
// tag is, written by the database like every other field (docs/decisions.md §11), and given in a create
// without leaving the one-statement create (§12, §13).

const API = '/api/v0'
const t = suiteApp(test)
let owner: TestUser
let refs: { tagSet: number; mediaFile: number; tagClass: number }

test.before(async () => {
  const records = await makeRecords(t, 'annotator')
  owner = records.owner
  refs = tagRefs(records)
})

const body = (extra: Record<string, unknown> = {}) => ({
  ...refs,
  startTime: 1,
  endTime: 1.5,
  minFrequency: 200,
  maxFrequency: 2200,
  ...extra,
})

/** The stored row rendered by the server (toJson), as an answer carries it. */
async function rendered(id: number): Promise<unknown> {
  const row = await t.db.selectFrom('tags').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  return JSON.parse(JSON.stringify(toJson(tags.compiled.fields, row)))
}

const notes = {
  Notes: 'faint, "behind" the wren\tby the stream',
  'Call type': 'song',
  Verdict: '',
  'Begin Clock Time': '05:00:01.250',
  'é 鳥': '🐦',
}

test('a create keeps the annotations; detail, list and create answer them alike, in the order given; none is {}', async () => {
  const created = await t.call('POST', `${API}/tag/`, { as: owner, body: body({ annotations: notes }) })
  assert.is(created.statusCode, 201, created.body)
  assert.equal(created.data.annotations, notes)
  assert.equal(Object.keys(created.data.annotations), Object.keys(notes))
  // the database writes the record: the same text JSON.stringify writes of the object
  assert.ok(created.body.includes(`"annotations":${JSON.stringify(notes)}`), created.body)
  const detail = await t.call('GET', `${API}/tag/${created.data.id}/`, { as: owner })
  assert.equal(detail.data, created.data)
  assert.ok(detail.body.includes(`"annotations":${JSON.stringify(notes)}`), detail.body)
  assert.equal(detail.data, await rendered(created.data.id))
  const plain = await t.call('POST', `${API}/tag/`, { as: owner, body: body({ startTime: 2, endTime: 3 }) })
  assert.equal(plain.data.annotations, {})
  assert.equal(plain.data, await rendered(plain.data.id))
  const listed = (await t.call('GET', `${API}/tag/?tagSet=${refs.tagSet}`, { as: owner })).data.results
  assert.equal(
    listed.find((r: { id: number }) => r.id === created.data.id),
    created.data,
  )
  assert.equal(
    listed.find((r: { id: number }) => r.id === plain.data.id),
    plain.data,
  )
})

test('bulk creates (one statement of arrays), creates arriving together (one batch) and updates keep them', async () => {
  const many = await t.call('POST', `${API}/tag/`, {
    as: owner,
    body: [
      body({ startTime: 4, endTime: 5, annotations: { Notes: 'first' } }),
      body({ startTime: 5, endTime: 6, annotations: { Notes: 'second', Extra: 'x' } }),
      body({ startTime: 6, endTime: 7 }),
    ],
  })
  assert.is(many.statusCode, 201, many.body)
  assert.equal(
    many.data.map((r: { annotations: unknown }) => r.annotations),
    [{ Notes: 'first' }, { Notes: 'second', Extra: 'x' }, {}],
  )
  for (const r of many.data) assert.equal(r, await rendered(r.id))
  const together = await Promise.all(
    [0, 1, 2, 3, 4, 5].map((i) =>
      t.call('POST', `${API}/tag/`, {
        as: owner,
        body: body({ startTime: 10 + i, endTime: 10.5 + i, annotations: { Notes: `n${i}` } }),
      }),
    ),
  )
  assert.equal(
    together.map((r) => [r.statusCode, r.data.annotations]),
    [0, 1, 2, 3, 4, 5].map((i) => [201, { Notes: `n${i}` }]),
  )
  for (const r of together) assert.equal(r.data, await rendered(r.data.id))
  const id = many.data[0].id
  const patched = await t.call('PATCH', `${API}/tag/${id}/`, { as: owner, body: { annotations: { Notes: 'changed' } } })
  assert.is(patched.statusCode, 200, patched.body)
  assert.equal(patched.data.annotations, { Notes: 'changed' })
  // a PUT without the field leaves it as it is, as for every field a replace does not require
  const put = await t.call('PUT', `${API}/tag/${id}/`, { as: owner, body: body({ startTime: 4, endTime: 5 }) })
  assert.equal(put.data.annotations, { Notes: 'changed' })
  assert.equal((await t.call('GET', `${API}/tag/${id}/`, { as: owner })).data.annotations, { Notes: 'changed' })
})

test('none is stored as NULL and answered as {} by every reader: detail, list, export, create and update answers', async () => {
  const stored = async (id: number) =>
    (await t.db.selectFrom('tags').select('annotations').where('id', '=', id).executeTakeFirstOrThrow()).annotations
  const none = await t.call('POST', `${API}/tag/`, { as: owner, body: body({ startTime: 20, endTime: 21 }) })
  const empty = await t.call('POST', `${API}/tag/`, {
    as: owner,
    body: body({ startTime: 21, endTime: 22, annotations: {} }),
  })
  const bulk = await t.call('POST', `${API}/tag/`, {
    as: owner,
    body: [body({ startTime: 22, endTime: 23, annotations: {} }), body({ startTime: 23, endTime: 24 })],
  })
  const ids = [none.data.id, empty.data.id, ...bulk.data.map((r: { id: number }) => r.id)]
  for (const id of ids) assert.is(await stored(id), null, `tag ${id}`)
  // an update to {} empties the row's column too; one to annotations keeps them
  const noted = await t.call('POST', `${API}/tag/`, {
    as: owner,
    body: body({ startTime: 24, endTime: 25, annotations: { Notes: 'x' } }),
  })
  const emptied = await t.call('PATCH', `${API}/tag/${noted.data.id}/`, { as: owner, body: { annotations: {} } })
  assert.equal(emptied.data.annotations, {})
  assert.is(await stored(noted.data.id), null)
  // a row stored before, with its {} written out, reads the same
  await t.db.updateTable('tags').set({ annotations: '{}' }).where('id', '=', none.data.id).execute()
  ids.push(noted.data.id)
  for (const r of [none, empty, ...bulk.data.map((data: unknown) => ({ data }))]) assert.equal(r.data.annotations, {})
  const listed = (await t.call('GET', `${API}/tag/?tagSet=${refs.tagSet}&page_size=1000`, { as: owner })).data.results
  const exported = (await t.call('GET', `${API}/tagSet/${refs.tagSet}/tags.ndjson`, { as: owner })).body
    .trim()
    .split('\n')
    .map((l: string) => JSON.parse(l))
  for (const id of ids) {
    const detail = await t.call('GET', `${API}/tag/${id}/`, { as: owner })
    assert.ok(detail.body.includes('"annotations":{}'), detail.body)
    assert.equal(await rendered(id), detail.data)
    assert.equal(
      listed.find((r: { id: number }) => r.id === id),
      detail.data,
    )
    assert.equal(
      exported.find((r: { id: number }) => r.id === id),
      detail.data,
    )
  }
})

test('a create with annotations keeps the one-statement create: its shape has a compiled plan, as one without', () => {
  for (const extra of [{}, { annotations: { Notes: 'x' } }]) {
    const parsed = parseInput(tags.compiled.fields, body(extra), 'create')
    assert.equal(parsed.errors, {})
    const row = {
      ...toColumns(tags.compiled.fields, parsed.values),
      user_id: owner.id,
      creation_date: '2026-11-27 00:00:00',
    }
    assert.ok(insertPlan(tags, { isAdmin: false }, parsed.values, row) !== null, JSON.stringify(extra))
  }
})

test('refused: not an object, a value not a text, more than the bound of JSON text; 400 naming the field', async () => {
  const refusals: Array<[unknown, RegExp]> = [
    ['Notes', /Expected a dictionary, but got str/],
    [['a'], /Expected a dictionary, but got list/],
    [{ Notes: 3 }, /The value of "Notes" must be a string, not int/],
    [{ Notes: { nested: 'x' } }, /The value of "Notes" must be a string, not dict/],
    [{ Notes: 'x'.repeat(ANNOTATIONS_MAX) }, /no more than 10000 characters as JSON/],
  ]
  for (const [annotations, message] of refusals) {
    const res = await t.call('POST', `${API}/tag/`, { as: owner, body: body({ annotations }) })
    assert.is(res.statusCode, 400, JSON.stringify(annotations).slice(0, 40))
    assert.equal(Object.keys(res.data), ['annotations'])
    assert.match(res.data.annotations[0], message)
  }
  const inBulk = await t.call('POST', `${API}/tag/`, { as: owner, body: [body(), body({ annotations: { n: 1 } })] })
  assert.is(inBulk.statusCode, 400)
  assert.match(JSON.stringify(inBulk.data), /The value of \\"n\\" must be a string/)
  const patch = await t.call('PATCH', `${API}/tag/999999/`, { as: owner, body: { annotations: 'x' } })
  assert.ok(patch.statusCode === 400 || patch.statusCode === 404)
})

test('the documents declare the field: an object of texts in OpenAPI, an object in coreapi', async () => {
  const openapi = (await t.call('GET', '/api/openapi.json', { as: owner })).data
  const schemas = JSON.stringify(openapi)
  assert.match(schemas, '"annotations":{"type":"object","additionalProperties":{"type":"string"}')
  const coreapi = await t.call('GET', '/api/', { as: owner, headers: { accept: 'application/coreapi+json' } })
  assert.match(coreapi.body, '"name":"annotations"')
})

test.run()
