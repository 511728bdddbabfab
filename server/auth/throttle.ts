import { createHash } from 'node:crypto'
import { sql, type Kysely, type Transaction } from 'kysely'
import type { AppConfig } from '../config.js'
import type { DB } from '../db/schema.js'

// The brute-force limit on passwords, for every way of presenting one (HTTP
// Basic on any route, token login, session login). Only failures count, so
// scripts that log in often and many users behind one address are never
// slowed. Two limits hold at once: failures per address and username (guessing
// one user's password) and failures per address across usernames (trying one
// password on many users). Past either, the caller is refused before its
// password is checked, until enough of its failures have left the window. The
// failures live in the database (`login_failures`), so the limit is the same
// however many server processes and hosts share it. An attempt is counted as a
// failure before its password is verified, in the same transaction as the check
// (reserveAttempt), and forgiven if it succeeds: attempts that arrive together
// are checked one after another, so no more than the limit are ever verified.

export interface LoginLimits {
  /** failures allowed per address and username in the window */
  perUser: number
  /** failures allowed per address, whatever the usernames, in the window */
  perAddress: number
  windowSeconds: number
}

export function loginLimits(config: AppConfig): LoginLimits {
  return {
    perUser: config.loginFailures,
    perAddress: config.loginFailuresPerAddress,
    windowSeconds: config.loginWindowSeconds,
  }
}

function pairOf(address: string, username: string): string {
  return createHash('sha256').update(`${address}\n${username}`).digest('hex')
}

/** Seconds until `address` may present a password for `username` again, or 0. */
export async function retryAfter(
  db: Kysely<DB> | Transaction<DB>,
  limits: LoginLimits,
  address: string,
  username: string,
): Promise<number> {
  const since = sql<Date>`now() - make_interval(secs => ${limits.windowSeconds})`
  // the failure that must leave the window before the caller is under the limit again: the limit-th newest
  const nth = (column: 'pair' | 'address', value: string, limit: number) =>
    db
      .selectFrom('login_failures')
      .select('failed_at')
      .where(column, '=', value)
      .where('failed_at', '>', since)
      .orderBy('failed_at', 'desc')
      .offset(limit - 1)
      .limit(1)
  const wait = (q: ReturnType<typeof nth>) =>
    sql<number | null>`ceil(extract(epoch from (${q} + make_interval(secs => ${limits.windowSeconds}) - now())))::int`
  const row = await db
    .selectNoFrom([
      wait(nth('pair', pairOf(address, username), limits.perUser)).as('user'),
      wait(nth('address', address, limits.perAddress)).as('address'),
    ])
    .executeTakeFirstOrThrow()
  const seconds = Math.max(row.user ?? 0, row.address ?? 0)
  return row.user === null && row.address === null ? 0 : Math.max(1, seconds)
}

/** the first key of the advisory locks that serialise one address's attempts (any constant: "mlf") */
const ATTEMPT_LOCK = 0x6d6c66

/**
 * Check the limits and, when under them, count this attempt as a failure (forgiveFailures takes it back
 * after a success), as one step: concurrent attempts from one address wait for each other's check on a
 * transaction-level advisory lock, so at most the limit get through. Answers 0 when the attempt may go on,
 * else the seconds to wait.
 */
export async function reserveAttempt(
  db: Kysely<DB>,
  limits: LoginLimits,
  address: string,
  username: string,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${ATTEMPT_LOCK}, hashtext(${address}))`.execute(trx)
    const wait = await retryAfter(trx, limits, address, username)
    if (wait === 0)
      await trx
        .insertInto('login_failures')
        .values({ address, pair: pairOf(address, username) })
        .execute()
    return wait
  })
}

/** After a success: the user's own mistakes from this address are forgiven (the per-address count stays). */
export async function forgiveFailures(db: Kysely<DB>, address: string, username: string): Promise<void> {
  await db.deleteFrom('login_failures').where('pair', '=', pairOf(address, username)).execute()
}

/** Failures that have left the window count for nothing: removed now and then by every server. */
export async function forgetOldFailures(db: Kysely<DB>, limits: LoginLimits): Promise<void> {
  await db
    .deleteFrom('login_failures')
    .where('failed_at', '<', sql<Date>`now() - make_interval(secs => ${limits.windowSeconds})`)
    .execute()
}
