import type { Kysely, Transaction } from 'kysely'
import type { DB } from './schema.js'

// Two transactions that each wait for a row lock the other holds: PostgreSQL ends one of them with
// deadlock_detected (40P01), or a serializable one with serialization_failure (40001). Nothing of the
// ended transaction was kept, so it may be run again from the start (docs/decisions.md, "Writes that
// meet in a deadlock").

const CONTENTION_CODES = new Set(['40P01', '40001'])

/** How many times in all a transaction ended by contention is run before its error is answered. */
export const CONTENTION_ATTEMPTS = 4

/** True when `e` is PostgreSQL ending a transaction for a deadlock or a serialization failure. */
export function isContention(e: unknown): boolean {
  return !!e && typeof e === 'object' && CONTENTION_CODES.has((e as { code?: unknown }).code as string)
}

/** `work` in one transaction, run again (up to CONTENTION_ATTEMPTS in all, after a short random pause)
 * when the database ended it for a deadlock or a serialization failure. `work` must have no effect
 * outside the transaction. */
export async function retryingTransaction<R>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work)
    } catch (e) {
      if (!isContention(e) || attempt >= CONTENTION_ATTEMPTS) throw e
      // apart, so the transactions that met do not meet again in step
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt))
    }
  }
}
