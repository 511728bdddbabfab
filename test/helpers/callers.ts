import { sql, type SqlBool } from 'kysely'
import type { Caller, Scope } from '../../server/access.js'
import type { Database } from '../../server/db/database.js'
import { localTimestamp } from '../../server/db/time.js'
import { defineResource, type ResourceDef } from '../../server/resources/resource.js'
import { testDatabase } from './db.js'

// For the tests of statements compiled once per shape (server/resources/fast/statements.ts): a database
// with two users, and access rules that use more of the caller than its id, which must never be cached
// across callers.

export interface TwoCallers {
  database: Database
  alice: Caller
  bob: Caller
}

/** A fresh database with the users alice and bob, as callers; close `database` when done. */
export async function twoCallers(): Promise<TwoCallers> {
  const database = await testDatabase()
  const make = async (username: string): Promise<Caller> => {
    const row = await database.db
      .insertInto('users')
      .values({ username, password: '-', date_joined: localTimestamp() })
      .returning('id')
      .executeTakeFirstOrThrow()
    return { id: row.id, username, isAdmin: false }
  }
  return { database, alice: await make('alice'), bob: await make('bob') }
}

/** a user may be read only by itself, by username */
export const usernameRule: Scope = {
  columns: ['username'],
  allows: (eb, caller, col) => eb(col('username'), '=', caller.username),
}

/** a user may be read only by itself, with the caller's id written into the SQL text */
export const inlinedIdRule: Scope = {
  columns: ['id'],
  allows: (_eb, caller, col) => sql<SqlBool>`${col('id')} = ${sql.lit(caller.id)}`,
}

/** users as a resource whose rule is `scope` */
export const usersUnder = (name: string, scope: Scope): ResourceDef<'users'> =>
  defineResource({
    name,
    title: name,
    table: 'users',
    scope,
    fields: { id: { type: 'integer', column: 'id', readOnly: true } },
  })
