import type { Kysely } from 'kysely'

// (media_file_id, tag_class_id, start_time) in place of (media_file_id, tag_class_id) (migration 2026_11_27_3502),
// for `?onDuplicate=skip` (server/resources/core/duplicates.ts), which `mas tag import` asks for by default: the
// lookup of each new tag's stored twin went through (media_file_id, tag_class_id) and read every tag of that file
// and class, in any tag set, to compare the rest (129 tags a row at 1.4·10^6 tags: 0.54 s for 10,000 rows, more
// than their INSERT, and growing with the table). A tag's start time almost singles it out within its file and
// class. The shorter index's uses (?mediaFile=, ?mediaFile=&tagClass=, ?tagSet=&mediaFile= and the cascade from
// a deleted media file) are its prefix.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('tags_media_file_id_tag_class_id_start_time_idx')
    .on('tags')
    .columns(['media_file_id', 'tag_class_id', 'start_time'])
    .execute()
  await db.schema.dropIndex('tags_media_file_id_tag_class_id_idx').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('tags_media_file_id_tag_class_id_idx')
    .on('tags')
    .columns(['media_file_id', 'tag_class_id'])
    .execute()
  await db.schema.dropIndex('tags_media_file_id_tag_class_id_start_time_idx').execute()
}
