import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeRecords } from '../helpers/world.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// A server that takes fewer items a bulk request than the CLI's batches (MAS_MAX_BULK_ITEMS): its 413
// names the limit, and `mas tag import` sends the rest in batches within it, every tag once, in order.

let w: CliWorld
let alice: TestUser
let tagSet: number
let media: number
let tagClass: number

test.before(async () => {
  w = await cliWorld({ maxBulkItems: 40 })
  ;({ owner: alice, tagSet, mediaFile: media, tagClass } = await makeRecords(w.t, 'alice'))
  await w.login(alice)
})
test.after(async () => {
  await w.close()
})

test("tag import with batches over the server's limit: split within it, every tag created once, in input order", async () => {
  const rows = ['mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency']
  for (let i = 0; i < 250; i++) rows.push(`${media},${tagClass},${i / 100},${i / 100 + 0.005},${i},${i + 10}`)
  const run = await w.mas(['tag', 'import', '-', '--tag-set', String(tagSet), '--batch-size', '100', '--json'], {
    input: rows.join('\n'),
  })
  assert.is(run.code, 0, run.stderr)
  const created = json(run)
  assert.is(created.length, 250)
  const stored = await w.t.db
    .selectFrom('tags')
    .select(['id', 'min_frequency'])
    .where('tag_set_id', '=', tagSet)
    .orderBy('id')
    .execute()
  assert.is(stored.length, 250)
  assert.equal(
    stored.map((s) => s.min_frequency),
    Array.from({ length: 250 }, (_, i) => i),
  )
  assert.equal(
    created.map((c: any) => c.id),
    stored.map((s) => s.id),
  )
})

test.run()
