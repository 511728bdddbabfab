import { sql, type Kysely } from 'kysely'

// The tags' indexes, fewer and packed (docs/decisions.md §42):
// - (tag_set_id, tag_class_id, id) and (tag_class_id) become one (tag_class_id, tag_set_id, id): `?tagSet=&tagClass=`
//   reads it with both leading columns fixed, so in id order as before; `?tagClass=` and the cascade from a deleted
//   class read its leading column, as they read (tag_class_id). One index fewer for every insert to keep.
// - The indexes whose entries arrive in key order (the id, a set's ids, a class's ids in its set, the tags not
//   machine-made) fill their pages whole: PostgreSQL leaves a page it splits at the end of a run of ascending keys
//   as full as the index's fill factor, 90 by default, a tenth of every page kept for inserts that never come
//   between ids already given. The recordings' index and the strength order, whose entries arrive between others,
//   keep 90: packed, the recordings' index split its pages just after each new entry and grew from 29 to 52 MB
//   per 10^6 tags (BENCHMARKS.md).

const PACKED = ['tags_pkey', 'tags_tag_set_id_id_idx', 'tags_tag_set_id_id_not_machine_idx']

async function fillFactor(db: Kysely<any>, index: string, percent: number | null): Promise<void> {
  if (percent === null) await sql`alter index ${sql.id(index)} reset (fillfactor)`.execute(db)
  else await sql`alter index ${sql.id(index)} set (fillfactor = ${sql.lit(percent)})`.execute(db)
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index tags_tag_class_id_tag_set_id_id_idx on tags (tag_class_id, tag_set_id, id)
    with (fillfactor = 100)`.execute(db)
  await db.schema.dropIndex('tags_tag_set_id_tag_class_id_id_idx').execute()
  await db.schema.dropIndex('tags_tag_class_id_idx').execute()
  for (const index of PACKED) await fillFactor(db, index, 100)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of PACKED) await fillFactor(db, index, null)
  await db.schema.createIndex('tags_tag_class_id_idx').on('tags').column('tag_class_id').execute()
  await db.schema
    .createIndex('tags_tag_set_id_tag_class_id_id_idx')
    .on('tags')
    .columns(['tag_set_id', 'tag_class_id', 'id'])
    .execute()
  await db.schema.dropIndex('tags_tag_class_id_tag_set_id_id_idx').execute()
}
