import { sql, type Transaction } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Database } from '../../../server/db/database.js'
import type { DB } from '../../../server/db/schema.js'
import { PREPARED_PER_CONNECTION } from '../../../server/db/prepared.js'
import { testDatabase } from '../../helpers/db.js'

// Parameterised statements run as named prepared statements, a bounded number per connection
// (server/db/prepared.ts); a transaction keeps to one connection, whose prepared statements
// pg_prepared_statements lists.

let database: Database

test.before(async () => {
  database = await testDatabase()
})
test.after(async () => {
  await database?.close()
})

const preparedNames = async (trx: Transaction<DB>) =>
  (await sql<{ name: string }>`select name from pg_prepared_statements where name like 'mas\_%'`.execute(trx)).rows.map(
    (r) => r.name,
  )

test('a parameterised statement is prepared once per connection, under one name, and answers as before', async () => {
  await database.db.transaction().execute(async (trx) => {
    const before = await preparedNames(trx)
    const first = await trx.selectFrom('users').select('id').where('id', '=', -1).execute()
    const second = await trx.selectFrom('users').select('id').where('id', '=', -2).execute()
    assert.equal([first, second], [[], []])
    const added = (await preparedNames(trx)).filter((n) => !before.includes(n))
    assert.is(added.length, 1, 'one prepared statement for one SQL text')
    // unparameterised SQL is not prepared
    await sql`select 1 as one`.execute(trx)
    assert.is((await preparedNames(trx)).length, before.length + 1)
  })
})

test('a connection keeps at most PREPARED_PER_CONNECTION statements; further texts still run', async () => {
  await database.db.transaction().execute(async (trx) => {
    for (let i = 0; i < PREPARED_PER_CONNECTION + 5; i++) {
      const r = await sql<{ v: number }>`select ${i}::int as ${sql.ref(`v${i}`)}`.execute(trx)
      assert.equal(r.rows[0], { [`v${i}`]: i })
    }
    assert.is((await preparedNames(trx)).length, PREPARED_PER_CONNECTION)
  })
})

test.run()
