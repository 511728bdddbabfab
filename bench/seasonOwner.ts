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
