import { sql, type Kysely } from 'kysely'

// A library's speech policy and each media file's speech scan (docs/decisions.md, "Speech policy"):
// `speech_policy` is keep (the default: audio leaves as stored), mute or withhold; `speech_scanned_at` is when
// a SpeechDetection job last listened to the file, null until one has. Under mute or withhold a file that has
// not been listened to is withheld from readers, so the column starts null for every file.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('libraries')
    .addColumn('speech_policy', 'varchar(8)', (c) =>
      c
        .notNull()
        .defaultTo('keep')
        .check(sql`speech_policy in ('keep', 'mute', 'withhold')`),
    )
    .execute()
  await db.schema.alterTable('media_files').addColumn('speech_scanned_at', 'timestamp').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('media_files').dropColumn('speech_scanned_at').execute()
  await db.schema.alterTable('libraries').dropColumn('speech_policy').execute()
}
