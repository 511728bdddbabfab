import type { Kysely } from 'kysely'

// A job may be created without a project, as the original's model allows (docs/decisions.md §8): a job whose
// type reads the project's media files waits for one before any worker claims it.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .alterColumn('project_id', (c) => c.dropNotNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('jobs').where('project_id', 'is', null).execute()
  await db.schema
    .alterTable('jobs')
    .alterColumn('project_id', (c) => c.setNotNull())
    .execute()
}
