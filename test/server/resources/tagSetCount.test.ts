import { sql } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { foldCrowdedTagSets, tagSetTagCount } from '../../../server/resources/tagSetCount.js'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { grant, makeMediaFile, makeTag, makeTagClass, makeTagSet } from '../../helpers/records.js'
import { makeRecords } from '../../helpers/world.js'
import { untilLockWait } from '../../helpers/db.js'

// The count of tagSet/{id}/tags/, and of tag/?tagSet={id}, comes from rows kept by triggers, not from
// count(*): it must equal count(*) after every kind of write, and be the caller's.

const API = '/api/v0'
const t = suiteApp(test)
let owner: TestUser
let lib: number, file: number, cls: number

test.before(async () => {
  ;({ owner, library: lib, mediaFile: file, tagClass: cls } = await makeRecords(t, 'counter'))
})

const tagBody = (tagSet: number) => ({
  tagSet,
  mediaFile: file,
  tagClass: cls,
  startTime: 1,
  endTime: 2,
  minFrequency: 100,
  maxFrequency: 2000,
})

async function listed(set: number, query = ''): Promise<number> {
  const res = await t.call('GET', `${API}/tagSet/${set}/tags/${query}`, { as: owner })
  assert.is(res.statusCode, 200)
  return res.data.count
}

async function counted(set: number): Promise<number> {
  const r = await t.db
    .selectFrom('tags')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tag_set_id', '=', set)
    .executeTakeFirstOrThrow()
  return Number(r.n)
}

/** The count of tag/?tagSet=<set> (and more `query`), as `as` asks for it. */
async function filtered(set: number | string, as: TestUser = owner, query = ''): Promise<number> {
  const res = await t.call('GET', `${API}/tag/?tagSet=${set}${query}`, { as })
  assert.is(res.statusCode, 200, res.body)
  return res.data.count
}

async function assertExact(set: number) {
  const exact = await counted(set)
  assert.is(await listed(set), exact)
  assert.is((await tagSetTagCount(t.db, set)).count, exact)
  // tag/?tagSet= counts from the same rows
  assert.is(await filtered(set), exact)
}

test('the counts and the references are kept by statement triggers: no trigger of tags fires per row on an insert or a delete', async () => {
  // tgtype: bit 1 a row trigger, bit 4 on INSERT, 8 on DELETE, 16 on UPDATE; the foreign keys' own (internal)
  // triggers are left out: only the two references that keep theirs, null on almost every tag, have them
  const triggers = (
    await sql<{ name: string; type: number }>`select tgname as name, tgtype as type from pg_trigger
    where tgrelid = 'tags'::regclass and not tgisinternal order by tgname`.execute(t.db)
  ).rows
  const fires = (type: number, event: number) => (type & event) !== 0
  const perRow = triggers.filter((tr) => (tr.type & 1) !== 0)
  assert.equal(
    perRow.filter((tr) => fires(tr.type, 4) || fires(tr.type, 8)).map((tr) => tr.name),
    [],
  )
  // the review copies follow a tag's changes row by row (migration 2026_11_27_3401), on UPDATE alone
  assert.equal(
    perRow.map((tr) => tr.name),
    ['tags_review_copies'],
  )
  assert.ok(
    triggers.some((tr) => fires(tr.type, 4)),
    'an insert trigger keeps the counts',
  )
})

test('the tag list count follows creates, bulk creates, deletes and moves', async () => {
  const a = await makeTagSet(t.db, owner, lib),
    b = await makeTagSet(t.db, owner, lib)
  await assertExact(a)
  assert.is((await t.call('POST', `${API}/tag/`, { as: owner, body: tagBody(a) })).statusCode, 201)
  const bulk = await t.call('POST', `${API}/tag/`, { as: owner, body: Array.from({ length: 30 }, () => tagBody(a)) })
  assert.is(bulk.statusCode, 201)
  assert.is(await listed(a), 31)
  await assertExact(a)

  // a bulk request with one bad item writes nothing, and counts nothing
  const bad = await t.call('POST', `${API}/tag/`, { as: owner, body: [tagBody(a), { ...tagBody(a), endTime: 'x' }] })
  assert.is(bad.statusCode, 400)
  assert.is(await listed(a), 31)

  assert.is((await t.call('DELETE', `${API}/tag/${bulk.data[0].id}/`, { as: owner })).statusCode, 204)
  assert.is(await listed(a), 30)
  const moved = await t.call('PATCH', `${API}/tag/${bulk.data[1].id}/`, { as: owner, body: { tagSet: b } })
  assert.is(moved.statusCode, 200)
  assert.is(await listed(a), 29)
  assert.is(await listed(b), 1)
  // an update that keeps the tag set changes no count
  assert.is(
    (await t.call('PATCH', `${API}/tag/${bulk.data[2].id}/`, { as: owner, body: { strength: 0.5 } })).statusCode,
    200,
  )
  await assertExact(a)
  await assertExact(b)
})

test('writes straight to the table are counted too, and a filtered list counts its matches', async () => {
  const set = await makeTagSet(t.db, owner, lib)
  const other = await makeTagClass(t.db, owner, lib)
  for (let i = 0; i < 3; i++) await makeTag(t.db, owner, { tagSet: set, mediaFile: file, tagClass: cls })
  await makeTag(t.db, owner, { tagSet: set, mediaFile: file, tagClass: other })
  await assertExact(set)
  assert.is(await listed(set, `?tagClass=${other}`), 1)
  assert.is(await listed(set, '?page_size=2&ordering=-id'), 4)
  await t.db.deleteFrom('tags').where('tag_set_id', '=', set).where('tag_class_id', '=', cls).execute()
  await assertExact(set)
  assert.is(await listed(set), 1)
})

test("tag/?tagSet= counts the tag set's tags for whoever may read it, and nothing for the others", async () => {
  const set = await makeTagSet(t.db, owner, lib)
  for (let i = 0; i < 7; i++)
    await makeTag(t.db, owner, { tagSet: set, mediaFile: file, tagClass: cls }, { startTime: i })
  const other = await makeMediaFile(t.db, owner, lib)
  await makeTag(t.db, owner, { tagSet: set, mediaFile: other, tagClass: cls }, { startTime: 9 })
  const reader = await t.user('count-reader')
  const libraryReader = await t.user('count-library-reader')
  const stranger = await t.user('count-stranger')
  const admin = await t.user('count-admin', { admin: true })
  await grant(t.db, owner, { user: reader.id }, { tagSet: set }, ['read'])
  await grant(t.db, owner, { user: libraryReader.id }, { library: lib }, ['read'])
  for (const as of [owner, reader, libraryReader, admin]) {
    assert.is(await filtered(set, as), 8, as.username)
    assert.is(await filtered(set, as, '&ordering=-startTime&page_size=3'), 8)
    // a second filter is counted by count(*)
    assert.is(await filtered(set, as, `&mediaFile=${other}`), 1)
  }
  const strangers = await t.call('GET', `${API}/tag/?tagSet=${set}`, { as: stranger })
  assert.equal([strangers.data.count, strangers.data.results], [0, []])
  assert.is(await filtered(2_000_000_000), 0, 'a tag set that does not exist')
  const bad = await t.call('GET', `${API}/tag/?tagSet=abc`, { as: owner })
  assert.is(bad.statusCode, 400)
  assert.equal(bad.data, { tagSet: ['Enter a whole number.'] })
})

test('many small writes are folded into one row and stay exact', async () => {
  const set = await makeTagSet(t.db, owner, lib)
  for (let i = 0; i < 70; i++) await makeTag(t.db, owner, { tagSet: set, mediaFile: file, tagClass: cls })
  assert.is((await tagSetTagCount(t.db, set)).rows, 70)
  await assertExact(set)
  assert.is((await tagSetTagCount(t.db, set)).rows, 1)
  assert.is(await listed(set), 70)
})

test('tag sets written to but never listed are folded by the periodic sweep, exactly', async () => {
  const quiet = await makeTagSet(t.db, owner, lib)
  const small = await makeTagSet(t.db, owner, lib)
  for (let i = 0; i < 80; i++) await makeTag(t.db, owner, { tagSet: quiet, mediaFile: file, tagClass: cls })
  for (let i = 0; i < 3; i++) await makeTag(t.db, owner, { tagSet: small, mediaFile: file, tagClass: cls })
  const rowsOf = async (set: number) =>
    Number(
      (
        await t.db
          .selectFrom('tag_set_tag_counts')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('tag_set_id', '=', set)
          .executeTakeFirstOrThrow()
      ).n,
    )
  assert.is(await rowsOf(quiet), 80)
  assert.ok((await foldCrowdedTagSets(t.db)) >= 1)
  assert.is(await rowsOf(quiet), 1)
  assert.is(await rowsOf(small), 3)
  // the per-class and per-file rows of the quiet set's one class and file, folded too (their parents locked meanwhile)
  for (const table of ['tag_class_counts', 'tag_file_counts'] as const) {
    const rows = await t.db
      .selectFrom(table)
      .select((eb) => eb.fn.sum<string>('delta').as('n'))
      .select((eb) => eb.fn.countAll<string>().as('rows'))
      .where('tag_set_id', '=', quiet)
      .executeTakeFirstOrThrow()
    assert.equal([Number(rows.rows), Number(rows.n)], [1, 80], table)
  }
  await assertExact(quiet)
  await assertExact(small)
})

test('simultaneous writers and folds keep the count exact', async () => {
  const set = await makeTagSet(t.db, owner, lib)
  await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      i % 4 === 0
        ? tagSetTagCount(t.db, set)
        : t.call('POST', `${API}/tag/`, { as: owner, body: [tagBody(set), tagBody(set)] }),
    ),
  )
  await assertExact(set)
  assert.is(await listed(set), 60)
})

const KEPT_TABLES = ['tag_set_tag_counts', 'tag_class_counts', 'tag_file_counts', 'tag_band_counts'] as const

/** The kept-count rows of a tag set, table by table. */
async function keptRows(set: number): Promise<number[]> {
  return Promise.all(
    KEPT_TABLES.map(async (table) =>
      Number(
        (
          await t.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('tag_set_id', '=', set)
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ),
  )
}

test("a create's kept-count rows are not checked against their parents again: no foreign key, no unread key", async () => {
  const keys = (
    await sql<{ table: string; type: string; refers: string | null }>`select c.conrelid::regclass::text as table,
      c.contype as type, c.confrelid::regclass::text as refers from pg_constraint c
      where c.conrelid = any(${sql.val([...KEPT_TABLES])}::regclass[]) and c.contype in ('f', 'p')
      order by 1, 2, 3`.execute(t.db)
  ).rows
  // the set's pages' version is tag_set_tag_counts' id
  assert.equal(keys, [{ table: 'tag_set_tag_counts', type: 'p', refers: '-' }])
})

for (const parent of ['tagSet', 'tagClass'] as const)
  test(`a tag deleted while its ${parent} is deleted leaves none of the kept-count rows behind`, async () => {
    const { tagSet: set, mediaFile: f, tagClass: k } = await makeRecords(t, owner)
    const tag = await makeTag(t.db, owner, { tagSet: set, mediaFile: f, tagClass: k })
    await makeTag(t.db, owner, { tagSet: set, mediaFile: f, tagClass: k })
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let deleted!: () => void
    const tagDeleted = new Promise<void>((r) => (deleted = r))
    // the tag's delete appends its rows (-1) while the parent still exists, and commits after the parent's
    // delete began
    const writer = t.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('tags').where('id', '=', tag).execute()
      deleted()
      await held
    })
    await tagDeleted
    const parentDelete = t.call('DELETE', `${API}/${parent}/${parent === 'tagSet' ? set : k}/`, { as: owner })
    try {
      // the parent's delete waits for the tag's
      await untilLockWait(t.db, `delete from "${parent === 'tagSet' ? 'tag_sets' : 'tag_classes'}"`)
    } finally {
      release()
    }
    await writer
    assert.is((await parentDelete).statusCode, 204)
    if (parent === 'tagSet') assert.equal(await keptRows(set), [0, 0, 0, 0])
    // the class's rows, and the set's other rows (the file's, the set's) exact
    else {
      for (const table of ['tag_class_counts', 'tag_band_counts'] as const) {
        const left = await t.db.selectFrom(table).select('tag_set_id').where('tag_class_id', '=', k).execute()
        assert.is(left.length, 0, table)
      }
      await assertExact(set)
    }
  })

test('deleting a tag set, or its library, takes its count rows along', async () => {
  const { library: ownLib, tagSet: set, mediaFile: f, tagClass: k } = await makeRecords(t, owner)
  await makeTag(t.db, owner, { tagSet: set, mediaFile: f, tagClass: k })
  assert.ok((await keptRows(set)).every((n) => n > 0))
  assert.is((await t.call('DELETE', `${API}/tagSet/${set}/`, { as: owner })).statusCode, 204)
  assert.equal(await keptRows(set), [0, 0, 0, 0])

  const set2 = await makeTagSet(t.db, owner, ownLib)
  await makeTag(t.db, owner, { tagSet: set2, mediaFile: f, tagClass: k })
  // a media file deleted takes its tags along: the tag set's count follows
  assert.is((await t.call('DELETE', `${API}/mediaFile/${f}/`, { as: owner })).statusCode, 204)
  await assertExact(set2)
  assert.is((await t.call('DELETE', `${API}/library/${ownLib}/`, { as: owner })).statusCode, 204)
  assert.equal(await keptRows(set2), [0, 0, 0, 0])
})

test.run()
