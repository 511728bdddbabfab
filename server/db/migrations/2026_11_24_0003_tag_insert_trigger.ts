import { sql, type Kysely } from 'kysely'

// One trigger after an INSERT into tags, where there were two: the reference checks of migration
// 2026_11_22_0005 (its tag_parents_locked, which the UPDATE trigger calls too) and the tag-set count rows
// of 2026_11_22_0003, made by one function that reads the inserted rows once. It does exactly what the two
// did, for less of PostgreSQL's time on a single tag's INSERT (BENCHMARKS.md, "Narrowed rules"). The UPDATE
// and DELETE triggers stay as they are.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create function tags_inserted() returns trigger language plpgsql as $$
    declare
      user_ids integer[]; tag_class_ids integer[]; tag_set_ids integer[]; media_file_ids integer[];
    begin
      select array_agg(distinct n.user_id), array_agg(distinct n.tag_class_id), array_agg(distinct n.tag_set_id),
          array_agg(distinct n.media_file_id)
        into user_ids, tag_class_ids, tag_set_ids, media_file_ids from new_tags n;
      if user_ids is null then
        return null; -- nothing was inserted
      end if;
      -- the references' check of migration 2026_11_22_0005 (each parent locked against deletion until the commit)
      perform tag_parents_locked(user_ids, tag_class_ids, tag_set_ids, media_file_ids);
      insert into tag_set_tag_counts (tag_set_id, delta)
        select n.tag_set_id, count(*) from new_tags n group by n.tag_set_id;
      return null;
    end $$`.execute(db)
  await sql`drop trigger tags_references_insert on tags`.execute(db)
  await sql`drop trigger tags_counted_insert on tags`.execute(db)
  await sql`create trigger tags_inserted after insert on tags
    referencing new table as new_tags for each statement execute function tags_inserted()`.execute(db)
  // the functions of the two triggers it replaces
  await sql`drop function tags_references_inserted()`.execute(db)
  await sql`drop function tag_set_counts_inserted()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create function tag_set_counts_inserted() returns trigger language plpgsql as $$
    begin
      insert into tag_set_tag_counts (tag_set_id, delta)
        select n.tag_set_id, count(*) from new_tags n group by n.tag_set_id;
      return null;
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
  await sql`drop trigger tags_inserted on tags`.execute(db)
  await sql`create trigger tags_counted_insert after insert on tags
    referencing new table as new_tags for each statement execute function tag_set_counts_inserted()`.execute(db)
  await sql`create trigger tags_references_insert after insert on tags
    referencing new table as new_tags for each statement execute function tags_references_inserted()`.execute(db)
  await sql`drop function tags_inserted()`.execute(db)
}
