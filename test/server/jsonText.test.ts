import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { toJson, toJsonText, type FieldDef, type Fields } from '../../server/http/fields.js'
import { envelopeText } from '../../server/http/list.js'
import { resourceEndpoints } from '../../server/resources/index.js'

// Records are written as JSON text straight from database rows; the text must be exactly what
// JSON.stringify made of the record objects before, for every field declaration of the API.

let seed = 7
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]

function valueFor(f: FieldDef): unknown {
  if (random() < 0.15) return pick([null, undefined])
  switch (f.type) {
    case 'integer': case 'pk': return pick([0, 1, 2147483647, -5, '42', '9007199254740993'])
    case 'float': return pick([0, -0, 1.5, 1e21, 5e-324, 0.1 + 0.2, '3.25', -273.15])
    case 'boolean': return pick([true, false])
    case 'datetime': return pick(['2026-11-22 03:04:05', '1999-01-02 00:00:00.123456'])
    case 'list': return pick([[], [1, 'a', null], [{ x: 1 }]])
    case 'object': return pick([{}, { a: [1, 2], 'k"ey': 'v\u2028' }])
    default: return pick(['', 'plain', 'quote " back \\ slash', 'ünï\u0001cödé 🎧', 'line\nbreak'])
  }
}

const declarations = new Set<Fields>()
for (const ep of resourceEndpoints) if (ep.doc?.record) declarations.add(ep.doc.record)

test('every record declaration: the text is JSON.stringify of the record, for values of every kind', () => {
  assert.ok(declarations.size >= 15, `only ${declarations.size} declarations found`)
  for (const fields of declarations) {
    for (let i = 0; i < 300; i++) {
      const row: Record<string, unknown> = {}
      for (const [name, f] of Object.entries(fields)) {
        const v = valueFor(f)
        if (v !== undefined || random() < 0.5) row[f.column ?? name] = v
      }
      assert.is(toJsonText(fields, row), JSON.stringify(toJson(fields, row)), JSON.stringify(row))
    }
  }
})

test('the list envelope as text is the envelope object serialized', () => {
  const records = ['{"id":1}', '{"id":2,"name":"x"}']
  for (const [next, previous] of [[null, null], ['http://h/api/v0/tag/?page=3', 'http://h/api/v0/tag/']]) {
    const text = envelopeText({ count: 250, next, previous, results: records }).text
    assert.is(text, JSON.stringify({ count: 250, next, previous, results: records.map((r) => JSON.parse(r)) }))
  }
  assert.is(envelopeText({ count: 0, next: null, previous: null, results: [] }).text, '{"count":0,"next":null,"previous":null,"results":[]}')
})

test.run()
