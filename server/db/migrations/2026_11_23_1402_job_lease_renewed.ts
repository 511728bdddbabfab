import type { Kysely } from 'kysely'

// When the worker holding a job last renewed its lease (database clock), so a
// job whose worker has gone quiet can say for how long.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('lease_renewed', 'timestamptz').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('lease_renewed').execute()
}
