import type { Kysely } from 'kysely'

// The job type SpeechDetection (server/analysis/catalog.ts): its lookup row.

export async function up(db: Kysely<any>): Promise<void> {
  await db.insertInto('job_types').values({ id: 13, name: 'SpeechDetection' }).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('job_types').where('id', '=', 13).execute()
}
