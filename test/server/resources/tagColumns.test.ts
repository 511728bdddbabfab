import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { importRow, starts, storedTags } from '../../helpers/importRows.js'
import { api, suiteApp, type TestUser } from '../../helpers/app.js'
import { grant, makeLibrary, makeMediaFile, makeTagClass } from '../../helpers/records.js'
import { makeRecords } from '../../helpers/world.js'
import { columnBody } from '../../../src/columnBody.js'

// A bulk create's items written column by column (`Content-Type: application/vnd.mas.columns+json`,
// server/http/columnRows.ts, docs/decisions.md §44) mean the array of items they stand for: created, stored,
// answered and refused as that array is, by the statement of an import's batch when it may make them
// (fast/createMany.ts) and by the plain path otherwise; any other endpoint answers the type with 415.

const COLUMNS = { 'content-type': 'application/vnd.mas.columns+json' }
const t = suiteApp(test, { maxBulkItems: 50 })
let owner: TestUser, reader: TestUser
let lib: number, set: number, file: number, file2: number, cls: number, foreignClass: number

test.before(async () => {
  ;({ owner, library: lib, tagSet: set, mediaFile: file, tagClass: cls } = await makeRecords(t, 'columnsOwner'))
  reader = await t.user('columnsReader')
  const stranger = await t.user('columnsStranger')
  file2 = await makeMediaFile(t.db, owner, lib)
  foreignClass = await makeTagClass(t.db, stranger, await makeLibrary(t.db, stranger))
  await grant(t.db, owner, { user: reader.id }, { library: lib }, ['read'])
})

const row = importRow(() => ({ tagSet: set, tagClass: cls, files: [file, file2] }))

const postColumns = (as: TestUser, body: unknown, query = '') =>
  t.call('POST', api(`tag/${query}`), {
    as,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: COLUMNS,
  })

const counts = () => t.app.services.records.answered.createMany

/** the stored tags of the set between two start times, in id order, without their ids and dates */
async function storedAt(from: number, to: number) {
  const rows = await storedTags(t.db, set, from, to)
  return rows.map(({ id: _id, creation_date: _date, ...rest }) => rest)
}

test('a column-wise batch stores and answers what the same items as an array do, by the one statement', async () => {
  const items = starts(0, 30).map((s) => row(s))
  const body = columnBody(items)!
  const shape = JSON.parse(body)
  // what the client sends: the fields alike once, the others a column each
  assert.equal(Object.keys(shape.same).sort(), [
    'machineTagged',
    'maxFrequency',
    'minFrequency',
    'provenance',
    'tagClass',
    'tagSet',
  ])
  assert.equal(Object.keys(shape.each).sort(), ['annotations', 'endTime', 'mediaFile', 'startTime', 'strength'])
  const fast = counts().fast
  const columns = await postColumns(owner, body)
  assert.is(columns.statusCode, 201, columns.body)
  assert.is(counts().fast - fast, 1, 'made by the statement of an import batch')
  // the same items again as an array (identical tags may be made twice without ?onDuplicate=skip)
  const array = await t.call('POST', api('tag/'), { as: owner, body: items })
  assert.is(array.statusCode, 201)
  // the two requests may fall either side of a second, so their dates are only checked to be dates
  const strip = ({ id: _id, creationDate, ...rest }: Record<string, unknown>) => {
    assert.match(String(creationDate), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/)
    return rest
  }
  assert.equal(columns.data.map(strip), array.data.map(strip))
  const ids = columns.data.map((r: { id: number }) => r.id)
  assert.equal(
    ids,
    [...ids].sort((a: number, b: number) => a - b),
    'ids follow the items',
  )
  for (const record of columns.data.slice(0, 3))
    assert.equal((await t.call('GET', api(`tag/${record.id}/`), { as: owner })).data, record)
  assert.equal(
    columns.data.map((r: { startTime: number; strength: number; annotations: unknown }) => [
      r.startTime,
      r.strength,
      r.annotations,
    ]),
    items.map((i) => [i.startTime, i.strength, i.annotations]),
  )
  // stored alike, row for row
  const stored = await storedAt(0, 1000)
  assert.is(stored.length, 60)
  assert.equal(stored.slice(0, 30), stored.slice(30))
})

test('?fields=id and ?onDuplicate=skip answer a column-wise batch as they answer an array', async () => {
  const items = starts(3000, 10).map((s) => row(s))
  const made = await postColumns(owner, columnBody(items)!, '?onDuplicate=skip&fields=id')
  assert.is(made.statusCode, 201, made.body)
  assert.equal(made.data.skipped, [])
  assert.equal(Object.keys(made.data.results[0]), ['id'])
  // again, with two new rows among them: the eight stored are skipped, answered as the stored tags
  const again = [...items.slice(0, 8), ...starts(3030, 2).map((s) => row(s))]
  const plain = counts().plain
  const second = await postColumns(owner, columnBody(again)!, '?onDuplicate=skip&fields=id')
  assert.is(second.statusCode, 201, second.body)
  assert.is(counts().plain - plain, 1, 'duplicates are skipped by the plain path')
  assert.equal(second.data.skipped, [0, 1, 2, 3, 4, 5, 6, 7])
  assert.equal(second.data.results.slice(0, 8), made.data.results.slice(0, 8))
  assert.is((await storedAt(3000, 3100)).length, 12)
})

test("a column-wise batch the plain path refuses is refused with each item's errors, nothing written", async () => {
  const cases: Array<[string, TestUser, (s: number, i: number) => Record<string, unknown>, number]> = [
    ['a region ending before it starts', owner, (s, i) => row(s, i === 5 ? { endTime: s - 1 } : {}), 400],
    ["another library's class", owner, (s, i) => row(s, i === 9 ? { tagClass: foreignClass } : {}), 400],
    ['a value of the wrong type', owner, (s, i) => row(s, i === 3 ? { strength: 'high' } : {}), 400],
    ['a null where a value is required', owner, (s, i) => row(s, i === 4 ? { startTime: null } : {}), 400],
    ['a caller who may only read the tag set', reader, (s) => row(s), 403],
  ]
  for (const [what, as, make, status] of cases) {
    const res = await postColumns(as, columnBody(starts(4000, 12).map(make))!)
    assert.is(res.statusCode, status, `${what}: ${res.body}`)
    assert.is((await storedAt(4000, 4100)).length, 0, `${what}: nothing written`)
  }
  const res = await postColumns(
    owner,
    columnBody(starts(4000, 12).map((s, i) => row(s, i === 5 ? { endTime: s - 1 } : {})))!,
  )
  assert.is(res.data.length, 12)
  assert.equal(res.data[5], { endTime: ['Ensure endTime is greater than or equal to startTime.'] })
  assert.equal(res.data[0], {})
  // a field every item lacks is required of each, as in an array
  const lacking = await postColumns(owner, {
    count: 2,
    same: { tagSet: set, tagClass: cls },
    each: { mediaFile: [file, file2] },
  })
  assert.is(lacking.statusCode, 400)
  assert.equal(lacking.data[1].startTime, ['This field is required.'])
})

test('items in several tag sets, given in a column, are checked each against its own', async () => {
  const other = (await t.call('POST', api('tagSet/'), { as: owner, body: { name: 'columns second', library: lib } }))
    .data.id
  const plain = counts().plain
  const res = await postColumns(owner, columnBody([row(5000), row(5003, { tagSet: other })])!)
  assert.is(res.statusCode, 201, res.body)
  assert.is(counts().plain - plain, 1)
  assert.equal(
    res.data.map((r: { tagSet: number }) => r.tagSet),
    [set, other],
  )
})

test('a body that is not column-wise is refused with what is wrong; more items than a request may make is a 413', async () => {
  const before = (await storedAt(0, 1e6)).length
  const refused: Array<[unknown, string]> = [
    [[row(1)], 'expected an object of "count", "same" and "each"'],
    [{ same: row(1) }, '"count" must be the number of items'],
    [{ count: 1.5, same: row(1) }, '"count" must be the number of items'],
    [{ count: 1, same: [] }, '"same" must be an object of the fields every item gives alike'],
    [{ count: 1, same: {}, each: [] }, '"each" must be an object of one array of values per field'],
    [
      { count: 2, same: row(1), each: { strength: [1] } },
      '"each"."strength" must be an array of 2 values, one per item',
    ],
    [
      { count: 2, same: row(1), each: { strength: 0.5 } },
      '"each"."strength" must be an array of 2 values, one per item',
    ],
    [{ count: 1, same: row(1), each: { strength: [0.5] } }, '"strength" is given both in "same" and in "each"'],
  ]
  for (const [body, message] of refused) {
    const res = await postColumns(owner, body)
    assert.equal(
      [res.statusCode, res.data],
      [400, { non_field_errors: [`A column-wise body: ${message}.`] }],
      JSON.stringify(body),
    )
  }
  const empty = await postColumns(owner, { count: 0, same: row(1) })
  assert.equal([empty.statusCode, empty.data], [400, { non_field_errors: ['This list may not be empty.'] }])
  const notJson = await postColumns(owner, '{"count": 1,')
  assert.is(notJson.statusCode, 400)
  assert.match(notJson.data.detail, /^JSON parse error - /)
  const over = await postColumns(owner, { count: 51, same: row(1), each: { startTime: starts(0, 51) } })
  assert.equal(
    [over.statusCode, over.data],
    [413, { detail: 'A bulk request takes at most 50 items (MAS_MAX_BULK_ITEMS); this one has 51.' }],
  )
  assert.is((await storedAt(0, 1e6)).length, before)
})

test('an endpoint without bulk creates answers a column-wise body with 415, as it does any type it does not read', async () => {
  const res = await t.call('POST', api('library/'), {
    as: owner,
    body: JSON.stringify({ count: 1, same: { name: 'by columns' } }),
    headers: COLUMNS,
  })
  assert.equal(
    [res.statusCode, res.data],
    [415, { detail: 'Unsupported media type "application/vnd.mas.columns+json" in request.' }],
  )
  const patch = await t.call('PATCH', api(`tagSet/${set}/`), {
    as: owner,
    body: JSON.stringify({ count: 1, same: { name: 'x' } }),
    headers: COLUMNS,
  })
  assert.is(patch.statusCode, 415)
})

test.run()
