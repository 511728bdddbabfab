import { sql, type Kysely } from 'kysely'

// Two of the tags' indexes made smaller (docs/decisions.md §41), for the disk a tag costs and the upkeep every
// insert pays:
// - the review queue's and the evaluation's strength order, (tag_set_id, strength, id), loses `id`: their ties
//   (equal strengths) are ordered by an incremental sort of the few tags of one strength, and an entry without
//   the id is 8 bytes smaller;
// - (tag_set_id, machine_tagged, id), which gave `?tagSet=&machineTagged=` its pages in id order, becomes
//   (tag_set_id, id) over the tags not machine-made: a detector's tags, the bulk of any large set, are in no
//   such index, and `machineTagged=true` reads (tag_set_id, id), where they are most of their set.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tags_tag_set_id_strength_idx').execute()
  await db.schema.createIndex('tags_tag_set_id_strength_idx').on('tags').columns(['tag_set_id', 'strength']).execute()
  await db.schema.dropIndex('tags_tag_set_id_machine_tagged_id_idx').execute()
  await db.schema
    .createIndex('tags_tag_set_id_id_not_machine_idx')
    .on('tags')
    .columns(['tag_set_id', 'id'])
    .where(sql.ref('machine_tagged'), '=', sql.lit(false))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tags_tag_set_id_id_not_machine_idx').execute()
  await db.schema
    .createIndex('tags_tag_set_id_machine_tagged_id_idx')
    .on('tags')
    .columns(['tag_set_id', 'machine_tagged', 'id'])
    .execute()
  await db.schema.dropIndex('tags_tag_set_id_strength_idx').execute()
  await db.schema
    .createIndex('tags_tag_set_id_strength_idx')
    .on('tags')
    .columns(['tag_set_id', 'strength', 'id'])
    .execute()
}
