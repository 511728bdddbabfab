import type { Kysely } from 'kysely'

// Media files are found by alias (a path relative to an import's root: exact,
// or every file under a folder) and by recording start time, within a library;
// imports check the alias of each new file (README, "Media files").

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('media_files_library_alias_idx')
    .on('media_files')
    .columns(['library_id', 'alias'])
    .execute()
  await db.schema
    .createIndex('media_files_library_start_idx')
    .on('media_files')
    .columns(['library_id', 'real_start_time'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('media_files_library_start_idx').execute()
  await db.schema.dropIndex('media_files_library_alias_idx').execute()
}
