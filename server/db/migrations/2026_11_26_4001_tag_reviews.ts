import { sql, type Kysely } from 'kysely'

// A reviewer's decision on a tag (tagReview/, README "Reviewing machine tags"): one per tag and reviewer,
// gone with its tag. The review queue and summary read a tag set's tags by strength, hence the index on tags.
// A login code: a one-time, short-lived secret (kept as its sha256) that a page exchanges for a session.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tag_reviews')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('tag_id', 'integer', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('decision', 'varchar(8)', (c) => c.notNull().check(sql`decision in ('yes', 'no', 'unsure', 'skip')`))
    .addColumn('tag_class_id', 'integer', (c) => c.references('tag_classes.id').onDelete('set null'))
    .addColumn('note', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('creation_date', 'timestamp(0)' as any, (c) => c.notNull())
    .addUniqueConstraint('tag_reviews_tag_id_user_id_key', ['tag_id', 'user_id'])
    .execute()
  await db.schema.createIndex('tag_reviews_user_id_idx').on('tag_reviews').column('user_id').execute()
  await db.schema.createIndex('tag_reviews_tag_class_id_idx').on('tag_reviews').column('tag_class_id').execute()
  await db.schema
    .createTable('login_codes')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires', 'timestamp(0)' as any, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('tags_tag_set_id_strength_idx')
    .on('tags')
    .columns(['tag_set_id', 'strength', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tags_tag_set_id_strength_idx').execute()
  await db.schema.dropTable('login_codes').execute()
  await db.schema.dropTable('tag_reviews').execute()
}
