import type { Kysely } from 'kysely'

// What made a machine tag (docs/decisions.md, "Provenance"): the job type or model, its version, the model's
// checksum, the job and its parameters, or the tool whose output was imported. Type json, as the annotations
// are: the text is kept as written, so a record written by the database is the text JSON.stringify wrote. Null
// for a tag made by hand; a null default adds the column without rewriting the table, and no trigger reads it.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tags').addColumn('provenance', 'json').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tags').dropColumn('provenance').execute()
}
