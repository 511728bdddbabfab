import { sql, type Kysely } from 'kysely'

// An exact number of tags per tag set, so a page of a large tag set needs no
// count(*) over it. Every statement that adds, removes or moves tags appends
// one row per tag set it changed (+n / -n), in its own transaction, from
// statement-level triggers: concurrent writers never wait on a shared counter
// row, and the count is the sum of a tag set's rows (compacted now and then
// by server/resources/tagSetCount.ts). Rows of a deleted tag set go with it.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tag_set_tag_counts')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('tag_set_id', 'integer', (c) => c.notNull().references('tag_sets.id').onDelete('cascade'))
    .addColumn('delta', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('tag_set_tag_counts_tag_set_id_idx')
    .on('tag_set_tag_counts')
    .columns(['tag_set_id', 'id'])
    .execute()

  // a tag set being deleted takes its tags along (cascade): it gets no rows, its own go with it
  await sql`create function tag_set_counts_inserted() returns trigger language plpgsql as $$
    begin
      insert into tag_set_tag_counts (tag_set_id, delta)
        select n.tag_set_id, count(*) from new_tags n group by n.tag_set_id;
      return null;
    end $$`.execute(db)
  await sql`create function tag_set_counts_deleted() returns trigger language plpgsql as $$
    begin
      insert into tag_set_tag_counts (tag_set_id, delta)
        select o.tag_set_id, -count(*) from old_tags o
        where exists (select 1 from tag_sets s where s.id = o.tag_set_id)
        group by o.tag_set_id;
      return null;
    end $$`.execute(db)
  await sql`create function tag_set_counts_moved() returns trigger language plpgsql as $$
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
  await sql`create trigger tags_counted_insert after insert on tags
    referencing new table as new_tags for each statement execute function tag_set_counts_inserted()`.execute(db)
  await sql`create trigger tags_counted_delete after delete on tags
    referencing old table as old_tags for each statement execute function tag_set_counts_deleted()`.execute(db)
  await sql`create trigger tags_counted_update after update on tags
    referencing old table as old_tags new table as new_tags for each statement execute function tag_set_counts_moved()`.execute(
    db,
  )

  await sql`insert into tag_set_tag_counts (tag_set_id, delta) select tag_set_id, count(*) from tags group by tag_set_id`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['insert', 'delete', 'update'])
    await sql`drop trigger ${sql.raw(`tags_counted_${t}`)} on tags`.execute(db)
  for (const f of ['inserted', 'deleted', 'moved'])
    await sql`drop function ${sql.raw(`tag_set_counts_${f}`)}()`.execute(db)
  await db.schema.dropTable('tag_set_tag_counts').execute()
}
