import { Kysely, Migrator, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { attachCluster, DATABASE, type ClusterOptions } from './cluster.js'
import { migrationProvider } from './migrations/index.js'
import { copyOutOf, type CopyOut } from './copyOut.js'
import { preparingPool, type StatementCount } from './prepared.js'
import type { DB } from './schema.js'

const TIMESTAMP_OID = 1114
const DUPLICATE_DATABASE = '42P04'
const CONNECT_TIMEOUT_MS = 10_000

export interface DatabaseOptions {
  /** postgres://... of an external PostgreSQL; when absent, the embedded cluster of `dataDir` */
  url?: string
  /** the data directory whose embedded PostgreSQL is used when there is no `url` */
  dataDir?: string
  /** the embedded cluster's settings (tests: a throwaway cluster) */
  cluster?: ClusterOptions
  /** search_path for every connection */
  schema?: string
  poolSize?: number
}

export interface Database {
  db: Kysely<DB>
  /** the embedded PostgreSQL of the data directory, or an external one (DATABASE_URL) */
  kind: 'embedded' | 'postgres'
  /** the connection string in use */
  url: string
  /** the statements sent to it since it was opened */
  readonly statements: StatementCount
  /** COPY … TO STDOUT's bytes (copyOut.ts) */
  readonly copyOut: CopyOut
  close(): Promise<void>
}

/** A pool over the PostgreSQL at `url`: timestamps stay the strings they are, statements are prepared (prepared.ts). */
function pool(url: string, opts: DatabaseOptions): { db: Kysely<DB>; statements: StatementCount; copyOut: CopyOut } {
  const types: pg.CustomTypesConfig = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === TIMESTAMP_OID
        ? (s: string) => s
        : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
  }
  const p = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    types,
    // a database that accepts no connection in this time counts as unavailable (a 503), not as slow
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
  })
  survivingLostConnections(p)
  const statements: StatementCount = { sent: 0 }
  return {
    db: new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparingPool(p, statements) }) }),
    statements,
    copyOut: copyOutOf(p, statements),
  }
}

/**
 * A connection of `pool` that the database ends (a restart, a failover, pg_terminate_backend) emits
 * 'error'; unheard, that ends the process. An idle one is dropped by the pool itself (its 'error'); one
 * checked out fails its query (or the next), whose caller answers 503 (server/db/connectionLost.ts), and
 * the pool drops it when it is released. The pool opens new connections once the database is back.
 */
export function survivingLostConnections(pool: pg.Pool): void {
  pool.on('error', () => {})
  pool.on('connect', (client) => {
    client.on('error', () => {})
  })
}

export async function openDatabase(opts: DatabaseOptions = {}): Promise<Database> {
  if (opts.url) {
    const { db, statements, copyOut } = pool(opts.url, opts)
    return { db, statements, copyOut, kind: 'postgres', url: opts.url, close: () => db.destroy() }
  }
  if (!opts.dataDir) throw new Error('openDatabase needs a url or a data directory')
  const cluster = await attachCluster(opts.dataDir, opts.cluster)
  try {
    await createDatabaseOnce(cluster.url('postgres'), DATABASE)
  } catch (e) {
    await cluster.release()
    throw e
  }
  const url = cluster.url()
  const { db, statements, copyOut } = pool(url, opts)
  return {
    db,
    statements,
    copyOut,
    kind: 'embedded',
    url,
    close: async () => {
      await db.destroy()
      await cluster.release()
    },
  }
}

/** Create database `name` unless it exists (two processes starting at once may both try). */
async function createDatabaseOnce(maintenanceUrl: string, name: string): Promise<void> {
  const p = new pg.Pool({ connectionString: maintenanceUrl, max: 1 })
  survivingLostConnections(p)
  const db = new Kysely<{ pg_database: { datname: string } }>({ dialect: new PostgresDialect({ pool: p }) })
  try {
    const found = await db.selectFrom('pg_database').select('datname').where('datname', '=', name).executeTakeFirst()
    if (!found) {
      await sql`create database ${sql.id(name)}`.execute(db).catch((e: { code?: string }) => {
        if (e.code !== DUPLICATE_DATABASE) throw e
      })
    }
  } finally {
    await db.destroy()
  }
}

/** `schema`: the schema the migration tables live in; default: the connection's current schema. Named,
 * because kysely otherwise takes another schema's migration tables in the same database for this one's.
 * `onUpgrade`: told the names of the migrations about to run on a database that had some already (an install
 * upgraded, not a new one), before they run. */
export async function migrate(
  db: Kysely<DB>,
  opts: { schema?: string; onUpgrade?: (pending: string[]) => void } = {},
): Promise<void> {
  const schema =
    opts.schema ?? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema
  for (let attempt = 1; ; attempt++) {
    const migrator = new Migrator({ db, provider: migrationProvider, migrationTableSchema: schema })
    if (opts.onUpgrade && attempt === 1) {
      const known = await migrator.getMigrations()
      const pending = known.filter((m) => !m.executedAt).map((m) => m.name)
      if (pending.length && pending.length < known.length) opts.onUpgrade(pending)
    }
    const { error, results } = await migrator.migrateToLatest()
    if (!error) return
    if (attempt < MIGRATION_ATTEMPTS && isAnotherSchemaGone(error, schema)) continue
    const failed = results?.find((r) => r.status === 'Error')
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`, {
      cause: error,
    })
  }
}

/** How often a migration is tried while other schemas of the database vanish under it (docs/decisions.md §38). */
const MIGRATION_ATTEMPTS = 20
const INVALID_SCHEMA_NAME = '3F000'

/**
 * kysely's migrator lists the tables of every schema of the database (to find its own), naming each schema to
 * PostgreSQL's functions as it goes; a schema dropped meanwhile by someone else fails that listing with "schema …
 * does not exist". Nothing was changed by then: it is tried again. Our own schema gone is an error like any other.
 */
function isAnotherSchemaGone(error: unknown, schema: string): boolean {
  const e = error as { code?: string; message?: string }
  return e.code === INVALID_SCHEMA_NAME && !(e.message ?? '').includes(`"${schema}"`)
}
