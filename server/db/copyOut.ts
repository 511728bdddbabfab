import type { CompiledQuery } from 'kysely'
import type pg from 'pg'
import { to as copyTo } from 'pg-copy-streams'
import type { StatementCount } from './prepared.js'

// COPY … TO STDOUT on a connection of the pool: the bytes PostgreSQL sends, as it sends them. A query's text values
// reach node through the driver as strings, decoded from UTF-8 and encoded again to be answered; a COPY's bytes are
// passed on as they came, which for a tag set's export halves the server's CPU (docs/decisions.md, "Lists at
// scale"). COPY takes no parameters: what it needs is written into its statement by kysely (`sql.lit`), and only
// values of mas's own (ids, field names), never a request's text.

/** The bytes a `COPY (…) TO STDOUT` statement writes, in pieces, once all have come. */
export type CopyOut = (statement: CompiledQuery) => Promise<Buffer[]>

export function copyOutOf(pool: pg.Pool, count: StatementCount): CopyOut {
  return async (statement) => {
    if (statement.parameters.length) throw new Error('a COPY statement takes no parameters: write its values in')
    const client = await pool.connect()
    let failed: Error | undefined
    try {
      count.sent++
      const pieces: Buffer[] = []
      for await (const piece of client.query(copyTo(statement.sql))) pieces.push(piece as Buffer)
      return pieces
    } catch (e) {
      failed = e as Error
      throw e
    } finally {
      // a connection whose COPY failed midway is not given to another statement
      client.release(failed)
    }
  }
}
