import type { Kysely } from 'kysely'

// ?tagSet=&machineTagged= (the pair scripts use to tell a recognizer's tags from people's): its pages in id
// order and its count(*) from the index alone, instead of every tag of the set read from the table
// (docs/decisions.md, "Lists at scale").

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('tags_tag_set_id_machine_tagged_id_idx')
    .on('tags')
    .columns(['tag_set_id', 'machine_tagged', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tags_tag_set_id_machine_tagged_id_idx').execute()
}
