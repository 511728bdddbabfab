import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { planFields, toJson, type Fields } from '../../../server/http/fields.js'
import type { JsonObject, WireRecord } from '../../../server/http/wireRecord.js'

// The record type derived from a declaration (server/http/wireRecord.ts) is the record toJson renders: checked
// once when the tests compile (the types) and once when they run (the values).

/** true when A and B are the same type */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  library: { type: 'pk', column: 'library_id', nullable: true },
  strength: { type: 'float', column: 'strength' },
  name: { type: 'string', column: 'name' },
  creationDate: { type: 'datetime', column: 'creation_date' },
  decision: { type: 'choice', column: 'decision', choices: ['yes', 'no'] },
  active: { type: 'boolean', column: 'active' },
  mediaFiles: { type: 'list', items: 'integer', readOnly: true },
  annotations: { type: 'object', column: 'annotations', items: 'string' },
  provenance: { type: 'object', column: 'provenance', nullable: true },
  password: { type: 'string', column: 'password', writeOnly: true },
} satisfies Fields

type Expected = {
  id: number
  library: number | null
  strength: number
  name: string
  creationDate: string
  decision: string
  active: boolean
  mediaFiles: number[]
  annotations: { [key: string]: string }
  provenance: JsonObject | null
}

const derivedAsExpected: Same<WireRecord<typeof fields>, Expected> = true

test("a declaration's record type is what toJson renders: every kind, null where nullable, no write-only field", () => {
  assert.ok(derivedAsExpected)
  const row = {
    id: '7',
    library_id: null,
    strength: 0.5,
    name: 'dawn',
    creation_date: '2026-05-01 05:00:00',
    decision: 'yes',
    active: true,
    mediaFiles: [1, 2],
    annotations: { note: 'faint' },
    provenance: null,
    password: 'never answered',
  }
  const record: Expected = toJson(planFields(fields), row) as WireRecord<typeof fields>
  assert.equal(record, {
    id: 7,
    library: null,
    strength: 0.5,
    name: 'dawn',
    creationDate: '2026-05-01T05:00:00',
    decision: 'yes',
    active: true,
    mediaFiles: [1, 2],
    annotations: { note: 'faint' },
    provenance: null,
  })
})

test.run()
