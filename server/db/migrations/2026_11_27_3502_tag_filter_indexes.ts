import { sql, type Kysely } from 'kysely'

// Indexes for the filter pairs of tag/ (docs/decisions.md, "Lists at scale"):
// - (tag_set_id, tag_class_id, id): ?tagSet=&tagClass=, its pages in id order without a sort;
// - (media_file_id, tag_class_id) in place of (media_file_id): ?mediaFile=, ?mediaFile=&tagClass= and
//   ?tagSet=&mediaFile= (a media file has few tags), and the cascade from a deleted media file;
// - the indexes of the rare references (a tag's parent tag and tag example, null on almost every tag) only
//   over the tags that have one: the cascades they serve (ON DELETE SET NULL) look up non-null values only.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('tags_tag_set_id_tag_class_id_id_idx')
    .on('tags')
    .columns(['tag_set_id', 'tag_class_id', 'id'])
    .execute()
  await db.schema
    .createIndex('tags_media_file_id_tag_class_id_idx')
    .on('tags')
    .columns(['media_file_id', 'tag_class_id'])
    .execute()
  await db.schema.dropIndex('tags_media_file_id_idx').execute()
  for (const column of ['parent_tag_id', 'tag_example_id']) {
    await db.schema.dropIndex(`tags_${column}_idx`).execute()
    await db.schema
      .createIndex(`tags_${column}_idx`)
      .on('tags')
      .column(column)
      .where(sql.ref(column), 'is not', null)
      .execute()
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['parent_tag_id', 'tag_example_id']) {
    await db.schema.dropIndex(`tags_${column}_idx`).execute()
    await db.schema.createIndex(`tags_${column}_idx`).on('tags').column(column).execute()
  }
  await db.schema.createIndex('tags_media_file_id_idx').on('tags').column('media_file_id').execute()
  await db.schema.dropIndex('tags_media_file_id_tag_class_id_idx').execute()
  await db.schema.dropIndex('tags_tag_set_id_tag_class_id_id_idx').execute()
}
