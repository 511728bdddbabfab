import { createHash } from 'node:crypto'
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely'
import type pg from 'pg'

// Named prepared statements through kysely's own PostgreSQL dialect: the dialect is given this pool,
// whose clients run each parameterised statement as a named one (pg's `{ name, text, values }`), one
// name per SQL text. PostgreSQL then plans each text once per connection (and settles on a generic
// plan) instead of on every request; the access rules make statements whose planning costs more than
// their execution (docs/decisions.md §6). Migrations and other unparameterised SQL run as they are.

/** Most statements per connection kept prepared; past this, new texts run unprepared (memory stays bounded). */
export const PREPARED_PER_CONNECTION = 500
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i

/** How many statements a pool's connections have sent, of every kind (BEGIN and COMMIT included): the round
 * trips of a request, which tests count (a single create is one statement, docs/decisions.md §18). */
export interface StatementCount {
  sent: number
}

/** statement names by SQL text, so a repeated statement is not hashed again (bounded: cleared when full) */
const names = new Map<string, string>()

function statementName(text: string): string {
  let name = names.get(text)
  if (name === undefined) {
    if (names.size >= 10_000) names.clear()
    names.set(text, (name = `mas_${createHash('sha1').update(text).digest('hex')}`))
  }
  return name
}

/** `pool` as kysely's PostgresDialect takes it, its connections preparing their statements and counting them
 * in `count`. */
export function preparingPool(pool: pg.Pool, count: StatementCount): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PreparingClient>()
  return {
    async connect() {
      const client = await pool.connect()
      let preparing = clients.get(client)
      if (!preparing) clients.set(client, (preparing = new PreparingClient(client, count)))
      return preparing
    },
    end: () => pool.end(),
  }
}

/** One connection of the pool: the statements it has prepared, and its queries. */
class PreparingClient implements PostgresPoolClient {
  readonly #prepared = new Set<string>()

  constructor(
    readonly client: pg.PoolClient,
    readonly count: StatementCount,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>
  query<R>(
    sql: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // kysely asks for cursors only when the dialect is given a cursor class, which ours is not
    if (typeof sql !== 'string') throw new Error('streaming queries are not configured')
    return this.#run<R>(sql, parameters ?? [])
  }

  release(): void {
    this.client.release()
  }

  async #run<R>(text: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    const values = [...parameters]
    this.count.sent++
    const name = values.length && PREPARABLE.test(text) ? this.#nameFor(text) : null
    const result = await (name ? this.client.query({ name, text, values }) : this.client.query(text, values))
    return {
      command: result.command as PostgresQueryResult<R>['command'],
      rowCount: result.rowCount ?? 0,
      rows: result.rows as R[],
    }
  }

  /** The statement's name, or null when this connection holds as many prepared statements as it may. */
  #nameFor(text: string): string | null {
    const name = statementName(text)
    if (this.#prepared.has(name)) return name
    if (this.#prepared.size >= PREPARED_PER_CONNECTION) return null
    this.#prepared.add(name)
    return name
  }
}
