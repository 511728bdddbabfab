import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeLibrary, makeMediaFile, makeTag, makeTagClass, makeTagSet } from '../../helpers/records.js'
import { makeRoleWorld, statusMatrix, type RoleCallers } from '../../helpers/world.js'

// GET tagSet/{id}/evaluate/?against=: a tag set's tags scored against a gold tag set's, per class and pooled.

const API = '/api/v0'
const t = suiteApp(test)
let c: RoleCallers
let lib: number
let files: number[]

test.before(async () => {
  let first: number
  ;({ callers: c, library: lib, mediaFile: first } = await makeRoleWorld(t, 'ev'))
  files = [first, await makeMediaFile(t.db, c.owner, lib), await makeMediaFile(t.db, c.owner, lib)]
})

const near = (a: number | null, b: number, what: string) =>
  assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${what}: ${a} is not ${b}`)

type Tag = { file: number; tagClass: number; start: number; end: number; strength?: number }
async function tagSetOf(tags: Tag[], library: number = lib): Promise<number> {
  const tagSet = await makeTagSet(t.db, c.owner, library)
  for (const g of tags) {
    await makeTag(
      t.db,
      c.owner,
      { tagSet, mediaFile: g.file, tagClass: g.tagClass },
      { startTime: g.start, endTime: g.end, strength: g.strength ?? 1 },
    )
  }
  return tagSet
}

async function evaluate(tagSet: number, query: string, as: TestUser = c.owner) {
  const res = await t.call('GET', `${API}/tagSet/${tagSet}/evaluate/?${query}`, { as })
  assert.is(res.statusCode, 200, JSON.stringify(res.data))
  return res.data
}

test('a constructed case: counts, precision, recall, F and AP per class and pooled, at every threshold', async () => {
  const a = await makeTagClass(t.db, c.owner, lib, 'ev-a')
  const b = await makeTagClass(t.db, c.owner, lib, 'ev-b')
  const [f1, f2, f3] = files
  const gold = await tagSetOf([
    { file: f1, tagClass: a, start: 0, end: 1 },
    { file: f1, tagClass: a, start: 2, end: 3 },
    { file: f2, tagClass: a, start: 0, end: 1 },
    { file: f2, tagClass: a, start: 5, end: 6 },
  ])
  const detector = await tagSetOf([
    { file: f1, tagClass: a, start: 0, end: 1, strength: 0.9 }, // matches
    { file: f1, tagClass: a, start: 0.1, end: 1.1, strength: 0.8 }, // its gold tag already matched
    { file: f2, tagClass: a, start: 0, end: 1, strength: 0.7 }, // matches
    { file: f2, tagClass: a, start: 3, end: 4, strength: 0.6 }, // nothing there
    { file: f1, tagClass: a, start: 2, end: 3, strength: 0.5 }, // matches
    { file: f3, tagClass: a, start: 0, end: 1, strength: 0.95 }, // a file the gold set has no tag on: ignored
    { file: f2, tagClass: b, start: 5, end: 6, strength: 0.4 }, // another class: no gold tag of it
  ])
  const e = await evaluate(detector, `against=${gold}`)
  assert.equal(
    [e.tagSet, e.against, e.iou, e.minimumStrength, e.classesMatchedBy, e.mediaFiles],
    [detector, gold, 0.3, null, 'id', 2],
  )
  assert.equal(
    e.classes.map((k: any) => [k.tagClass, k.className]),
    [
      [a, 'ev-a'],
      [b, 'ev-b'],
    ],
  )
  const [ka, kb] = e.classes
  assert.equal([ka.gold, ka.detections, ka.tp, ka.fp, ka.fn, ka.precision, ka.recall], [4, 5, 3, 2, 1, 0.6, 0.75])
  near(ka.fMeasure, 2 / 3, 'F')
  near(ka.averagePrecision, (1 + 2 / 3 + 3 / 5) / 4, 'AP')
  assert.equal(
    ka.curve.map((p: any) => [p.threshold, p.precision, p.recall]),
    [
      [0.9, 1, 0.25],
      [0.8, 0.5, 0.25],
      [0.7, 2 / 3, 0.5],
      [0.6, 0.5, 0.5],
      [0.5, 0.6, 0.75],
    ],
  )
  assert.equal(
    [kb.gold, kb.detections, kb.tp, kb.fp, kb.fn, kb.precision, kb.recall, kb.fMeasure, kb.averagePrecision],
    [0, 1, 0, 1, 0, 0, null, null, null],
  )
  // pooled: the six tags ranked together, a's and then b's
  const o = e.overall
  assert.equal([o.gold, o.detections, o.tp, o.fp, o.fn, o.precision, o.recall], [4, 6, 3, 3, 1, 0.5, 0.75])
  near(o.averagePrecision, (1 + 2 / 3 + 3 / 5) / 4, 'pooled AP')
  near(o.meanAveragePrecision, (1 + 2 / 3 + 3 / 5) / 4, 'mean AP of the classes with gold tags')

  const above = await evaluate(detector, `against=${gold}&minimumStrength=0.7`)
  const at = above.classes[0]
  assert.equal([above.minimumStrength, at.detections, at.tp, at.fp, at.fn, at.recall], [0.7, 3, 2, 1, 2, 0.5])
  near(at.precision, 2 / 3, 'P at 0.7')
  near(at.fMeasure, 4 / 7, 'F at 0.7')
  near(at.averagePrecision, ka.averagePrecision, 'AP is over every tag')
  assert.equal([above.classes[1].detections, above.overall.detections, above.overall.tp], [0, 3, 2])
})

test('the IoU bound: 0.3 matches, 0.29 does not; iou= moves it', async () => {
  const k = await makeTagClass(t.db, c.owner, lib)
  const gold = await tagSetOf([{ file: files[0], tagClass: k, start: 10, end: 20 }])
  const at = await tagSetOf([{ file: files[0], tagClass: k, start: 10, end: 13 }])
  const below = await tagSetOf([{ file: files[0], tagClass: k, start: 10, end: 12.9 }])
  assert.is((await evaluate(at, `against=${gold}`)).overall.tp, 1)
  assert.is((await evaluate(below, `against=${gold}`)).overall.tp, 0)
  assert.is((await evaluate(below, `against=${gold}&iou=0.29`)).overall.tp, 1)
  assert.is((await evaluate(at, `against=${gold}&iou=0.31`)).overall.tp, 0)
  assert.is((await evaluate(gold, `against=${gold}&iou=1`)).overall.tp, 1)
})

test('each gold tag is matched once, by the strongest tag; a tag takes the unmatched gold tag it overlaps most', async () => {
  const k = await makeTagClass(t.db, c.owner, lib)
  const f = files[1]
  const once = await tagSetOf([{ file: f, tagClass: k, start: 10, end: 14 }])
  const two = await tagSetOf([
    { file: f, tagClass: k, start: 10, end: 11.9, strength: 0.9 },
    { file: f, tagClass: k, start: 12, end: 14, strength: 0.8 },
  ])
  const e = await evaluate(two, `against=${once}`)
  assert.equal([e.overall.tp, e.overall.fp, e.overall.fn], [1, 1, 0])
  // the stronger (first) tag matched: precision 1 at its strength, AP 1
  assert.equal(e.classes[0].curve[0], { threshold: 0.9, precision: 1, recall: 1 })
  assert.is(e.classes[0].averagePrecision, 1)

  // the long tag overlaps both gold tags (IoU 0.31 and 0.4), the short one the second only (0.35)
  const calls = await tagSetOf([
    { file: f, tagClass: k, start: 20, end: 22 },
    { file: f, tagClass: k, start: 22, end: 24 },
  ])
  const longFirst = await tagSetOf([
    { file: f, tagClass: k, start: 21, end: 23.2, strength: 0.9 },
    { file: f, tagClass: k, start: 23.3, end: 24, strength: 0.5 },
  ])
  const shortFirst = await tagSetOf([
    { file: f, tagClass: k, start: 21, end: 23.2, strength: 0.5 },
    { file: f, tagClass: k, start: 23.3, end: 24, strength: 0.9 },
  ])
  assert.equal((await evaluate(longFirst, `against=${calls}`)).overall.tp, 1)
  assert.equal((await evaluate(shortFirst, `against=${calls}`)).overall.tp, 2)
})

test('sets of different libraries: classes matched by name', async () => {
  const other = await makeLibrary(t.db, c.owner)
  const here = await makeTagClass(t.db, c.owner, lib, 'ev-robin')
  const there = await makeTagClass(t.db, c.owner, other, 'ev-robin')
  const thereOnly = await makeTagClass(t.db, c.owner, other, 'ev-wren')
  const gold = await tagSetOf([
    { file: files[2], tagClass: here, start: 1, end: 2 },
    { file: files[2], tagClass: here, start: 4, end: 5 },
  ])
  const detector = await tagSetOf(
    [
      { file: files[2], tagClass: there, start: 1, end: 2, strength: 0.8 },
      { file: files[2], tagClass: thereOnly, start: 4, end: 5, strength: 0.7 },
    ],
    other,
  )
  const e = await evaluate(detector, `against=${gold}`)
  assert.is(e.classesMatchedBy, 'className')
  assert.equal(
    e.classes.map((k: any) => [k.tagClass, k.className, k.gold, k.tp, k.fp, k.fn]),
    [
      [here, 'ev-robin', 2, 1, 0, 1],
      [thereOnly, 'ev-wren', 0, 0, 1, 0],
    ],
  )
})

test('bad, missing and unreadable: 400 naming the parameter, 404 for a tag set the caller cannot read', async () => {
  const k = await makeTagClass(t.db, c.owner, lib)
  const mine = await tagSetOf([{ file: files[0], tagClass: k, start: 1, end: 2 }])
  const call = (q: string, tagSet = mine, as: TestUser = c.owner) =>
    t.call('GET', `${API}/tagSet/${tagSet}/evaluate/${q}`, { as })
  const refused = async (q: string, body: unknown) => {
    const res = await call(q)
    assert.is(res.statusCode, 400, q)
    assert.equal(res.data, body, q)
  }
  await refused('', { against: ['This field is required.'] })
  await refused('?against=x', { against: ['A valid integer is required.'] })
  await refused(`?against=${mine}&iou=x`, { iou: ['A valid number is required.'] })
  await refused(`?against=${mine}&iou=0`, { iou: ['Ensure this value is greater than 0.'] })
  await refused(`?against=${mine}&iou=1.5`, { iou: ['Ensure this value is less than or equal to 1.'] })
  await refused(`?against=${mine}&iou=-0.1`, { iou: ['Ensure this value is greater than or equal to 0.'] })
  await refused(`?against=${mine}&minimumStrength=strong`, { minimumStrength: ['A valid number is required.'] })

  const strangers = await makeTagSet(t.db, c.stranger, null)
  // the library's roles read both sets; a stranger neither
  await statusMatrix(
    t,
    c,
    { owner: 200, stranger: 404, reader: 200, writer: 200, member: 200, grantAdmin: 200, admin: 200, anonymous: 401 },
    async () => ({ method: 'GET', url: `${API}/tagSet/${mine}/evaluate/?against=${mine}` }),
  )
  assert.is((await call(`?against=${strangers}`)).statusCode, 404, 'the gold set unreadable')
  assert.is((await call(`?against=999999`)).statusCode, 404, 'no such gold set')
})

test('OPTIONS and Allow come from the shared endpoint code; the query is in the OpenAPI document', async () => {
  const res = await t.call('OPTIONS', `${API}/tagSet/1/evaluate/`)
  assert.is(res.statusCode, 200)
  assert.is(res.headers.allow, 'GET, HEAD, OPTIONS')
  assert.is(res.data.name, 'Tag Set Evaluation')
  assert.is((await t.call('POST', `${API}/tagSet/1/evaluate/`, { as: c.owner, body: {} })).statusCode, 405)
  const doc = (await t.call('GET', '/api/openapi.json', { as: c.owner })).data
  const get = doc.paths['/api/v0/tagSet/{id}/evaluate/'].get
  assert.equal(
    get.parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, !!p.required]),
    [
      ['against', true],
      ['iou', false],
      ['minimumStrength', false],
    ],
  )
})

test.run()
