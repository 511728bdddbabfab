import { sql, type Kysely } from 'kysely'

// The tags of a user found by block-range summaries instead of a B-tree (docs/decisions.md §43). `(user_id)` took
// 6 MB per 10^6 tags for two readers: a deleted user's tags (the reference trigger of migration 2026_11_22_0005)
// and `?user=` on the tags' lists, neither of which a measured list reads. A tag's user is its writer, a person or
// a job's owner, and tags are written in runs, so each range of 128 pages holds the tags of a few users; a BRIN
// index keeps up to 32 values a range (minmax-multi), a few kB for 10^6 tags, and `user_id = X` reads only the
// ranges that can hold X. Ranges written since the last summary are read whole until autovacuum summarises them
// (autosummarize), which costs a wait, never a wrong answer.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index tags_user_id_summary_idx on tags using brin (user_id int4_minmax_multi_ops)
    with (autosummarize = on)`.execute(db)
  await db.schema.dropIndex('tags_user_id_idx').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('tags_user_id_idx').on('tags').column('user_id').execute()
  await db.schema.dropIndex('tags_user_id_summary_idx').execute()
}
