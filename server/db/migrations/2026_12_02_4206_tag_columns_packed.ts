import { sql, type Kysely, type RawBuilder } from 'kysely'

// The tags' columns in an order that wastes no alignment (docs/decisions.md §43). PostgreSQL lays a row's columns
// out in their order, each at a multiple of its width: after the ids and the timestamp, the five integers left 4
// bytes before start_time, and the three flags 5 before strength, 80 bytes of values where 71 are used. The
// recording's id and the flags move behind strength, where the int pairs up with the flags: 72 bytes, a row of
// 104 with its header instead of 112, 70 → 75 rows a page.
//
// A column cannot be moved in place. Each is added again at the end and filled in the same table rewrite that
// empties the old one (an ALTER … TYPE with USING computes every new value from the old row, fires no trigger and
// leaves no dead row behind); the empty old columns are then dropped, which costs nothing, and the new ones take
// their names, constraints and defaults. The two indexes over the moved columns go with them and are made again
// as they were (migrations 2026_11_29_3502 and 2026_12_02_4204).

const MOVED = [
  { column: 'media_file_id', type: sql`integer`, default: null },
  { column: 'randomly_chosen', type: sql`boolean`, default: sql`false` },
  { column: 'machine_tagged', type: sql`boolean`, default: sql`false` },
  { column: 'user_tagged', type: sql`boolean`, default: sql`false` },
] as const

const moving = (column: string) => `${column}_moving`

export async function up(db: Kysely<any>): Promise<void> {
  const alterTags = (actions: RawBuilder<unknown>[]) => sql`alter table tags ${sql.join(actions)}`.execute(db)
  await alterTags(
    MOVED.flatMap((m) => [
      sql`add column ${sql.id(moving(m.column))} ${m.type}`,
      sql`alter column ${sql.id(m.column)} drop not null`,
    ]),
  )
  await alterTags(
    MOVED.flatMap((m) => [
      sql`alter column ${sql.id(moving(m.column))} type ${m.type} using ${sql.id(m.column)}`,
      sql`alter column ${sql.id(m.column)} type ${m.type} using null`,
    ]),
  )
  await alterTags(MOVED.map((m) => sql`drop column ${sql.id(m.column)}`))
  for (const m of MOVED) {
    await sql`alter table tags rename column ${sql.id(moving(m.column))} to ${sql.id(m.column)}`.execute(db)
  }
  await alterTags(
    MOVED.flatMap((m) => [
      sql`alter column ${sql.id(m.column)} set not null`,
      ...(m.default ? [sql`alter column ${sql.id(m.column)} set default ${m.default}`] : []),
    ]),
  )

  await db.schema
    .createIndex('tags_media_file_id_tag_class_id_start_time_idx')
    .on('tags')
    .columns(['media_file_id', 'tag_class_id', 'start_time'])
    .execute()
  await sql`create index tags_tag_set_id_id_not_machine_idx on tags (tag_set_id, id) with (fillfactor = 100)
    where machine_tagged = false`.execute(db)
  // the moved columns' statistics went with the old ones; plans of ?mediaFile= need them before autovacuum comes
  await sql`analyze tags`.execute(db)
}

// The columns, their types, constraints, defaults and indexes are what they were before; only their order in a
// row differs, which nothing reads.
export async function down(): Promise<void> {}
