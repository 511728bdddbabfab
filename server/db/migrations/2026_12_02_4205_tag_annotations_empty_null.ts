import { sql, type Kysely } from 'kysely'

// A tag's annotations stored as NULL when it has none (docs/decisions.md §42): the `{}` every tag of a detector or a
// hand took 3 bytes of its row, and past its alignment 8 (a row of 120 bytes is one of 112 without them: 65 → 70
// rows a page). The field is read as {} (its declaration's `emptyAsNull`), so the answers do not change. The rows
// stored before keep their `{}`, read the same; changing them here would write every row of the table again.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tags')
    .alterColumn('annotations', (c) => c.dropNotNull())
    .alterColumn('annotations', (c) => c.dropDefault())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`update tags set annotations = '{}'::json where annotations is null`.execute(db)
  await db.schema
    .alterTable('tags')
    .alterColumn('annotations', (c) => c.setDefault(sql`'{}'::json`))
    .alterColumn('annotations', (c) => c.setNotNull())
    .execute()
}
