import { sql, type Kysely } from 'kysely'

// Kept counts of a tag set's tags per class and strength band, for the review summary (docs/decisions.md §19),
// kept as the counts of migration 2026_11_27_3501 are: every statement that adds, removes or moves tags appends
// one row per (tag set, class, band) it changed, from statement-level triggers of their own, and reads sum the
// rows of a set and fold them now and then (server/analysis/bandCounts.ts).
//
// A band is tag_strength_band(strength), the one definition the summary uses too: [0, 0.1), [0.1, 0.2) …
// [0.9, 1], a strength below 0 in the first and from 1 up in the last (strength is never null).
//
// An update appends rows only for tags whose set, class or band changed: +1 for where each tag is now, -1 for
// where it was, summed, those that cancel left out. Rows of a deleted tag set or class go with it (cascade); the
// delete and update triggers append none for them. The triggers are named to run after the tags' other
// statement triggers, so a reference the reference check refuses is refused by it first.

const inserted = sql`
    begin
      insert into tag_band_counts (tag_set_id, tag_class_id, band, delta)
        select n.tag_set_id, n.tag_class_id, tag_strength_band(n.strength), count(*) from new_tags n group by 1, 2, 3;
      return null;
    end`

const deleted = sql`
    begin
      insert into tag_band_counts (tag_set_id, tag_class_id, band, delta)
        select g.tag_set_id, g.tag_class_id, g.band, g.delta from (
          select o.tag_set_id, o.tag_class_id, tag_strength_band(o.strength) as band, -count(*) as delta from old_tags o group by 1, 2, 3) g
        where exists (select 1 from tag_sets s where s.id = g.tag_set_id) and exists (select 1 from tag_classes c where c.id = g.tag_class_id);
      return null;
    end`

const moved = sql`
    begin
      insert into tag_band_counts (tag_set_id, tag_class_id, band, delta)
        select g.tag_set_id, g.tag_class_id, g.band, g.delta from (
          select m.tag_set_id, m.tag_class_id, m.band, sum(m.delta) as delta from (
            select n.tag_set_id, n.tag_class_id, tag_strength_band(n.strength) as band, 1 as delta from new_tags n
            union all
            select o.tag_set_id, o.tag_class_id, tag_strength_band(o.strength), -1 from old_tags o
          ) m group by 1, 2, 3 having sum(m.delta) <> 0) g
        where exists (select 1 from tag_sets s where s.id = g.tag_set_id) and exists (select 1 from tag_classes c where c.id = g.tag_class_id);
      return null;
    end`

export async function up(db: Kysely<any>): Promise<void> {
  // ten bands (BANDS of server/analysis/reviews.ts); an SQL function of one expression, inlined where it is used.
  // The strength is brought into [0, 1] before it is multiplied: times 10, a strength near the largest double
  // would overflow, an error in PostgreSQL, not an infinity.
  await sql`create function tag_strength_band(strength double precision) returns smallint
    language sql immutable parallel safe as $$ select least(floor(least(greatest(strength, 0), 1) * 10), 9)::smallint $$`.execute(
    db,
  )
  await db.schema
    .createTable('tag_band_counts')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('tag_set_id', 'integer', (c) => c.notNull().references('tag_sets.id').onDelete('cascade'))
    .addColumn('tag_class_id', 'integer', (c) => c.notNull().references('tag_classes.id').onDelete('cascade'))
    .addColumn('band', 'smallint', (c) => c.notNull())
    .addColumn('delta', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('tag_band_counts_tag_set_id_idx').on('tag_band_counts').column('tag_set_id').execute()
  // the cascade from a deleted class
  await db.schema.createIndex('tag_band_counts_tag_class_id_idx').on('tag_band_counts').column('tag_class_id').execute()

  await sql`create function tag_band_counts_inserted() returns trigger language plpgsql as $$${inserted}$$`.execute(db)
  await sql`create function tag_band_counts_deleted() returns trigger language plpgsql as $$${deleted}$$`.execute(db)
  await sql`create function tag_band_counts_moved() returns trigger language plpgsql as $$${moved}$$`.execute(db)
  await sql`create trigger tags_strength_bands_insert after insert on tags
    referencing new table as new_tags for each statement execute function tag_band_counts_inserted()`.execute(db)
  await sql`create trigger tags_strength_bands_delete after delete on tags
    referencing old table as old_tags for each statement execute function tag_band_counts_deleted()`.execute(db)
  await sql`create trigger tags_strength_bands_update after update on tags
    referencing old table as old_tags new table as new_tags for each statement execute function tag_band_counts_moved()`.execute(
    db,
  )

  await sql`insert into tag_band_counts (tag_set_id, tag_class_id, band, delta)
    select tag_set_id, tag_class_id, tag_strength_band(strength), count(*) from tags group by 1, 2, 3`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['insert', 'delete', 'update'])
    await sql`drop trigger ${sql.raw(`tags_strength_bands_${t}`)} on tags`.execute(db)
  for (const f of ['inserted', 'deleted', 'moved'])
    await sql`drop function ${sql.raw(`tag_band_counts_${f}`)}()`.execute(db)
  await db.schema.dropTable('tag_band_counts').execute()
  await sql`drop function tag_strength_band(double precision)`.execute(db)
}
