import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { attachCluster, THROWAWAY_SETTINGS, LAPTOP_SETTINGS } from '../../server/db/cluster.js'
import { migrate, openDatabase, type Database } from '../../server/db/database.js'
import type { DB } from '../../server/db/schema.js'
import { tempDir } from './tempDir.js'

// One PostgreSQL for the whole test run: an embedded cluster started once in a temporary folder (or, with
// DATABASE_URL, that server). A template database is migrated once; every test database is created from
// it (CREATE DATABASE ... TEMPLATE ...) and dropped when closed. The embedded cluster is stopped and its
// folder removed when the run has nothing left to do.

interface Server {
  /** runs CREATE/DROP DATABASE */
  admin: Kysely<unknown>
  template: string
  /** a connection string for database `name` of this server */
  urlOf(name: string): string
}

let server: Promise<Server> | undefined

function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${encodeURIComponent(name)}`
  return u.toString()
}

async function start(): Promise<Server> {
  const external = process.env.DATABASE_URL
  let urlOf: (name: string) => string
  let adminUrl: string
  let finish = async () => {}
  if (external) {
    urlOf = (name) => withDatabase(external, name)
    adminUrl = external
  } else {
    const dir = tempDir('mas-test-pg-')
    const cluster = await attachCluster(dir, {
      settings: { ...LAPTOP_SETTINGS, ...THROWAWAY_SETTINGS },
      sync: false,
      unref: true,
    })
    urlOf = (name) => cluster.url(name)
    adminUrl = cluster.url('postgres')
    finish = async () => {
      await cluster.release()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const adminPool = new pg.Pool({ connectionString: adminUrl, max: 2, allowExitOnIdle: true })
  adminPool.on('error', () => {}) // an idle connection ended by the cluster's shutdown at the end of the run
  const admin = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: adminPool }) })
  const template = `mas_template_${randomBytes(5).toString('hex')}`
  await sql`create database ${sql.id(template)}`.execute(admin)
  const t = await openDatabase({ url: urlOf(template), poolSize: 1 })
  await migrate(t.db)
  await t.close()
  let finished = false
  process.on('beforeExit', () => {
    if (finished) return
    finished = true
    sql`drop database if exists ${sql.id(template)}`
      .execute(admin)
      .finally(() => admin.destroy())
      .finally(finish)
      .catch(() => {})
  })
  return { admin, template, urlOf }
}

/** A new database of the run's PostgreSQL, migrated (a copy of the template, or of `from`: the name of another
 * database of the run, which nothing may be connected to); `drop` removes it. */
export async function freshDatabase(from?: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const s = await (server ??= start())
  const name = `mas_test_${randomBytes(6).toString('hex')}`
  await sql`create database ${sql.id(name)} template ${sql.id(from ?? s.template)}`.execute(s.admin)
  return {
    name,
    url: s.urlOf(name),
    drop: async () => {
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(s.admin)
    },
  }
}

/** A fresh, migrated database for one test file (or a copy of the database `from`), dropped on close. */
export async function testDatabase(from?: string): Promise<Database> {
  const fresh = await freshDatabase(from)
  const d = await openDatabase({ url: fresh.url, poolSize: 5 })
  return {
    ...d,
    close: async () => {
      await d.close()
      await fresh.drop()
    },
  }
}

/** Until a session of `db`'s database waits for a lock in a statement that holds `text` (five seconds at most). */
export async function untilLockWait(db: Kysely<DB>, text: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and position(${text} in query) > 0`.execute(db)
    if (r.rows[0].n > 0) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`no statement waits: ${text}`)
}
