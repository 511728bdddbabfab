import { sql, type Kysely } from 'kysely'

// A tag's annotations: the columns of a Raven table that mas has no field for (Notes, Call type, a
// verdict), kept as a JSON object of strings and written back on export (docs/decisions.md, "Raven
// round trips"). Type json, not jsonb: it keeps the text as written, so the columns keep their order and
// a record written by the database is the text JSON.stringify wrote (docs/decisions.md §11). A constant
// default adds the column without rewriting the table; no trigger reads it.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tags')
    .addColumn('annotations', 'json', (c) => c.notNull().defaultTo(sql`'{}'::json`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tags').dropColumn('annotations').execute()
}
