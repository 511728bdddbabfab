import { type Kysely, sql } from 'kysely'

// Tokens and sessions are looked up by the sha256 of the secret, so the time a
// lookup takes says nothing about how much of a guessed secret was right. A
// token's key is still kept: the token endpoint answers the same token on
// every request. Session keys are only ever needed as digests, so open
// sessions end here and their users log in again.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('digest', 'char(64)').execute()
  await db
    .updateTable('tokens')
    .set({ digest: sql`encode(sha256(convert_to(key, 'UTF8')), 'hex')` })
    .execute()
  await db.schema
    .alterTable('tokens')
    .alterColumn('digest', (c) => c.setNotNull())
    .execute()
  await db.schema.createIndex('tokens_digest_key').unique().on('tokens').column('digest').execute()
  await db.deleteFrom('sessions').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tokens_digest_key').execute()
  await db.schema.alterTable('tokens').dropColumn('digest').execute()
}
