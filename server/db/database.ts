import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import { initDataDir } from './initDataDir.js'
import { migrationProvider } from './migrations/index.js'
import type { DB } from './schema.js'

const TIMESTAMP_OID = 1114

/** The embedded engine's buffer pool (its default is 160MB, most of a small server's memory); pages
 * beyond it are read again from the files, which the system's page cache holds. */
const EMBEDDED_SHARED_BUFFERS = '32MB'

export interface DatabaseOptions {
  /** postgres://... ; when absent the embedded PGlite database is used */
  url?: string
  /** where PGlite keeps its files; absent: in memory */
  dataDir?: string
  /** PGlite only: start from this dump of a data directory (tests copy a migrated template) */
  loadDataDir?: Blob
  /** PostgreSQL only: search_path for every connection (tests isolate themselves in a schema) */
  schema?: string
  poolSize?: number
}

export interface Database {
  db: Kysely<DB>
  kind: 'pglite' | 'postgres'
  pglite?: PGlite
  close(): Promise<void>
}

export async function openDatabase(opts: DatabaseOptions = {}): Promise<Database> {
  if (opts.url) {
    const types = {
      getTypeParser(oid: number, format?: any) {
        return oid === TIMESTAMP_OID ? (s: string) => s : pg.types.getTypeParser(oid, format)
      },
    }
    const pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.poolSize ?? 10,
      types: types as any,
      ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
    })
    pool.on('connect', (client) => preparedStatements(client))
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
    return { db, kind: 'postgres', close: () => db.destroy() }
  }
  let dataDir: string | undefined
  if (opts.dataDir) {
    mkdirSync(opts.dataDir, { recursive: true })
    dataDir = join(opts.dataDir, 'db')
    if (!opts.loadDataDir) await initDataDir(dataDir)
  }
  const pglite = await PGlite.create({
    dataDir,
    loadDataDir: opts.loadDataDir,
    parsers: { [TIMESTAMP_OID]: (s: string) => s },
    // startParams replaces PGlite's own: keep them
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`],
  })
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) })
  return { db, kind: 'pglite', pglite, close: () => db.destroy() }
}

/** Most statements per connection kept prepared; past this, new texts run unprepared (memory stays bounded). */
const PREPARED_PER_CONNECTION = 500
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i

/** statement names by SQL text, so a repeated statement is not hashed again (bounded: cleared when full) */
const names = new Map<string, string>()

function statementName(text: string): string {
  let name = names.get(text)
  if (name === undefined) {
    if (names.size >= 10_000) names.clear()
    names.set(text, name = `mas_${createHash('sha1').update(text).digest('hex')}`)
  }
  return name
}

/**
 * Run parameterised queries as named prepared statements, one name per SQL text: PostgreSQL then
 * plans each text once per connection (and settles on a generic plan) instead of on every request.
 * The access rules make statements whose planning costs more than their execution (design §6).
 * Migrations and other unparameterised SQL run as they are.
 */
function preparedStatements(client: pg.PoolClient): void {
  const prepared = new Set<string>()
  const query = client.query.bind(client) as (...args: any[]) => any
  ;(client as any).query = (text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || !PREPARABLE.test(text)) {
      return query(text, values, callback)
    }
    const name = statementName(text)
    if (!prepared.has(name)) {
      if (prepared.size >= PREPARED_PER_CONNECTION) return query(text, values, callback)
      prepared.add(name)
    }
    return query({ name, text, values }, callback)
  }
}

/** `schema`: the schema the migration tables live in; default: the connection's current schema. Named,
 * because kysely otherwise takes another schema's migration tables in the same database for this one's. */
export async function migrate(db: Kysely<DB>, opts: { schema?: string } = {}): Promise<void> {
  const schema = opts.schema ?? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema
  const migrator = new Migrator({ db, provider: migrationProvider, migrationTableSchema: schema })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`)
  }
}
