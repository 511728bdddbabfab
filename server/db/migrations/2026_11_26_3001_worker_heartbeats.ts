import { type Kysely, sql } from 'kysely'

// One row per running job worker (in a server process or `mas worker start`),
// renewed every few seconds by the worker and removed when it stops, so the
// server can say how many workers are alive (/healthz) and a client watching a
// queued job can say when none is. A worker killed outright leaves its row,
// which stops counting once it is no longer renewed.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('worker_heartbeats')
    .addColumn('worker_id', 'text', (c) => c.primaryKey())
    .addColumn('started', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('renewed', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('worker_heartbeats_renewed').on('worker_heartbeats').column('renewed').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('worker_heartbeats').execute()
}
