import { sql, type Kysely } from 'kysely'

// Search by example (docs/decisions.md §35): the job types EmbedAudio and TrainClassifier (server/analysis/catalog.ts),
// and each media file's stored window embeddings, one row per (media file, kind, window, hop) holding every window's
// vector as float16, one after another. Windows start every `step_seconds` from the file's start, each
// `length_seconds` long (what the file's sample rate made of the window and hop asked for). The vectors are stored
// uncompressed out of line (float16 does not compress), so that a few vectors are read by substring without the rest.

export async function up(db: Kysely<any>): Promise<void> {
  await db
    .insertInto('job_types')
    .values([
      { id: 14, name: 'EmbedAudio' },
      { id: 15, name: 'TrainClassifier' },
    ])
    .execute()
  await db.schema
    .createTable('window_embeddings')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('media_file_id', 'integer', (c) => c.notNull().references('media_files.id').onDelete('cascade'))
    .addColumn('library_id', 'integer', (c) => c.notNull().references('libraries.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(64)', (c) => c.notNull())
    .addColumn('window_seconds', 'float8', (c) => c.notNull())
    .addColumn('hop_seconds', 'float8', (c) => c.notNull())
    .addColumn('length_seconds', 'float8', (c) => c.notNull())
    .addColumn('step_seconds', 'float8', (c) => c.notNull())
    .addColumn('duration', 'float8', (c) => c.notNull())
    .addColumn('dimensions', 'integer', (c) => c.notNull())
    .addColumn('windows', 'integer', (c) => c.notNull())
    .addColumn('vectors', 'bytea', (c) => c.notNull())
    .addColumn('creation_date', 'timestamp', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('window_embeddings_once', ['media_file_id', 'kind', 'window_seconds', 'hop_seconds'])
    .execute()
  await sql`alter table window_embeddings alter column vectors set storage external`.execute(db)
  await db.schema
    .createIndex('window_embeddings_library_kind')
    .on('window_embeddings')
    .columns(['library_id', 'kind', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('window_embeddings').execute()
  await db.deleteFrom('job_types').where('id', 'in', [14, 15]).execute()
}
