import type { Kysely } from 'kysely'

// The job type ModelInference (server/analysis/catalog.ts): its lookup row, as the first migration wrote the others.

export async function up(db: Kysely<any>): Promise<void> {
  await db.insertInto('job_types').values({ id: 12, name: 'ModelInference' }).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('job_types').where('id', '=', 12).execute()
}
