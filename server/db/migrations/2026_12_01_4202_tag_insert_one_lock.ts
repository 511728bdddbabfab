import { sql, type Kysely } from 'kysely'
import { countsInserted, inserted as insertedByKind } from './2026_11_27_3501_tag_filter_counts.js'
import { keptRowsGoWith } from './2026_12_01_4201_kept_counts_set_unchecked.js'

// A create's parents locked in one statement, and the kept counts without their foreign keys to the class
// (docs/decisions.md, "Writes that cost what one insert costs"; BENCHMARKS.md has the figures).
//
// The tags' insert trigger gathered each kind of parent's distinct ids into an array (four DISTINCT
// aggregates, each a sort to set up) and handed them to tag_parents_locked, which locked each kind and
// compared counts: 0.12 ms of a two-tag create statement's 0.29, more than the insert of the tags. Now one
// statement locks every parent (FOR KEY SHARE, as a foreign key's check does) and finds a new tag any of whose
// parents it did not lock: a parent deleted and committed before is not there to lock, and a deletion under
// way holds its row until it ends, so the lock waits and then finds nothing. tag_parents_locked stays for the
// update trigger, which is rarer.
//
// tag_class_counts and tag_band_counts kept a foreign key to the class, each a locking lookup of the class the
// statement had just locked. Their rows are written by the tags' triggers after that lock, or by a fold that
// locks the classes it writes rows for (server/db/keptDeltas.ts, `parents`). A deleted
// class's rows are removed by a statement trigger on tag_classes after its tags are, as 2026_12_01_4201 does
// for a tag set.

const CLASS_CHECKED = ['tag_class_counts', 'tag_band_counts'] as const

const lockedOnce = sql`
    begin
      if (with users_locked as (select p.id from users p where p.id in (select n.user_id from new_tags n)
            for key share of p),
          classes_locked as (select p.id from tag_classes p where p.id in (select n.tag_class_id from new_tags n)
            for key share of p),
          sets_locked as (select p.id from tag_sets p where p.id in (select n.tag_set_id from new_tags n)
            for key share of p),
          files_locked as (select p.id from media_files p where p.id in (select n.media_file_id from new_tags n)
            for key share of p)
        select exists (select from new_tags n where n.user_id not in (select l.id from users_locked l)
          or n.tag_class_id not in (select l.id from classes_locked l)
          or n.tag_set_id not in (select l.id from sets_locked l)
          or n.media_file_id not in (select l.id from files_locked l))) then
        raise exception using errcode = 'foreign_key_violation',
          message = 'a tag refers to a user, tag class, tag set or media file that does not exist';
      end if;${countsInserted}
    end`

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create or replace function tags_inserted() returns trigger language plpgsql as $$${lockedOnce}$$`.execute(
    db,
  )
  for (const table of CLASS_CHECKED)
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_tag_class_id_fkey`)}`.execute(db)
  await keptRowsGoWith(db, 'tag_classes', 'tag_class_id', CLASS_CHECKED)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger tag_classes_emptied_counts on tag_classes`.execute(db)
  await sql`drop function kept_counts_of_tag_classes_deleted()`.execute(db)
  for (const table of CLASS_CHECKED) {
    await sql`delete from ${sql.table(table)} k where not exists (select 1 from tag_classes c where c.id = k.tag_class_id)`.execute(
      db,
    )
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_tag_class_id_fkey`)}
      foreign key (tag_class_id) references tag_classes (id) on delete cascade`.execute(db)
  }
  await sql`create or replace function tags_inserted() returns trigger language plpgsql as $$${insertedByKind}$$`.execute(
    db,
  )
}
