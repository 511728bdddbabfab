import { type Kysely, sql } from 'kysely'

// Failed password presentations (Basic, token login, session login), shared by
// every server process and host on this database, so the brute-force limit
// holds however many servers there are. A row is one failure; `pair` is the
// sha256 of address and username, so attempted usernames (sometimes a password
// typed in the wrong field) are not kept as they were typed.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('login_failures')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('pair', 'char(64)', (c) => c.notNull())
    .addColumn('failed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('login_failures_pair').on('login_failures').columns(['pair', 'failed_at']).execute()
  await db.schema.createIndex('login_failures_address').on('login_failures').columns(['address', 'failed_at']).execute()
  await db.schema.createIndex('login_failures_failed_at').on('login_failures').column('failed_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('login_failures').execute()
}
