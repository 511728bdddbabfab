import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { importRow, starts, storedTags } from '../../../helpers/importRows.js'
import { api, suiteApp, type TestUser } from '../../../helpers/app.js'
import { grant, makeLibrary, makeMediaFile, makeMetaData, makeTagClass } from '../../../helpers/records.js'
import { makeRecords } from '../../../helpers/world.js'

// A bulk create of one shape and one tag set (an import's batch) is made in one statement with its checks
// (server/resources/fast/createMany.ts): its items validated as the plain path validates them, stored as it stores
// them, answered as it answers; anything the plain path would refuse or skip is left to it, nothing written first.

const t = suiteApp(test)
let owner: TestUser, writer: TestUser, reader: TestUser
let lib: number, set: number, file: number, file2: number, cls: number, foreignClass: number

test.before(async () => {
  ;({ owner, library: lib, tagSet: set, mediaFile: file, tagClass: cls } = await makeRecords(t, 'manyOwner'))
  writer = await t.user('manyWriter')
  reader = await t.user('manyReader')
  const stranger = await t.user('manyStranger')
  file2 = await makeMediaFile(t.db, owner, lib)
  foreignClass = await makeTagClass(t.db, stranger, await makeLibrary(t.db, stranger))
  await grant(t.db, owner, { user: writer.id }, { library: lib }, ['read', 'write'])
  await grant(t.db, owner, { user: reader.id }, { library: lib }, ['read'])
})

const row = importRow(() => ({ tagSet: set, tagClass: cls, files: [file, file2] }))

const post = (as: TestUser, body: unknown, query = '?onDuplicate=skip&fields=id') =>
  t.call('POST', api(`tag/${query}`), { as, body })

const counts = () => t.app.services.records.answered.createMany

const storedAt = (from: number, to: number) => storedTags(t.db, set, from, to)

test("an import's batch is two statements (its duplicates looked for, then its checks and INSERT), ids in input order", async () => {
  const times = starts(0, 200)
  // the caller known first (its token's lookup is a statement of its own)
  assert.is((await t.call('GET', api(`tagSet/${set}/`), { as: writer })).statusCode, 200)
  const [fast, sent] = [counts().fast, t.database.statements.sent]
  const res = await post(
    writer,
    times.map((s) => row(s)),
  )
  assert.is(res.statusCode, 201, res.body)
  assert.is(t.database.statements.sent - sent, 2, 'statements sent')
  assert.is(counts().fast - fast, 1)
  assert.equal(res.data.skipped, [])
  const ids = res.data.results.map((r: { id: number }) => r.id)
  assert.equal(Object.keys(res.data.results[0]), ['id'])
  assert.equal(
    ids,
    [...ids].sort((a: number, b: number) => a - b),
    'ids follow the input',
  )
  const rows = await storedAt(0, 600)
  assert.equal(
    rows.map((r) => r.id),
    ids,
  )
  // stored as given, with the caller as its user and the time of the create as its date
  const first = (await t.call('GET', api(`tag/${ids[7]}/`), { as: owner })).data
  const { creationDate, id, user, ...given } = first
  assert.is(id, ids[7])
  assert.is(user, writer.id)
  assert.match(creationDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/)
  assert.equal(given, {
    ...row(times[7]),
    tagExample: null,
    parentTag: null,
    randomlyChosen: false,
    userTagged: false,
  })
  // the same batch again: every row is a duplicate, which the plain path skips
  const again = await post(
    writer,
    times.map((s) => row(s)),
  )
  assert.is(again.statusCode, 201)
  assert.equal(
    again.data.skipped,
    times.map((_s, i) => i),
  )
  assert.equal(
    again.data.results.map((r: { id: number }) => r.id),
    ids,
  )
  assert.is(counts().plain > 0, true)
  assert.is((await storedAt(0, 600)).length, times.length)
})

test('without ?fields= or ?onDuplicate=, the answer is each whole record, as its detail shows it', async () => {
  const times = starts(1000, 20)
  const fast = counts().fast
  const res = await post(
    owner,
    times.map((s) => row(s, { strength: 0.5 })),
    '',
  )
  assert.is(res.statusCode, 201, res.body)
  assert.is(counts().fast - fast, 1)
  for (const record of res.data)
    assert.equal((await t.call('GET', api(`tag/${record.id}/`), { as: owner })).data, record)
})

test('a batch the plain path refuses is refused as it refuses it, and nothing of it is written', async () => {
  const cases: Array<[string, TestUser, (s: number, i: number) => Record<string, unknown>, number]> = [
    ['a region ending before it starts', owner, (s, i) => row(s, i === 5 ? { endTime: s - 1 } : {}), 400],
    ["another library's class", owner, (s, i) => row(s, i === 9 ? { tagClass: foreignClass } : {}), 400],
    ['a media file that does not exist', owner, (s, i) => row(s, i === 2 ? { mediaFile: 999_999 } : {}), 400],
    ['a value of the wrong type', owner, (s, i) => row(s, i === 3 ? { strength: 'high' } : {}), 400],
    ['a required field missing', owner, (s, i) => (i === 4 ? { ...row(s), startTime: undefined } : row(s)), 400],
    ['a caller who may only read the tag set', reader, (s) => row(s), 403],
  ]
  for (const [what, as, make, status] of cases) {
    const times = starts(2000, 12)
    const body = JSON.parse(JSON.stringify(times.map(make)))
    const plain = counts().plain
    const res = await post(as, body)
    assert.is(res.statusCode, status, `${what}: ${res.body}`)
    assert.is(counts().plain - plain, 1, `${what}: left to the plain path`)
    assert.is((await storedAt(2000, 2100)).length, 0, `${what}: nothing written`)
  }
  // the errors are the plain path's, per item
  const res = await post(
    owner,
    starts(2000, 12).map((s, i) => row(s, i === 5 ? { endTime: s - 1 } : {})),
  )
  assert.equal(res.data[5], { endTime: ['Ensure endTime is greater than or equal to startTime.'] })
  assert.equal(res.data[0], {})
})

test("a batch out of its recording's bounds is refused by the statement's own check, with the plain path's error", async () => {
  const timed = await makeMediaFile(t.db, owner, lib, { file: 'many-timed.wav' })
  await makeMetaData(t.db, timed, 'durationInSeconds', '30.0')
  const times = starts(0, 11)
  const plain = counts().plain
  const res = await post(
    owner,
    times.map((s) => row(s, { mediaFile: timed })),
  )
  assert.is(res.statusCode, 400)
  assert.is(counts().plain - plain, 1)
  assert.equal(res.data[10], {
    endTime: [`endTime 33.0 is past the end of media file ${timed} (many-timed.wav), at 30.0 s.`],
  })
  assert.equal(res.data[0], {})
  const fitting = await post(
    owner,
    times.slice(0, 9).map((s) => row(s, { mediaFile: timed })),
  )
  assert.is(fitting.statusCode, 201, fitting.body)
})

test('batches of several shapes, several tag sets or repeated rows are made by the plain path, as before', async () => {
  const other = (await t.call('POST', api('tagSet/'), { as: owner, body: { name: 'second', library: lib } })).data.id
  const plain = counts().plain
  const mixed = await post(owner, [row(3000), { ...row(3003), annotations: undefined }].map(clean))
  assert.is(mixed.statusCode, 201, mixed.body)
  const twoSets = await post(owner, [row(3006), row(3009, { tagSet: other })])
  assert.is(twoSets.statusCode, 201, twoSets.body)
  const repeated = await post(owner, [row(3012), row(3015), row(3012)])
  assert.is(repeated.statusCode, 201, repeated.body)
  assert.equal(repeated.data.skipped, [2])
  assert.is(repeated.data.results[2].id, repeated.data.results[0].id)
  assert.is(counts().plain - plain, 3)
})

/** the item without its undefined fields (as JSON would have it) */
const clean = (o: Record<string, unknown>) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>

test.run()
