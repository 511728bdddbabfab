import { rmSync } from 'node:fs'
import { sql } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../../server/app.js'
import { hashPassword } from '../../../server/auth/passwords.js'
import { tokenFor } from '../../../server/auth/routes.js'
import { CallerCache } from '../../../server/auth/callerCache.js'
import { LISTENER_NAME, listenForCallerChanges } from '../../../server/auth/callerNotifications.js'
import { openDatabase, type Database } from '../../../server/db/database.js'
import { localTimestamp } from '../../../server/db/time.js'
import { freshDatabase } from '../../helpers/db.js'
import { sessionLogin } from '../../helpers/session.js'
import { tempDir } from '../../helpers/tempDir.js'

// Two servers on one database (two apps, each with its own pool, as two hosts would have): a change
// to a user, token or session made through one of them, or straight in the database, takes effect
// in the other within a second, though each remembers callers for 5 s. A server that loses its
// listening connection remembers no caller until it listens again.

let fresh: { url: string; drop(): Promise<void> }
let dbA: Database, dbB: Database
let a: FastifyInstance, b: FastifyInstance
const silent = { level: 'silent' as const }

async function makeUser(username: string, opts: { admin?: boolean } = {}) {
  const password = `${username}-pass`
  const row = await dbA.db
    .insertInto('users')
    .values({
      username,
      password: await hashPassword(password),
      is_admin: opts.admin ?? false,
      is_active: true,
      date_joined: localTimestamp(),
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const token = await tokenFor(dbA.db, row.id)
  return { id: row.id, username, password, auth: { authorization: `Token ${token}` } }
}

const status = async (app: FastifyInstance, url: string, headers: Record<string, string>) =>
  (await app.inject({ method: 'GET', url, headers })).statusCode

/** Polls until `check` holds, at most `ms`; answers how long it took (fails past the limit). */
async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now()
  for (;;) {
    if (await check()) return Date.now() - started
    if (Date.now() - started > ms) assert.unreachable(`${what} did not happen within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** Waits until both servers listen (each has its listening connection in pg_stat_activity). */
async function bothListening(): Promise<void> {
  await within(5000, 'both servers listening', async () => {
    const rows = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and application_name = ${LISTENER_NAME} and query ilike 'listen%'`.execute(
      dbA.db,
    )
    return rows.rows[0].n >= 2
  })
}

let dir: string | undefined

test.before(async () => {
  fresh = await freshDatabase()
  dbA = await openDatabase({ url: fresh.url, poolSize: 3 })
  dbB = await openDatabase({ url: fresh.url, poolSize: 3 })
  dir = tempDir('mas-two-servers-')
  a = await buildApp({ database: dbA, config: { dataDir: dir, mediaDir: `${dir}/media` }, logger: silent })
  b = await buildApp({ database: dbB, config: { dataDir: dir, mediaDir: `${dir}/media` }, logger: silent })
  await a.ready()
  await b.ready()
  await bothListening()
})
test.after(async () => {
  await a?.close()
  await b?.close()
  await dbA?.close()
  await dbB?.close()
  await fresh?.drop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('a user deactivated through one server is refused by the other within a second', async () => {
  const admin = await makeUser('two-admin', { admin: true })
  const user = await makeUser('two-user')
  // B remembers the user's caller
  for (let i = 0; i < 3; i++) assert.is(await status(b, '/api/v0/jobTypes/', user.auth), 200)
  const changed = await a.inject({
    method: 'PATCH',
    url: `/api/v0/user/${user.id}/`,
    headers: { ...admin.auth, 'content-type': 'application/json' },
    payload: JSON.stringify({ is_active: false }),
  })
  assert.is(changed.statusCode, 200)
  const ms = await within(
    1000,
    'B refusing the deactivated user',
    async () => (await status(b, '/api/v0/jobTypes/', user.auth)) === 401,
  )
  assert.ok(ms < 1000)
})

test('a direct database edit (demotion) and a deleted token take effect in both servers within a second', async () => {
  const admin = await makeUser('sql-admin', { admin: true })
  for (const app of [a, b]) assert.is(await status(app, '/api/v0/user/', admin.auth), 200)
  await dbA.db.updateTable('users').set({ is_admin: false }).where('id', '=', admin.id).execute()
  for (const app of [a, b]) {
    await within(1000, 'the demotion applying', async () => (await status(app, '/api/v0/user/', admin.auth)) === 403)
  }
  const user = await makeUser('sql-token')
  for (const app of [a, b]) assert.is(await status(app, '/api/v0/jobTypes/', user.auth), 200)
  await dbB.db.deleteFrom('tokens').where('user_id', '=', user.id).execute()
  for (const app of [a, b]) {
    await within(
      1000,
      'the deleted token refused',
      async () => (await status(app, '/api/v0/jobTypes/', user.auth)) === 401,
    )
  }
})

test('a session ended in the database is refused by the server that remembered it within a second', async () => {
  const user = await makeUser('two-session')
  const login = await sessionLogin((o) => b.inject(o), user.username, user.password)
  assert.is(login.response.statusCode, 200)
  assert.is(await status(b, '/api/v0/jobTypes/', { cookie: login.cookie }), 200)
  await dbA.db.deleteFrom('sessions').where('user_id', '=', user.id).execute()
  await within(
    1000,
    'the ended session refused',
    async () => (await status(b, '/api/v0/jobTypes/', { cookie: login.cookie })) !== 200,
  )
})

test('a listener that loses its connection forgets every remembered caller and remembers none until it listens again', async () => {
  const cache = new CallerCache()
  const caller = { id: 999_999, username: 'remembered', isAdmin: false }
  const remember = () => {
    cache.set('k', caller, cache.generation)
    return cache.get('k') !== undefined
  }

  // nothing listening at that address: never remembers
  const deafStop = listenForCallerChanges('postgres://127.0.0.1:1/none', cache, silentLog)
  await new Promise((r) => setTimeout(r, 300))
  assert.not.ok(remember(), 'a server that cannot listen remembers nothing')
  await deafStop()

  const stop = listenForCallerChanges(fresh.url, cache, silentLog)
  try {
    await within(5000, 'listening', async () => remember())
    const [{ pid }] = (
      await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database()
      and application_name = ${LISTENER_NAME} and query ilike 'listen%' order by backend_start desc limit 1`.execute(
        dbA.db,
      )
    ).rows
    // a notification still reaches it: the remembered user is dropped
    await sql`select pg_notify('mas_callers', ${String(caller.id)})`.execute(dbA.db)
    await within(1000, 'the notified user forgotten', async () => cache.get('k') === undefined)
    assert.ok(remember())
    await sql`select pg_terminate_backend(${pid})`.execute(dbA.db)
    await within(1000, 'everything forgotten on the lost connection', async () => cache.get('k') === undefined)
    // it connects again on its own, and then remembers and hears again
    await within(5000, 'listening again', async () => remember())
    await sql`select pg_notify('mas_callers', '')`.execute(dbA.db)
    await within(1000, 'everyone forgotten on an empty notification', async () => cache.get('k') === undefined)
  } finally {
    await stop()
  }
  assert.not.ok(remember(), 'stopped: remembers nothing')
})

const silentLog = {
  warn() {},
  info() {},
  error() {},
  debug() {},
  trace() {},
  fatal() {},
  child() {
    return silentLog
  },
  level: 'silent',
  silent() {},
} as never

test.run()
