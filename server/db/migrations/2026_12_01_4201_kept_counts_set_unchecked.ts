import { sql, type Kysely } from 'kysely'
import { parentsDeleted } from './2026_11_29_3501_tag_file_counts_unchecked.js'

// The kept counts' rows without the checks a tag's create paid for again (docs/decisions.md, "Writes that cost
// what one insert costs"). Every statement that creates tags appends one row to each of four kept-count tables
// (migrations 2026_11_27_3501, 2026_11_28_3401). Three of them kept a foreign key to the tag set, and two a
// primary key on an id nothing reads: a foreign key's row trigger ran a locking lookup of the tag set the
// tags' own trigger had just locked (tag_parents_locked), and the primary keys were an index to write each.
// Measured on the embedded database, a two-tag create statement cost 0.26 ms with the triggers against 0.06 ms
// without, and these checks and indexes were a fifth of the triggers' part (BENCHMARKS.md).
//
// Every row is still written by the tags' own triggers after the parents were locked, or by a fold that locks
// the tag set (server/db/keptDeltas.ts, `parents`). What the foreign keys still did, removing a deleted tag
// set's rows, is done by one statement trigger on tag_sets for all four tables, after the tags of the set are
// deleted (the triggers of one event fire in the order of their names): a tag deleted by another transaction
// meanwhile has committed its own row by then, so it goes too. It replaces the trigger of 2026_11_29_3501 that
// did this for tag_file_counts alone, before the tags. tag_set_tag_counts keeps its id, the version of a tag
// set's pages (server/resources/tagSetCount.ts), and the class foreign keys stay (until 2026_12_01_4202): a fold of
// a tag set's band rows wrote a row for each class without locking them.

const KEPT = ['tag_set_tag_counts', 'tag_class_counts', 'tag_file_counts', 'tag_band_counts'] as const
const SET_CHECKED = ['tag_set_tag_counts', 'tag_class_counts', 'tag_band_counts'] as const
const UNREAD_IDS = ['tag_class_counts', 'tag_file_counts', 'tag_band_counts'] as const

/** A statement trigger `<parents>_emptied_counts` (and its function `kept_counts_of_<parents>_deleted`) that deletes
 * the rows of `tables` whose `column` names a deleted record of `parents`. By its name it runs after the parent's
 * other delete triggers, among them the one that deletes its tags. */
export async function keptRowsGoWith(
  db: Kysely<any>,
  parents: 'tag_sets' | 'tag_classes',
  column: 'tag_set_id' | 'tag_class_id',
  tables: readonly string[],
): Promise<void> {
  const fn = sql.id(`kept_counts_of_${parents}_deleted`)
  await sql`create function ${fn}() returns trigger language plpgsql as $$
    begin
      ${sql.join(
        tables.map(
          (t) => sql`delete from ${sql.table(t)} k where k.${sql.id(column)} in (select o.id from old_parents o);`,
        ),
        sql` `,
      )}
      return null;
    end$$`.execute(db)
  await sql`create trigger ${sql.id(`${parents}_emptied_counts`)} after delete on ${sql.table(parents)}
    referencing old table as old_parents for each statement execute function ${fn}()`.execute(db)
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of SET_CHECKED)
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_tag_set_id_fkey`)}`.execute(db)
  for (const table of UNREAD_IDS)
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_pkey`)}`.execute(db)
  await sql`drop trigger tag_file_counts_gone on tag_sets`.execute(db)
  await sql`drop function tag_file_counts_of_tag_sets_deleted()`.execute(db)
  await keptRowsGoWith(db, 'tag_sets', 'tag_set_id', KEPT)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger tag_sets_emptied_counts on tag_sets`.execute(db)
  await sql`drop function kept_counts_of_tag_sets_deleted()`.execute(db)
  await sql`create function tag_file_counts_of_tag_sets_deleted() returns trigger language plpgsql as $$${parentsDeleted('tag_set_id')}$$`.execute(
    db,
  )
  await sql`create trigger tag_file_counts_gone after delete on tag_sets referencing old table as old_parents
    for each statement execute function tag_file_counts_of_tag_sets_deleted()`.execute(db)
  for (const table of UNREAD_IDS) await sql`alter table ${sql.table(table)} add primary key (id)`.execute(db)
  for (const table of SET_CHECKED) {
    await sql`delete from ${sql.table(table)} k where not exists (select 1 from tag_sets s where s.id = k.tag_set_id)`.execute(
      db,
    )
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_tag_set_id_fkey`)}
      foreign key (tag_set_id) references tag_sets (id) on delete cascade`.execute(db)
  }
}
