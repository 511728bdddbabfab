import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { migrate, openDatabase, type Database } from '../../../server/db/database.js'
import { freshDatabase } from '../../helpers/db.js'

// Migrating a schema of a database that other schemas come and go in (servers of other tests, or other apps, sharing
// one PostgreSQL database): kysely's migrator reads the tables of every schema, and a schema dropped while it reads
// them made it fail with "schema … does not exist" naming that other schema (docs/decisions.md §38).

let fresh: Awaited<ReturnType<typeof freshDatabase>>
let admin: Database

test.before(async () => {
  fresh = await freshDatabase()
  admin = await openDatabase({ url: fresh.url, poolSize: 2 })
})
test.after(async () => {
  await admin?.close()
  await fresh?.drop()
})

const withSchema = (url: string, schema: string) =>
  `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`

test('a schema migrates while other schemas are created and dropped beside it', async () => {
  let churning = true
  let churned = 0
  const churn = (async () => {
    while (churning) {
      const other = `churn_${randomBytes(4).toString('hex')}`
      await sql`create schema ${sql.id(other)}`.execute(admin.db)
      await sql`create table ${sql.id(other)}.t (id serial primary key, v text)`.execute(admin.db)
      await sql`drop schema ${sql.id(other)} cascade`.execute(admin.db)
      churned++
    }
  })()
  try {
    for (let i = 0; i < 6; i++) {
      const schema = `mig_${randomBytes(4).toString('hex')}`
      await sql`create schema ${sql.id(schema)}`.execute(admin.db)
      const own = await openDatabase({ url: withSchema(fresh.url, schema), poolSize: 1 })
      try {
        await migrate(own.db)
        const tables = await sql<{ n: number }>`
          select count(*)::int as n from pg_tables where schemaname = ${schema}`.execute(own.db)
        assert.ok(tables.rows[0].n > 10, `only ${tables.rows[0].n} tables in ${schema}`)
      } finally {
        await own.close()
        await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db)
      }
    }
  } finally {
    churning = false
    await churn
  }
  assert.ok(churned > 10, `only ${churned} schemas came and went`)
})

test.run()
