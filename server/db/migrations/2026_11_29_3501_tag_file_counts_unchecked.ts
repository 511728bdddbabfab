import { sql, type Kysely } from 'kysely'

// The per-media-file kept counts (tag_file_counts, migration 2026_11_27_3501) without their two foreign keys.
// A bulk create spreads its tags over many files, one count row a (tag set, file): the foreign keys' row
// triggers checked each of those rows again, a quarter of the database's time of `POST tag/` of 10,000 tags on
// 10,000 files (docs/decisions.md, "Lists at scale"). Every row is written by the tags' own triggers, after
// the tags' references were checked and their parents locked (tag_parents_locked), or by a fold that locks
// them (server/resources/tagSetCount.ts), so the check found nothing new. What the foreign keys still did, the
// removal of a deleted tag set's or media file's rows, is done by a statement trigger on each, after the
// cascade of their tags.

/** the body of the trigger that removes a deleted parent's rows (migration 2026_12_01_4201 goes back to it) */
export const parentsDeleted = (column: 'tag_set_id' | 'media_file_id') => sql`
    begin
      delete from tag_file_counts k where k.${sql.raw(column)} in (select o.id from old_parents o);
      return null;
    end`

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table tag_file_counts drop constraint tag_file_counts_tag_set_id_fkey`.execute(db)
  await sql`alter table tag_file_counts drop constraint tag_file_counts_media_file_id_fkey`.execute(db)
  await sql`create function tag_file_counts_of_tag_sets_deleted() returns trigger language plpgsql as $$${parentsDeleted('tag_set_id')}$$`.execute(
    db,
  )
  await sql`create function tag_file_counts_of_media_files_deleted() returns trigger language plpgsql as $$${parentsDeleted('media_file_id')}$$`.execute(
    db,
  )
  await sql`create trigger tag_file_counts_gone after delete on tag_sets referencing old table as old_parents
    for each statement execute function tag_file_counts_of_tag_sets_deleted()`.execute(db)
  await sql`create trigger tag_file_counts_gone after delete on media_files referencing old table as old_parents
    for each statement execute function tag_file_counts_of_media_files_deleted()`.execute(db)
  // rows left by parents deleted before this migration (none while the foreign keys held) would count nothing
  await sql`delete from tag_file_counts k where not exists (select 1 from media_files f where f.id = k.media_file_id)
    or not exists (select 1 from tag_sets s where s.id = k.tag_set_id)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger tag_file_counts_gone on tag_sets`.execute(db)
  await sql`drop trigger tag_file_counts_gone on media_files`.execute(db)
  await sql`drop function tag_file_counts_of_tag_sets_deleted()`.execute(db)
  await sql`drop function tag_file_counts_of_media_files_deleted()`.execute(db)
  await sql`alter table tag_file_counts add constraint tag_file_counts_tag_set_id_fkey
    foreign key (tag_set_id) references tag_sets (id) on delete cascade`.execute(db)
  await sql`alter table tag_file_counts add constraint tag_file_counts_media_file_id_fkey
    foreign key (media_file_id) references media_files (id) on delete cascade`.execute(db)
}
