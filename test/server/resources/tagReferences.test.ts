import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { tagSetTagCount } from '../../../server/resources/tagSetCount.js'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeMediaFile, makeTag, makeTagClass } from '../../helpers/records.js'
import { makeRecords, tagRefs } from '../../helpers/world.js'
import { untilLockWait } from '../../helpers/db.js'

// A tag's user, tag class, tag set and media file are checked by statement triggers, not foreign
// keys (migration 0005): a tag can never refer to a missing record, and deleting a record deletes
// its tags, as the foreign keys made sure.

const API = '/api/v0'
const t = suiteApp(test)
let owner: TestUser

test.before(async () => {
  owner = await t.user('referrer')
})

type Refs = { tagSet: number; mediaFile: number; tagClass: number }

async function newRefs(): Promise<Refs & { library: number }> {
  const records = await makeRecords(t, owner)
  return { library: records.library, ...tagRefs(records) }
}

async function failsWith(code: string, work: () => Promise<unknown>) {
  try {
    await work()
  } catch (e) {
    assert.is((e as { code?: string }).code, code, String(e))
    return
  }
  assert.unreachable(`expected the database to refuse with ${code}`)
}

const tagsOf = async (column: 'tag_set_id' | 'media_file_id' | 'tag_class_id' | 'user_id', id: number) =>
  (await t.db.selectFrom('tags').select('id').where(column, '=', id).execute()).map((r) => r.id)

test('a tag cannot be stored with a user, tag class, tag set or media file that does not exist', async () => {
  const refs = await newRefs()
  const before = (await tagsOf('tag_set_id', refs.tagSet)).length
  for (const missing of [{ tagSet: 999_999 }, { mediaFile: 999_999 }, { tagClass: 999_999 }]) {
    await failsWith('23503', () => makeTag(t.db, owner, { ...refs, ...missing }))
  }
  await failsWith('23503', () => makeTag(t.db, { id: 999_999 }, refs))
  // a bulk statement with one bad row stores none of its rows
  const row = (mediaFile: number) => ({
    user_id: owner.id,
    creation_date: '2026-01-01 00:00:00',
    tag_class_id: refs.tagClass,
    tag_set_id: refs.tagSet,
    media_file_id: mediaFile,
    start_time: 1,
    end_time: 2,
    min_frequency: 0,
    max_frequency: 100,
  })
  await failsWith('23503', () =>
    t.db
      .insertInto('tags')
      .values([row(refs.mediaFile), row(999_999), row(refs.mediaFile)])
      .execute(),
  )
  assert.is((await tagsOf('tag_set_id', refs.tagSet)).length, before)
  await makeTag(t.db, owner, refs)
  assert.is((await tagsOf('tag_set_id', refs.tagSet)).length, before + 1)
})

test('an update may not point a tag at a missing record; other updates do not look at the references', async () => {
  const refs = await newRefs()
  const tag = await makeTag(t.db, owner, refs)
  await failsWith('23503', () => t.db.updateTable('tags').set({ tag_set_id: 999_999 }).where('id', '=', tag).execute())
  await failsWith('23503', () =>
    t.db.updateTable('tags').set({ media_file_id: 999_999 }).where('id', '=', tag).execute(),
  )
  const other = await newRefs()
  await t.db.updateTable('tags').set({ tag_set_id: other.tagSet, strength: 0.5 }).where('id', '=', tag).execute()
  assert.equal(await tagsOf('tag_set_id', other.tagSet), [tag])
  // through the API, a missing tag set is a field error as before
  const res = await t.call('PATCH', `${API}/tag/${tag}/`, { as: owner, body: { tagSet: 999_999 } })
  assert.is(res.statusCode, 400)
  assert.ok(res.data.tagSet, JSON.stringify(res.data))
})

test('deleting a user, tag class, tag set or media file deletes its tags and no others, and counts stay exact', async () => {
  const a = await newRefs()
  const b = await newRefs()
  const author = await t.user('author')
  const keep = [await makeTag(t.db, owner, b), await makeTag(t.db, owner, b)]
  const byAuthor = [await makeTag(t.db, author, a), await makeTag(t.db, author, b)]
  assert.equal(await tagsOf('user_id', author.id), byAuthor)

  const byClass = [await makeTag(t.db, owner, a), await makeTag(t.db, owner, a)]
  await t.db.deleteFrom('tag_classes').where('id', '=', a.tagClass).execute()
  assert.equal(await tagsOf('tag_class_id', a.tagClass), [])
  for (const id of byClass)
    assert.is(await t.db.selectFrom('tags').select('id').where('id', '=', id).executeTakeFirst(), undefined)

  const cls = await makeTagClass(t.db, owner, a.library)
  await makeTag(t.db, owner, { ...a, tagClass: cls })
  await t.db.deleteFrom('media_files').where('id', '=', a.mediaFile).execute()
  assert.equal(await tagsOf('media_file_id', a.mediaFile), [])

  const file = await makeMediaFile(t.db, owner, a.library)
  await makeTag(t.db, owner, { ...a, tagClass: cls, mediaFile: file })
  await t.db.deleteFrom('tag_sets').where('id', '=', a.tagSet).execute()
  assert.equal(await tagsOf('tag_set_id', a.tagSet), [])

  await t.db.deleteFrom('users').where('id', '=', author.id).execute()
  assert.equal(await tagsOf('user_id', author.id), [])
  assert.equal(await tagsOf('tag_set_id', b.tagSet), keep)
  assert.is((await tagSetTagCount(t.db, b.tagSet)).count, keep.length)
})

test('deleting a library deletes the tags of its tag sets and media files', async () => {
  const refs = await newRefs()
  for (let i = 0; i < 3; i++) await makeTag(t.db, owner, refs)
  const res = await t.call('DELETE', `${API}/library/${refs.library}/`, { as: owner })
  assert.is(res.statusCode, 204, JSON.stringify(res.data))
  assert.equal(await tagsOf('tag_set_id', refs.tagSet), [])
  assert.equal(await tagsOf('media_file_id', refs.mediaFile), [])
})

// Concurrent transactions. The media file is the parent here: a tag set is also locked by the count row
// its tags add.
test('PostgreSQL: a media file deleted while its tags go in waits for them and takes them along', async () => {
  const refs = await newRefs()
  let deleting: Promise<unknown> | undefined
  await t.db.transaction().execute(async (trx) => {
    await makeTag(trx as any, owner, refs)
    deleting = t.db.deleteFrom('media_files').where('id', '=', refs.mediaFile).execute()
    await untilLockWait(t.db, 'delete from "media_files"')
  })
  await deleting
  assert.equal(await tagsOf('media_file_id', refs.mediaFile), [])
})

test('PostgreSQL: tags sent for a media file being deleted are refused once the deletion commits', async () => {
  const refs = await newRefs()
  let inserting: Promise<unknown> | undefined
  await t.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('media_files').where('id', '=', refs.mediaFile).execute()
    inserting = makeTag(t.db, owner, refs).then(
      () => 'stored',
      (e) => e,
    )
    await untilLockWait(t.db, 'insert into "tags"')
  })
  const outcome = await inserting
  assert.is((outcome as { code?: string }).code, '23503', String(outcome))
  assert.equal(await tagsOf('media_file_id', refs.mediaFile), [])
})

test.run()
