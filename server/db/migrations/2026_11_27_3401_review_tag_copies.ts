import { sql, type Kysely } from 'kysely'

// A decision keeps a copy of what the review summary reads of its tag: its tag set, class and strength
// (docs/decisions.md §19). The summary then reads a tag set's decisions alone, by an index of their own,
// instead of joining each to its tag, which read the whole of a large tag set's tags. POST tagReview/ writes
// the copies from the tag it checks; a trigger writes them for a decision inserted without them (or moved to
// another tag), and another one follows a tag whose set, class or strength changes. They may be null only for
// a row about to be refused for naming no tag (its foreign key's error stays the one raised).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tag_reviews')
    .addColumn('tag_set_id', 'integer')
    .addColumn('tagged_class_id', 'integer')
    .addColumn('tag_strength', 'double precision')
    .execute()
  await sql`update tag_reviews r set tag_set_id = t.tag_set_id, tagged_class_id = t.tag_class_id, tag_strength = t.strength
    from tags t where t.id = r.tag_id`.execute(db)
  await db.schema
    .createIndex('tag_reviews_tag_set_id_idx')
    .on('tag_reviews')
    .columns(['tag_set_id', 'tag_id'])
    .execute()

  await sql`create function tag_review_tag_copied() returns trigger language plpgsql as $$
    begin
      select t.tag_set_id, t.tag_class_id, t.strength into new.tag_set_id, new.tagged_class_id, new.tag_strength
        from tags t where t.id = new.tag_id;
      return new;
    end $$`.execute(db)
  // a decision written with the copies (as tagReview/ writes them, from the tag it checks) costs no call
  await sql`create trigger tag_reviews_tag_copied before insert on tag_reviews
    for each row when (new.tag_set_id is null) execute function tag_review_tag_copied()`.execute(db)
  await sql`create trigger tag_reviews_tag_moved before update of tag_id on tag_reviews
    for each row execute function tag_review_tag_copied()`.execute(db)

  await sql`create function tag_reviews_tag_changed() returns trigger language plpgsql as $$
    begin
      update tag_reviews set tag_set_id = new.tag_set_id, tagged_class_id = new.tag_class_id, tag_strength = new.strength
        where tag_id = new.id;
      return null;
    end $$`.execute(db)
  // row by row, and only for a tag whose copied columns changed: other edits of tags pay nothing but the test
  await sql`create trigger tags_review_copies after update of tag_set_id, tag_class_id, strength on tags for each row
    when ((old.tag_set_id, old.tag_class_id, old.strength) is distinct from (new.tag_set_id, new.tag_class_id, new.strength))
    execute function tag_reviews_tag_changed()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger tags_review_copies on tags`.execute(db)
  await sql`drop function tag_reviews_tag_changed()`.execute(db)
  await sql`drop trigger tag_reviews_tag_moved on tag_reviews`.execute(db)
  await sql`drop trigger tag_reviews_tag_copied on tag_reviews`.execute(db)
  await sql`drop function tag_review_tag_copied()`.execute(db)
  await db.schema.dropIndex('tag_reviews_tag_set_id_idx').execute()
  await db.schema
    .alterTable('tag_reviews')
    .dropColumn('tag_set_id')
    .dropColumn('tagged_class_id')
    .dropColumn('tag_strength')
    .execute()
}
