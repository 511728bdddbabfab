import { sql, type Kysely } from 'kysely'

// A tag's references to its user, tag class, tag set and media file, checked once per statement
// instead of once per row. The foreign keys they replace ran four row triggers for every tag: for a
// bulk create of 1,000 tags, 4,000 lookups of the same few parent rows, half of the INSERT's time.
//
// What the foreign keys did, these triggers do:
// - an INSERT, or an UPDATE that changes a reference, locks each distinct parent row (FOR KEY SHARE,
//   as a foreign key check does) and fails with foreign_key_violation when one does not exist, so a
//   parent deleted before the statement is refused, and one deleted after it waits for the commit;
// - deleting a parent deletes its tags (ON DELETE CASCADE), in the same statement.
// The references to a tag example and a parent tag keep their foreign keys: they are null on almost
// every tag, and a null reference costs a foreign key nothing.

const REFERENCES = [
  { column: 'user_id', parent: 'users' },
  { column: 'tag_class_id', parent: 'tag_classes' },
  { column: 'tag_set_id', parent: 'tag_sets' },
  { column: 'media_file_id', parent: 'media_files' },
] as const

export async function up(db: Kysely<any>): Promise<void> {
  for (const { column } of REFERENCES) {
    await db.schema.alterTable('tags').dropConstraint(`tags_${column}_fkey`).execute()
  }

  // how many of the given parent ids exist, each one locked against deletion until the commit
  await sql`create function tag_parents_locked(user_ids integer[], tag_class_ids integer[],
      tag_set_ids integer[], media_file_ids integer[]) returns void language plpgsql as $$
    begin
      if (select count(*) from (select from users p where p.id = any(user_ids) for key share of p) l) < cardinality(user_ids)
      or (select count(*) from (select from tag_classes p where p.id = any(tag_class_ids) for key share of p) l) < cardinality(tag_class_ids)
      or (select count(*) from (select from tag_sets p where p.id = any(tag_set_ids) for key share of p) l) < cardinality(tag_set_ids)
      or (select count(*) from (select from media_files p where p.id = any(media_file_ids) for key share of p) l) < cardinality(media_file_ids)
      then
        raise exception using errcode = 'foreign_key_violation',
          message = 'a tag refers to a user, tag class, tag set or media file that does not exist';
      end if;
    end $$`.execute(db)

  await sql`create function tags_references_inserted() returns trigger language plpgsql as $$
    begin
      perform tag_parents_locked(
        array(select distinct n.user_id from new_tags n),
        array(select distinct n.tag_class_id from new_tags n),
        array(select distinct n.tag_set_id from new_tags n),
        array(select distinct n.media_file_id from new_tags n));
      return null;
    end $$`.execute(db)
  await sql`create function tags_references_updated() returns trigger language plpgsql as $$
    begin
      perform tag_parents_locked(
        array(select distinct n.user_id from new_tags n join old_tags o on o.id = n.id where n.user_id <> o.user_id),
        array(select distinct n.tag_class_id from new_tags n join old_tags o on o.id = n.id where n.tag_class_id <> o.tag_class_id),
        array(select distinct n.tag_set_id from new_tags n join old_tags o on o.id = n.id where n.tag_set_id <> o.tag_set_id),
        array(select distinct n.media_file_id from new_tags n join old_tags o on o.id = n.id where n.media_file_id <> o.media_file_id));
      return null;
    end $$`.execute(db)
  await sql`create trigger tags_references_insert after insert on tags
    referencing new table as new_tags for each statement execute function tags_references_inserted()`.execute(db)
  await sql`create trigger tags_references_update after update on tags
    referencing old table as old_tags new table as new_tags for each statement execute function tags_references_updated()`.execute(
    db,
  )

  await sql`create function tags_deleted_with_parent() returns trigger language plpgsql as $$
    begin
      case tg_table_name
        when 'users' then delete from tags t using gone g where t.user_id = g.id;
        when 'tag_classes' then delete from tags t using gone g where t.tag_class_id = g.id;
        when 'tag_sets' then delete from tags t using gone g where t.tag_set_id = g.id;
        when 'media_files' then delete from tags t using gone g where t.media_file_id = g.id;
      end case;
      return null;
    end $$`.execute(db)
  for (const { parent } of REFERENCES) {
    await sql`create trigger ${sql.id(`${parent}_delete_tags`)} after delete on ${sql.table(parent)}
      referencing old table as gone for each statement execute function tags_deleted_with_parent()`.execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const { parent } of REFERENCES)
    await sql`drop trigger ${sql.id(`${parent}_delete_tags`)} on ${sql.table(parent)}`.execute(db)
  await sql`drop trigger tags_references_insert on tags`.execute(db)
  await sql`drop trigger tags_references_update on tags`.execute(db)
  for (const f of [
    'tags_deleted_with_parent()',
    'tags_references_inserted()',
    'tags_references_updated()',
    'tag_parents_locked(integer[], integer[], integer[], integer[])',
  ])
    await sql`drop function ${sql.raw(f)}`.execute(db)
  for (const { column, parent } of REFERENCES) {
    await db.schema
      .alterTable('tags')
      .addForeignKeyConstraint(`tags_${column}_fkey`, [column], parent, ['id'])
      .onDelete('cascade')
      .execute()
  }
}
