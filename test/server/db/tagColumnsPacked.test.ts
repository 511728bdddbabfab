import { Migrator, sql, type Kysely } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openDatabase, type Database } from '../../../server/db/database.js'
import { migrationProvider } from '../../../server/db/migrations/index.js'
import type { DB } from '../../../server/db/schema.js'
import { seasonOwner, seasonRecordings } from '../../../bench/seasonOwner.js'
import { freshDatabase } from '../../helpers/db.js'

// The tags' table made again with its columns in an order without alignment padding (migration 2026_12_02_4206,
// docs/decisions.md §43) and their user index made a block-range summary (2026_12_02_4207): a database with tags in
// it before them keeps every value of every tag and every key, index and trigger of the table, its rows are 8 bytes
// smaller, and the next tag's id is the one the old table would have given.

const BEFORE = '2026_12_02_4205_tag_annotations_empty_null'
const PACKED = '2026_12_02_4206_tag_columns_packed'

/** The definitions of the tags' indexes, triggers and constraints (and of the one reference to them), by name. */
const definitions = async (db: Kysely<DB>) =>
  (
    await sql<{ kind: string; name: string; def: string }>`
      select 'index' as kind, indexname as name, indexdef as def from pg_indexes
        where schemaname = 'before_packing' and tablename = 'tags'
      union all
      select 'trigger', tgname, pg_get_triggerdef(oid) from pg_trigger
        where tgrelid = 'before_packing.tags'::regclass and not tgisinternal
      union all
      select 'constraint', conname, pg_get_constraintdef(oid) from pg_constraint
        where conrelid = 'before_packing.tags'::regclass or confrelid = 'before_packing.tags'::regclass
      union all
      select 'default', attname, pg_get_expr(adbin, adrelid) from pg_attrdef
        join pg_attribute on attrelid = adrelid and attnum = adnum where adrelid = 'before_packing.tags'::regclass
      union all
      select 'nullable', attname, (not attnotnull)::text from pg_attribute
        where attrelid = 'before_packing.tags'::regclass and attnum > 0 and not attisdropped
      union all
      select 'identity', attname, attidentity::text from pg_attribute
        where attrelid = 'before_packing.tags'::regclass and attidentity <> ''
      order by 1, 2`.execute(db)
  ).rows

let fresh: Awaited<ReturnType<typeof freshDatabase>>
let database: Database

test.before(async () => {
  fresh = await freshDatabase()
  database = await openDatabase({ url: fresh.url, poolSize: 2 })
  // a schema of its own, migrated only as far as before the change, as an install of the last release is
  await sql`create schema before_packing`.execute(database.db)
})
test.after(async () => {
  await database?.close()
  await fresh?.drop()
})

const migrator = (db: Kysely<DB>) =>
  new Migrator({ db, provider: migrationProvider, migrationTableSchema: 'before_packing' })

interface TagValues {
  id: number
  media_file_id: number
  tag_class_id: number
  start_time: number
  randomly_chosen: boolean
  machine_tagged: boolean
  user_tagged: boolean
  strength: number
  annotations: unknown
  provenance: unknown
  parent_tag_id: number | null
}

const tagValues = (db: Kysely<DB>) =>
  sql<TagValues & { row_bytes: number }>`select id, media_file_id, tag_class_id, start_time, randomly_chosen,
    machine_tagged, user_tagged, strength, annotations, provenance, parent_tag_id, pg_column_size(t.*) as row_bytes
    from tags t order by id`.execute(db)

test('tags stored before the columns moved keep every value, in rows 8 bytes smaller', async () => {
  // the schema's tables first on the search path, as the server's own connections have them
  const one = await openDatabase({
    url: `${fresh.url}${fresh.url.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c search_path=before_packing')}`,
    poolSize: 1,
  })
  try {
    const db = one.db
    const to = await migrator(db).migrateTo(BEFORE)
    assert.not.ok(to.error, String(to.error))
    const now = '2026-12-02 12:00:00'
    const owner = await seasonOwner(db, 'keeper', now)
    const user = owner.user
    const files = await seasonRecordings(db, owner, 2, now)
    const set = await db
      .insertInto('tag_sets')
      .values({ user_id: user.id, name: 'calls', creation_date: now })
      .returning('id')
      .executeTakeFirstOrThrow()
    const cls = await db
      .insertInto('tag_classes')
      .values({ user_id: user.id, library_id: owner.library.id, class_name: 'owl' })
      .returning('id')
      .executeTakeFirstOrThrow()
    const tag = (n: number) => ({
      user_id: user.id,
      creation_date: now,
      tag_class_id: cls.id,
      tag_set_id: set.id,
      media_file_id: files[n % 2].id,
      start_time: n,
      end_time: n + 1.5,
      min_frequency: 100 * n,
      max_frequency: 100 * n + 2000,
      randomly_chosen: n % 3 === 0,
      machine_tagged: n % 2 === 0,
      user_tagged: n % 2 === 1,
      strength: n / 7,
      annotations: n === 1 ? JSON.stringify({ call: 'hoot' }) : null,
      provenance: n === 2 ? JSON.stringify({ source: 'BirdNET-Analyzer', version: '2.4' }) : null,
    })
    const stored = await db.insertInto('tags').values([0, 1, 2, 3, 4, 5].map(tag)).returning('id').execute()
    // the last tag deleted: the sequence is ahead of the largest id
    await db.deleteFrom('tags').where('id', '=', stored[5].id).execute()
    await db.updateTable('tags').set({ parent_tag_id: stored[0].id }).where('id', '=', stored[4].id).execute()
    await db
      .insertInto('tag_reviews')
      .values({ tag_id: stored[1].id, user_id: user.id, decision: 'yes', creation_date: now })
      .execute()
    const before = (await tagValues(db)).rows
    const defined = await definitions(db)

    const packed = await migrator(db).migrateTo(PACKED)
    assert.not.ok(packed.error, String(packed.error))
    const after = (await tagValues(db)).rows
    assert.equal(await definitions(db), defined)

    const values = ({ row_bytes: _bytes, ...v }: TagValues & { row_bytes: number }) => v
    assert.equal(after.map(values), before.map(values))
    // a row without annotations or provenance: 112 → 104 bytes on a page (a row there ends at a multiple of 8; the
    // size of a row as a value does not)
    const onPage = (bytes: number) => Math.ceil(bytes / 8) * 8
    assert.equal([onPage(before[0].row_bytes), onPage(after[0].row_bytes)], [112, 104])
    assert.equal(
      after.map((r) => r.machine_tagged),
      [true, false, true, false, true],
    )

    const latest = await migrator(db).migrateToLatest()
    assert.not.ok(latest.error, String(latest.error))
    const columns = await sql<{ attname: string }>`select attname from pg_attribute
      where attrelid = 'before_packing.tags'::regclass and attnum > 0 and not attisdropped order by attnum`.execute(db)
    assert.equal(
      columns.rows.map((c) => c.attname),
      [
        ...['id', 'tag_set_id', 'tag_class_id', 'media_file_id', 'creation_date', 'start_time', 'end_time'],
        ...['min_frequency', 'max_frequency', 'strength', 'user_id', 'randomly_chosen', 'machine_tagged'],
        ...['user_tagged', 'tag_example_id', 'parent_tag_id', 'annotations', 'provenance'],
      ],
    )
    const indexes = await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes
      where schemaname = 'before_packing' and tablename = 'tags' order by indexname`.execute(db)
    const def = (name: string) => indexes.rows.find((i) => i.indexname === name)?.indexdef ?? `no ${name}`
    assert.match(def('tags_media_file_id_tag_class_id_start_time_idx'), '(media_file_id, tag_class_id, start_time)')
    assert.match(def('tags_tag_set_id_id_not_machine_idx'), 'WHERE (machine_tagged = false)')
    assert.match(def('tags_user_id_summary_idx'), 'USING brin (user_id int4_minmax_multi_ops)')
    assert.not.ok(indexes.rows.some((i) => i.indexname === 'tags_user_id_idx'))

    // the next id follows the deleted tag's; the defaults and the not-null rules are the table's
    const made = await db
      .insertInto('tags')
      .values({ ...tag(6), randomly_chosen: undefined, machine_tagged: undefined, user_tagged: undefined })
      .returning(['id', 'randomly_chosen', 'machine_tagged', 'user_tagged'])
      .executeTakeFirstOrThrow()
    assert.equal(made, { id: stored[5].id + 1, randomly_chosen: false, machine_tagged: false, user_tagged: false })
    const refused = await db
      .insertInto('tags')
      .values({ ...tag(7), media_file_id: sql<number>`null` })
      .execute()
      .then(
        () => 'stored',
        (e: { code?: string }) => e.code,
      )
    assert.equal(refused, '23502')

    // the references to and from the table hold: a parent's children lose it, a tag's reviews go with it
    await db.deleteFrom('tags').where('id', '=', stored[0].id).execute()
    const child = await db.selectFrom('tags').select('parent_tag_id').where('id', '=', stored[4].id).executeTakeFirst()
    assert.equal(child, { parent_tag_id: null })
    await db.deleteFrom('tags').where('id', '=', stored[1].id).execute()
    const reviews = await db.selectFrom('tag_reviews').select('id').execute()
    assert.equal(reviews, [])

    // a user's tags are still found through the summary: a deleted user's go with them
    const kept = await db
      .selectFrom('tags')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow()
    assert.equal(kept.n, 4)
    await db.deleteFrom('users').where('id', '=', user.id).execute()
    const left = await db
      .selectFrom('tags')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow()
    assert.equal(left.n, 0)
  } finally {
    await one.close()
  }
})

test.run()
