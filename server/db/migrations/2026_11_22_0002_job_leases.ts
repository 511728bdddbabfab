import type { Kysely } from 'kysely'

// Workers claim jobs with a lease: `worker_id` holds the claim, `lease_expires`
// (database clock, so every worker agrees) says when another may take it over.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('worker_id', 'varchar(255)')
    .addColumn('lease_expires', 'timestamptz')
    .execute()
  await db.schema.createIndex('jobs_claim_idx').on('jobs').columns(['status_id', 'priority', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_claim_idx').execute()
  await db.schema.alterTable('jobs').dropColumn('lease_expires').dropColumn('worker_id').execute()
}
