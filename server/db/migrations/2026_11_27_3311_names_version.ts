import { sql, type Kysely } from 'kysely'

// The names version (docs/decisions.md, "Fast per command"): one counter, raised in the transaction that
// renames or deletes a record a client may know by name (a library, tag set, tag class, media file,
// project, user, group, sensor or sensor array), or moves one to another library. A client that
// remembers names sends the version it learned them at, and is refused (412) once it has moved on.

const NAMED: [table: string, columns: string[]][] = [
  ['libraries', ['name']],
  ['tag_sets', ['name', 'library_id']],
  ['tag_classes', ['class_name', 'library_id']],
  ['media_files', ['alias', 'library_id']],
  ['projects', ['name']],
  ['users', ['username']],
  ['app_user_groups', ['name']],
  ['sensors', ['name']],
  ['sensor_arrays', ['name']],
]

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table names_version (
    one boolean primary key default true check (one),
    version bigint not null default 1
  )`.execute(db)
  await sql`insert into names_version default values`.execute(db)
  await sql`create function names_changed() returns trigger language plpgsql as $$
    begin
      update names_version set version = version + 1;
      return null;
    end $$`.execute(db)
  for (const [table, columns] of NAMED) {
    // a row whose name (or library) really changed; every delete statement
    const changed = columns.map((c) => `old.${c} is distinct from new.${c}`).join(' or ')
    await sql
      .raw(
        `create trigger ${table}_renamed after update of ${columns.join(', ')} on ${table}
      for each row when (${changed}) execute function names_changed()`,
      )
      .execute(db)
    await sql
      .raw(
        `create trigger ${table}_deleted after delete on ${table}
      for each statement execute function names_changed()`,
      )
      .execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table] of NAMED) {
    await sql.raw(`drop trigger ${table}_renamed on ${table}`).execute(db)
    await sql.raw(`drop trigger ${table}_deleted on ${table}`).execute(db)
  }
  await sql`drop function names_changed()`.execute(db)
  await sql`drop table names_version`.execute(db)
}
