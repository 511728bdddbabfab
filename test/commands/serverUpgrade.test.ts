import { sql } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openDatabase } from '../../server/db/database.js'
import * as tagUserSummaries from '../../server/db/migrations/2026_12_02_4207_tag_user_summaries.js'
import { freshDatabase } from '../helpers/db.js'
import { serverHome } from '../helpers/server.js'

// `mas server start` on the database of an earlier release: the start says it is upgrading the database before it
// migrates (a migration may rewrite a table of millions of rows and take minutes; docs/decisions.md §43) and how
// long it took; a new database, or one already up to date, starts without a word about it.

const LATEST = '2026_12_02_4207_tag_user_summaries'

test('server start: an upgraded database is announced, migrated, and the next start says nothing of it', async () => {
  const fresh = await freshDatabase()
  try {
    // the database as the release before the last migration left it
    const earlier = await openDatabase({ url: fresh.url, poolSize: 1 })
    try {
      await tagUserSummaries.down(earlier.db)
      await sql`delete from kysely_migration where name = ${LATEST}`.execute(earlier.db)
    } finally {
      await earlier.close()
    }

    const home = await serverHome({ databaseUrl: fresh.url })
    try {
      for (const upgraded of [true, false]) {
        const s = await home.start()
        s.child.kill('SIGTERM')
        assert.is(await s.exited, 0, s.output())
        const said = s.output()
        if (upgraded) {
          assert.match(said, 'upgrading the database: 1 migration to apply; one that rewrites a large table can take')
          assert.match(said, /database upgraded in \d+\.\d s/)
          assert.ok(said.indexOf('upgrading the database') < said.indexOf('listening on'), said)
        } else {
          assert.not.match(said, 'upgrading the database', said)
          assert.not.match(said, 'database upgraded', said)
        }
      }
    } finally {
      await home.cleanup()
    }

    const after = await openDatabase({ url: fresh.url, poolSize: 1 })
    try {
      const indexes = await sql<{ indexname: string }>`select indexname from pg_indexes
        where tablename = 'tags' and indexname like 'tags_user_id%' order by indexname`.execute(after.db)
      assert.equal(
        indexes.rows.map((i) => i.indexname),
        ['tags_user_id_summary_idx'],
      )
    } finally {
      await after.close()
    }
  } finally {
    await fresh.drop()
  }
})

test('server start: a new database is made without a word of upgrading', async () => {
  const home = await serverHome({ embedded: true })
  try {
    const s = await home.start()
    s.child.kill('SIGTERM')
    assert.is(await s.exited, 0, s.output())
    assert.not.match(s.output(), 'upgrad', s.output())
  } finally {
    await home.cleanup()
  }
})

test.run()
