import { sql } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Database } from '../../../server/db/database.js'
import { testDatabase } from '../../helpers/db.js'

// COPY … TO STDOUT through a connection of the pool (server/db/copyOut.ts): its bytes as PostgreSQL wrote them, a
// statement with parameters refused before any is sent, and a connection given back whether the COPY ended or
// failed, so that failures never use the pool up.

let database: Database

test.before(async () => {
  database = await testDatabase()
})
test.after(async () => {
  await database?.close()
})

const text = (pieces: Buffer[]) => Buffer.concat(pieces).toString('utf8')

test("a COPY's lines are the bytes PostgreSQL writes: a JSON text a line, unquoted, in any script", async () => {
  const lines = sql`select json_build_object('n', n, 'note', ${sql.lit('a "quoted", \\ note\n\u0001 鳥')})::text
    from generate_series(1, 3) as n order by n`
  const pieces = await database.copyOut(
    sql`copy (${lines}) to stdout (format csv, delimiter e'\\x02', quote e'\\x01')`.compile(database.db),
  )
  const expected = [1, 2, 3].map((n) => `{"n" : ${n}, "note" : "a \\"quoted\\", \\\\ note\\n\\u0001 鳥"}\n`).join('')
  assert.is(text(pieces), expected)
  assert.equal(
    text(pieces)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).note),
    Array(3).fill('a "quoted", \\ note\n\u0001 鳥'),
  )
})

test('a COPY with parameters is refused before it is sent', async () => {
  const sent = database.statements.sent
  const withParameter = sql`copy (select ${1}::int) to stdout`.compile(database.db)
  await database.copyOut(withParameter).then(
    () => assert.unreachable('a statement with a parameter was run'),
    (e: Error) => assert.match(e.message, /takes no parameters/),
  )
  assert.is(database.statements.sent, sent)
})

test('COPYs that fail give their connections back: more failures than the pool has connections, then one that works', async () => {
  const failing = sql`copy (select 1 / (n - 50) from generate_series(1, 100) as n) to stdout`.compile(database.db)
  for (let i = 0; i < 25; i++)
    await database.copyOut(failing).then(
      () => assert.unreachable('a division by zero was copied'),
      (e: Error) => assert.match(e.message, /division by zero/),
    )
  const pieces = await database.copyOut(sql`copy (select 7) to stdout`.compile(database.db))
  assert.is(text(pieces), '7\n')
  assert.equal((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows, [{ one: 1 }])
})

test.run()
