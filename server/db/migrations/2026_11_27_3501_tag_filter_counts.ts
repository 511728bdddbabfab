import { sql, type Kysely } from 'kysely'

// Kept counts of a tag set's tags per tag class and per media file, beside the per-tag-set rows of migration
// 2026_11_22_0003, and the machine- and user-tagged among them in those rows (machine_delta, user_delta), so
// `tag/?tagSet=&tagClass=`, `?tagSet=&mediaFile=`, `?tagSet=&machineTagged=`, `?tagSet=&userTagged=` and
// `?mediaFile=` count without a scan (docs/decisions.md, "Lists at scale"). They are kept the same way: every statement that adds, removes
// or moves tags appends one row per (tag set, class) and (tag set, media file) it changed, from the same
// statement-level triggers, and reads fold them (server/resources/tagSetCount.ts).
//
// An UPDATE of tags now also appends a row (delta 0 when no tag left the set) to tag_set_tag_counts for every
// tag set whose tags it changed: those rows are the version of the set's id lists (server/resources/tagSetPages.ts),
// and a filtered list (by class, media file, machineTagged…) changes when a tag of the set changes.
//
// Rows of a deleted tag set, class or media file go with it (cascade); the delete and update triggers append
// none for them.

/** the insert trigger's kept counts, one row a tag set, class and media file of the new tags (migration
 * 2026_12_01_4202's trigger appends them too) */
export const countsInserted = sql`
      insert into tag_set_tag_counts (tag_set_id, delta, machine_delta, user_delta)
        select n.tag_set_id, count(*), count(*) filter (where n.machine_tagged), count(*) filter (where n.user_tagged)
        from new_tags n group by n.tag_set_id;
      insert into tag_class_counts (tag_set_id, tag_class_id, delta)
        select n.tag_set_id, n.tag_class_id, count(*) from new_tags n group by n.tag_set_id, n.tag_class_id;
      insert into tag_file_counts (tag_set_id, media_file_id, delta)
        select n.tag_set_id, n.media_file_id, count(*) from new_tags n group by n.tag_set_id, n.media_file_id;
      return null;`

/** the insert trigger's body this migration made (migration 2026_12_01_4202 goes back to it) */
export const inserted = sql`
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
      perform tag_parents_locked(user_ids, tag_class_ids, tag_set_ids, media_file_ids);${countsInserted}
    end`

const deleted = sql`
    begin
      insert into tag_set_tag_counts (tag_set_id, delta, machine_delta, user_delta)
        select g.tag_set_id, g.delta, g.machine, g.human from (select o.tag_set_id, -count(*) as delta,
            -count(*) filter (where o.machine_tagged) as machine, -count(*) filter (where o.user_tagged) as human
          from old_tags o group by o.tag_set_id) g
        where exists (select 1 from tag_sets s where s.id = g.tag_set_id);
      insert into tag_class_counts (tag_set_id, tag_class_id, delta)
        select g.tag_set_id, g.tag_class_id, g.delta
        from (select o.tag_set_id, o.tag_class_id, -count(*) as delta from old_tags o group by o.tag_set_id, o.tag_class_id) g
        where exists (select 1 from tag_sets s where s.id = g.tag_set_id) and exists (select 1 from tag_classes c where c.id = g.tag_class_id);
      insert into tag_file_counts (tag_set_id, media_file_id, delta)
        select g.tag_set_id, g.media_file_id, g.delta
        from (select o.tag_set_id, o.media_file_id, -count(*) as delta from old_tags o group by o.tag_set_id, o.media_file_id) g
        where exists (select 1 from tag_sets s where s.id = g.tag_set_id) and exists (select 1 from media_files f where f.id = g.media_file_id);
      return null;
    end`

const moved = sql`
    begin
      -- every set whose tags changed: +1 for a tag that came in, -1 for one that left, 0 otherwise; the same
      -- for its machine- and user-tagged tags, which also change when a tag's flag does
      insert into tag_set_tag_counts (tag_set_id, delta, machine_delta, user_delta)
        select g.tag_set_id, g.delta, g.machine, g.human from (
          select m.tag_set_id, sum(m.delta) as delta, sum(m.machine) as machine, sum(m.human) as human from (
            select n.tag_set_id, case when o.tag_set_id <> n.tag_set_id then 1 else 0 end as delta,
                n.machine_tagged::integer - case when o.tag_set_id <> n.tag_set_id then 0 else o.machine_tagged::integer end as machine,
                n.user_tagged::integer - case when o.tag_set_id <> n.tag_set_id then 0 else o.user_tagged::integer end as human
              from new_tags n join old_tags o on o.id = n.id
            union all
            select o.tag_set_id, -1, -o.machine_tagged::integer, -o.user_tagged::integer
              from new_tags n join old_tags o on o.id = n.id where o.tag_set_id <> n.tag_set_id
          ) m group by m.tag_set_id) g
        where exists (select 1 from tag_sets s where s.id = g.tag_set_id);
      insert into tag_class_counts (tag_set_id, tag_class_id, delta)
        select g.tag_set_id, g.tag_class_id, g.delta from (
          select m.tag_set_id, m.tag_class_id, sum(m.delta) as delta from (
            select n.tag_set_id, n.tag_class_id, 1 as delta from new_tags n join old_tags o on o.id = n.id
              where (o.tag_set_id, o.tag_class_id) <> (n.tag_set_id, n.tag_class_id)
            union all
            select o.tag_set_id, o.tag_class_id, -1 from new_tags n join old_tags o on o.id = n.id
              where (o.tag_set_id, o.tag_class_id) <> (n.tag_set_id, n.tag_class_id)
          ) m group by m.tag_set_id, m.tag_class_id having sum(m.delta) <> 0) g
        where exists (select 1 from tag_sets s where s.id = g.tag_set_id) and exists (select 1 from tag_classes c where c.id = g.tag_class_id);
      insert into tag_file_counts (tag_set_id, media_file_id, delta)
        select g.tag_set_id, g.media_file_id, g.delta from (
          select m.tag_set_id, m.media_file_id, sum(m.delta) as delta from (
            select n.tag_set_id, n.media_file_id, 1 as delta from new_tags n join old_tags o on o.id = n.id
              where (o.tag_set_id, o.media_file_id) <> (n.tag_set_id, n.media_file_id)
            union all
            select o.tag_set_id, o.media_file_id, -1 from new_tags n join old_tags o on o.id = n.id
              where (o.tag_set_id, o.media_file_id) <> (n.tag_set_id, n.media_file_id)
          ) m group by m.tag_set_id, m.media_file_id having sum(m.delta) <> 0) g
        where exists (select 1 from tag_sets s where s.id = g.tag_set_id) and exists (select 1 from media_files f where f.id = g.media_file_id);
      return null;
    end`

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tag_set_tag_counts')
    .addColumn('machine_delta', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema
    .alterTable('tag_set_tag_counts')
    .addColumn('user_delta', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema
    .createTable('tag_class_counts')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('tag_set_id', 'integer', (c) => c.notNull().references('tag_sets.id').onDelete('cascade'))
    .addColumn('tag_class_id', 'integer', (c) => c.notNull().references('tag_classes.id').onDelete('cascade'))
    .addColumn('delta', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('tag_class_counts_key_idx')
    .on('tag_class_counts')
    .columns(['tag_set_id', 'tag_class_id', 'id'])
    .execute()
  // the cascade from a deleted class
  await db.schema
    .createIndex('tag_class_counts_tag_class_id_idx')
    .on('tag_class_counts')
    .column('tag_class_id')
    .execute()
  await db.schema
    .createTable('tag_file_counts')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('tag_set_id', 'integer', (c) => c.notNull().references('tag_sets.id').onDelete('cascade'))
    .addColumn('media_file_id', 'integer', (c) => c.notNull().references('media_files.id').onDelete('cascade'))
    .addColumn('delta', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('tag_file_counts_key_idx')
    .on('tag_file_counts')
    .columns(['tag_set_id', 'media_file_id', 'id'])
    .execute()
  // ?mediaFile= (over every tag set) and the cascade from a deleted media file
  await db.schema
    .createIndex('tag_file_counts_media_file_id_idx')
    .on('tag_file_counts')
    .columns(['media_file_id', 'tag_set_id'])
    .execute()

  await sql`create or replace function tags_inserted() returns trigger language plpgsql as $$${inserted}$$`.execute(db)
  await sql`create or replace function tag_set_counts_deleted() returns trigger language plpgsql as $$${deleted}$$`.execute(
    db,
  )
  await sql`create or replace function tag_set_counts_moved() returns trigger language plpgsql as $$${moved}$$`.execute(
    db,
  )

  await sql`insert into tag_set_tag_counts (tag_set_id, delta, machine_delta, user_delta)
    select tag_set_id, 0, count(*) filter (where machine_tagged), count(*) filter (where user_tagged) from tags group by tag_set_id`.execute(
    db,
  )
  await sql`insert into tag_class_counts (tag_set_id, tag_class_id, delta)
    select tag_set_id, tag_class_id, count(*) from tags group by tag_set_id, tag_class_id`.execute(db)
  await sql`insert into tag_file_counts (tag_set_id, media_file_id, delta)
    select tag_set_id, media_file_id, count(*) from tags group by tag_set_id, media_file_id`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create or replace function tags_inserted() returns trigger language plpgsql as $$
    declare
      user_ids integer[]; tag_class_ids integer[]; tag_set_ids integer[]; media_file_ids integer[];
    begin
      select array_agg(distinct n.user_id), array_agg(distinct n.tag_class_id), array_agg(distinct n.tag_set_id),
          array_agg(distinct n.media_file_id)
        into user_ids, tag_class_ids, tag_set_ids, media_file_ids from new_tags n;
      if user_ids is null then
        return null;
      end if;
      perform tag_parents_locked(user_ids, tag_class_ids, tag_set_ids, media_file_ids);
      insert into tag_set_tag_counts (tag_set_id, delta)
        select n.tag_set_id, count(*) from new_tags n group by n.tag_set_id;
      return null;
    end $$`.execute(db)
  await sql`create or replace function tag_set_counts_deleted() returns trigger language plpgsql as $$
    begin
      insert into tag_set_tag_counts (tag_set_id, delta)
        select o.tag_set_id, -count(*) from old_tags o
        where exists (select 1 from tag_sets s where s.id = o.tag_set_id)
        group by o.tag_set_id;
      return null;
    end $$`.execute(db)
  await sql`create or replace function tag_set_counts_moved() returns trigger language plpgsql as $$
    begin
      insert into tag_set_tag_counts (tag_set_id, delta)
        select moved.tag_set_id, sum(moved.delta) from (
          select n.tag_set_id, 1 as delta from new_tags n join old_tags o on o.id = n.id where o.tag_set_id <> n.tag_set_id
          union all
          select o.tag_set_id, -1 from new_tags n join old_tags o on o.id = n.id where o.tag_set_id <> n.tag_set_id
        ) moved
        where exists (select 1 from tag_sets s where s.id = moved.tag_set_id)
        group by moved.tag_set_id;
      return null;
    end $$`.execute(db)
  await db.schema.dropTable('tag_file_counts').execute()
  await db.schema.dropTable('tag_class_counts').execute()
  await db.schema.alterTable('tag_set_tag_counts').dropColumn('machine_delta').execute()
  await db.schema.alterTable('tag_set_tag_counts').dropColumn('user_delta').execute()
}
