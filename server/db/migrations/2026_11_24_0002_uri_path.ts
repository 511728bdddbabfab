import { sql, type Kysely } from 'kysely'

// mas_uri_path(path): a stored file's relative name as it appears in its address under /media/, each
// '/'-separated segment escaped as JavaScript's encodeURIComponent escapes it (UTF-8 bytes of every other
// character as %XX, upper-case). Lists written by the database give media files' `url` with it, the same
// address the server's mediaUrl gives a single record (docs/decisions.md §11).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function mas_uri_escape(path text) returns text language sql immutable strict parallel safe as $$
      select coalesce(string_agg(case when ch ~ '^[A-Za-z0-9_.!~*''()/-]$' then ch
        else regexp_replace(upper(encode(convert_to(ch, 'UTF8'), 'hex')), '(..)', '%\\1', 'g') end, '' order by n), '')
      from regexp_split_to_table(path, '') with ordinality as c(ch, n)
    $$`.execute(db)
  // a plain expression (not strict), which the planner inlines: most names need no escaping and cost one match
  await sql`
    create function mas_uri_path(path text) returns text language sql immutable parallel safe as $$
      select case when path ~ '^[A-Za-z0-9_.!~*''()/-]*$' then path else mas_uri_escape(path) end
    $$`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function mas_uri_path(text)`.execute(db)
  await sql`drop function mas_uri_escape(text)`.execute(db)
}
