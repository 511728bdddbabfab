import { sql, type Kysely } from 'kysely'

// Every server remembers callers for a few seconds (docs/architecture.md): a change to a user, a token or
// a session, however it is made (through any server, or straight in the database), is announced on the
// channel `mas_callers` with the user's id as payload, and every server drops what it remembers of that
// user. A TRUNCATE announces an empty payload: forget everyone.

const TABLES = [
  ['users', 'id'],
  ['tokens', 'user_id'],
  ['sessions', 'user_id'],
] as const

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function mas_notify_callers() returns trigger language plpgsql as $$
    begin
      if tg_op = 'TRUNCATE' then
        perform pg_notify('mas_callers', '');
      elsif tg_op = 'DELETE' then
        perform pg_notify('mas_callers', (to_jsonb(old) ->> tg_argv[0]));
      else
        perform pg_notify('mas_callers', (to_jsonb(new) ->> tg_argv[0]));
        if (to_jsonb(old) ->> tg_argv[0]) is distinct from (to_jsonb(new) ->> tg_argv[0]) then
          perform pg_notify('mas_callers', (to_jsonb(old) ->> tg_argv[0]));
        end if;
      end if;
      return null;
    end
    $$`.execute(db)
  for (const [table, column] of TABLES) {
    // a new row changes no remembered caller: only updates and deletes are announced
    await sql`create trigger ${sql.raw(`${table}_notify_callers`)} after update or delete on ${sql.table(table)}
      for each row execute function mas_notify_callers(${sql.lit(column)})`.execute(db)
    await sql`create trigger ${sql.raw(`${table}_truncate_notify_callers`)} after truncate on ${sql.table(table)}
      for each statement execute function mas_notify_callers(${sql.lit(column)})`.execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table] of TABLES) {
    await sql`drop trigger ${sql.raw(`${table}_notify_callers`)} on ${sql.table(table)}`.execute(db)
    await sql`drop trigger ${sql.raw(`${table}_truncate_notify_callers`)} on ${sql.table(table)}`.execute(db)
  }
  await sql`drop function mas_notify_callers()`.execute(db)
}
