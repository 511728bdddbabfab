import { sql, type Kysely } from 'kysely'

// Operators' ONNX models (docs/decisions.md, "Models"): the file, stored as media are, its md5 and size, and the
// manifest that says how to run it (json, kept as written). Names are unique, so users and jobs name a model.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('models')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('version', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('file', 'varchar(255)', (c) => c.notNull())
    .addColumn('md5', 'varchar(32)', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('manifest', 'json', (c) => c.notNull())
    .addColumn('embedding_size', 'integer')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('creation_date', 'timestamp', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('models').execute()
}
