import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { grant } from '../helpers/records.js'
import { makeRecords } from '../helpers/world.js'

// Requests racing each other. (20 simultaneous adds of one file to a project:
// test/server/resources/project.test.ts; simultaneous first token requests:
// test/server/auth/auth.test.ts; concurrent imports of one file: mediaImport.test.ts.)

const t = suiteApp(test)
let alice: TestUser
let bob: TestUser
let refs: { tagSet: number; mediaFile: number; tagClass: number }
let library: number

test.before(async () => {
  const r = await makeRecords(t, 'alice')
  ;({ owner: alice, library } = r)
  bob = await t.user('bob')
  refs = { tagSet: r.tagSet, mediaFile: r.mediaFile, tagClass: r.tagClass }
})

const count = async (table: 'tags' | 'app_permissions', where: [string, number]) =>
  Number(
    (
      await t.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where(where[0] as any, '=', where[1])
        .executeTakeFirstOrThrow()
    ).n,
  )

test('100 simultaneous tag creations: every one 201 with its own id, and exactly 100 rows', async () => {
  const before = await count('tags', ['tag_set_id', refs.tagSet])
  const answers = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      t.call('POST', '/api/v0/tag/', {
        as: alice,
        body: { ...refs, startTime: i, endTime: i + 0.5, minFrequency: 100, maxFrequency: 200 },
      }),
    ),
  )
  assert.equal([...new Set(answers.map((a) => a.statusCode))], [201])
  const ids = new Set(answers.map((a) => a.data.id))
  assert.is(ids.size, 100)
  assert.equal(
    answers.map((a) => a.data.startTime).sort((a, b) => a - b),
    Array.from({ length: 100 }, (_, i) => i),
  )
  assert.is(await count('tags', ['tag_set_id', refs.tagSet]), before + 100)
  const list = await t.call('GET', `/api/v0/tag/?tagSet=${refs.tagSet}&page_size=1000`, { as: alice })
  assert.is(list.data.count, before + 100)
})

test('simultaneous bulk creations, one with an invalid item: the valid ones all land, the invalid one writes nothing', async () => {
  const before = await count('tags', ['tag_set_id', refs.tagSet])
  const item = (i: number) => ({ ...refs, startTime: i, endTime: i + 1, minFrequency: 1, maxFrequency: 2 })
  const bulks = Array.from({ length: 10 }, (_, b) => Array.from({ length: 20 }, (_, i) => item(b * 20 + i)))
  bulks[4][7] = { ...item(0), tagClass: 'x' } as any
  const answers = await Promise.all(bulks.map((body) => t.call('POST', '/api/v0/tag/', { as: alice, body })))
  assert.equal(
    answers.map((a) => a.statusCode),
    [201, 201, 201, 201, 400, 201, 201, 201, 201, 201],
  )
  assert.ok(Array.isArray(answers[4].data) && answers[4].data[7].tagClass)
  assert.is(await count('tags', ['tag_set_id', refs.tagSet]), before + 9 * 20)
})

test('simultaneous grant changes and reads: the grant ends as one of the two writes, reads agree with it, never an error', async () => {
  for (let round = 0; round < 10; round++) {
    const g = await grant(t.db, alice, { user: bob.id }, { library }, round % 2 ? ['read'] : [])
    const on = { read: true, write: true }
    const off = { read: false, write: false }
    const answers = await Promise.all([
      t.call('PATCH', `/api/v0/appPermission/${g}/`, { as: alice, body: on }),
      t.call('GET', `/api/v0/library/${library}/`, { as: bob }),
      t.call('PATCH', `/api/v0/appPermission/${g}/`, { as: alice, body: off }),
      t.call('GET', `/api/v0/library/?page_size=10`, { as: bob }),
      t.call('GET', `/api/v0/library/${library}/`, { as: bob }),
    ])
    assert.is(answers[0].statusCode, 200, answers[0].body)
    assert.is(answers[2].statusCode, 200, answers[2].body)
    for (const r of [answers[1], answers[4]]) assert.ok([200, 404].includes(r.statusCode), r.body)
    assert.is(answers[3].statusCode, 200)
    const row = await t.db
      .selectFrom('app_permissions')
      .select(['read', 'write'])
      .where('id', '=', g)
      .executeTakeFirstOrThrow()
    assert.ok(
      [JSON.stringify(on), JSON.stringify(off)].includes(JSON.stringify({ read: row.read, write: row.write })),
      JSON.stringify(row),
    )
    const after = await t.call('GET', `/api/v0/library/${library}/`, { as: bob })
    assert.is(after.statusCode, row.read ? 200 : 404)
    await t.db.deleteFrom('app_permissions').where('id', '=', g).execute()
  }
})

test('simultaneous grant and revoke: the revoke wins or comes second, bob ends with exactly the access the rows give', async () => {
  for (let round = 0; round < 10; round++) {
    const g = await grant(t.db, alice, { user: bob.id }, { library }, ['read'])
    const answers = await Promise.all([
      t.call('DELETE', `/api/v0/appPermission/${g}/`, { as: alice }),
      t.call('POST', '/api/v0/appPermission/', {
        as: alice,
        body: { bearer_type: 'user', bearer_id: bob.id, target_type: 'library', target_id: library, read: true },
      }),
      t.call('PATCH', `/api/v0/appPermission/${g}/`, { as: alice, body: { write: true } }),
      t.call('GET', `/api/v0/mediaFile/${refs.mediaFile}/`, { as: bob }),
    ])
    assert.is(answers[0].statusCode, 204, answers[0].body)
    assert.is(answers[1].statusCode, 201, answers[1].body)
    assert.ok([200, 404].includes(answers[2].statusCode), answers[2].body)
    assert.ok([200, 404].includes(answers[3].statusCode), answers[3].body)
    assert.is(await count('app_permissions', ['id', g]), 0)
    const file = await t.call('GET', `/api/v0/mediaFile/${refs.mediaFile}/`, { as: bob })
    assert.is(file.statusCode, 200)
    await t.db.deleteFrom('app_permissions').where('bearer_id', '=', bob.id).where('bearer_type', '=', 'user').execute()
    const gone = await t.call('GET', `/api/v0/mediaFile/${refs.mediaFile}/`, { as: bob })
    assert.is(gone.statusCode, 404)
  }
})

test.run()
