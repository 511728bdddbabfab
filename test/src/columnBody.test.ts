import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { columnBody } from '../../src/columnBody.js'
import { refusesColumns } from '../../src/tagImport.js'

// A batch as a column-wise body (src/columnBody.ts) means the array of its records; and what a server that does
// not read one answers (src/tagImport.ts, refusesColumns).

/** the array of records a column-wise body stands for, as the server reads it */
function itemsOf(text: string): Record<string, unknown>[] {
  const { count, same = {}, each = {} } = JSON.parse(text)
  return Array.from({ length: count }, (_, i) => {
    const item: Record<string, unknown> = { ...same }
    for (const [k, values] of Object.entries(each as Record<string, unknown[]>)) item[k] = values[i]
    return item
  })
}

test('values alike are sent once, the others a column each, and the body means the records', () => {
  const provenance = { source: 'BirdNET-Analyzer', version: '2.4' }
  const records = [0, 3, 6].map((s) => ({
    mediaFile: s === 6 ? 8 : 7,
    startTime: s,
    endTime: s + 3,
    strength: 0.5,
    annotations: { 'Common name': 'Great Tit' },
    provenance,
    tagSet: 99,
  }))
  const text = columnBody(records, { tagSet: 4 })!
  const body = JSON.parse(text)
  assert.is(body.count, 3)
  // one object shared by every record is alike; equal objects that are not one are each their own value
  assert.equal(body.same, { tagSet: 4, strength: 0.5, provenance })
  assert.equal(Object.keys(body.each), ['mediaFile', 'startTime', 'endTime', 'annotations'])
  assert.equal(
    itemsOf(text),
    records.map((r) => ({ ...r, tagSet: 4 })),
  )
})

test('records that give different fields are not written column-wise; an undefined field is not given', () => {
  assert.is(columnBody([{ a: 1, b: 2 }, { a: 1 }]), undefined)
  assert.is(columnBody([{ a: 1 }, { a: 1, b: 2 }]), undefined)
  assert.is(
    columnBody([
      { a: 1, b: 2 },
      { a: 1, c: 2 },
    ]),
    undefined,
  )
  assert.is(
    columnBody([
      { a: 1, b: undefined },
      { a: 2, b: 3 },
    ]),
    undefined,
  )
  assert.is(columnBody([]), undefined)
  const text = columnBody([
    { a: 1, b: undefined },
    { a: 2, b: undefined },
  ])!
  assert.equal(itemsOf(text), [{ a: 1 }, { a: 2 }])
  // the extra fields replace the records' own, whether or not each gives them
  assert.equal(itemsOf(columnBody([{ a: 1, t: 1 }, { a: 2 }], { t: 5 })!), [
    { a: 1, t: 5 },
    { a: 2, t: 5 },
  ])
})

test("a server that does not read column-wise bodies is told by its answer from one that refused the body's items", () => {
  // the original service: an unsupported media type
  assert.ok(refusesColumns(415, { detail: 'Unsupported media type "application/vnd.mas.columns+json" in request.' }))
  // an earlier mas read it as one tag, without the fields a tag needs
  assert.ok(refusesColumns(400, { tagSet: ['This field is required.'], startTime: ['This field is required.'] }))
  // a server that reads it: each item's errors, or what is wrong with the body's shape, or any other answer
  assert.not.ok(refusesColumns(400, [{}, { endTime: ['Ensure endTime is greater than or equal to startTime.'] }]))
  assert.not.ok(refusesColumns(400, { non_field_errors: ['A column-wise body: "count" must be the number of items.'] }))
  assert.not.ok(refusesColumns(400, { detail: 'JSON parse error - Unexpected end of JSON input' }))
  assert.not.ok(refusesColumns(403, { detail: 'You do not have permission to perform this action.' }))
  assert.not.ok(refusesColumns(201, []))
})

test.run()
