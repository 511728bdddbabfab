import { sql } from 'kysely'
import type { Database } from '../server/db/database.js'

// The owner of a benchmark's season and their library, written straight into the database (the benchmarks that
// seed at scale do so with statements, not requests).

export interface SeasonOwner {
  user: { id: number }
  library: { id: number }
}

/** A user named `username` and their library "season", created at `now`. */
export async function seasonOwner(db: Database['db'], username: string, now: string): Promise<SeasonOwner> {
  const user = await db
    .insertInto('users')
    .values({ username, password: 'x', date_joined: now })
    .returning('id')
    .executeTakeFirstOrThrow()
  const library = await db
    .insertInto('libraries')
    .values({ user_id: user.id, name: 'season', creation_date: now })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { user, library }
}

/** `count` recordings in the owner's library, f0.wav … (aliases site/f0.wav …), uploaded at `now`; their ids. */
export async function seasonRecordings(
  db: Database['db'],
  owner: SeasonOwner,
  count: number,
  now: string,
): Promise<Array<{ id: number }>> {
  return db
    .insertInto('media_files')
    .columns(['file', 'alias', 'user_id', 'library_id', 'type_id', 'upload_date'])
    .expression(
      db
        .selectFrom(sql<{ g: number }>`generate_series(0, ${count - 1})`.as('g'))
        .select([
          sql<string>`'f' || g || '.wav'`.as('file'),
          sql<string>`'site/f' || g || '.wav'`.as('alias'),
          sql<number>`${owner.user.id}::integer`.as('user_id'),
          sql<number>`${owner.library.id}::integer`.as('library_id'),
          sql<number>`1`.as('type_id'),
          sql<string>`${now}::timestamp`.as('upload_date'),
        ]),
    )
    .returning('id')
    .execute()
}
