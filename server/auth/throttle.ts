import { createHash } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
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
// however many server processes and hosts share it.

export interface LoginLimits {
  /** failures allowed per address and username in the window */
  perUser: number
  /** failures allowed per address, whatever the usernames, in the window */
  perAddress: number
  windowSeconds: number
}

export function loginLimits(config: AppConfig): LoginLimits {
  return { perUser: config.loginFailures, perAddress: config.loginFailuresPerAddress, windowSeconds: config.loginWindowSeconds }
}

function pairOf(address: string, username: string): string {
  return createHash('sha256').update(`${address}\n${username}`).digest('hex')
}

/** Seconds until `address` may present a password for `username` again, or 0. */
export async function retryAfter(db: Kysely<DB>, limits: LoginLimits, address: string, username: string): Promise<number> {
  const since = sql<Date>`now() - make_interval(secs => ${limits.windowSeconds})`
  // the failure that must leave the window before the caller is under the limit again: the limit-th newest
  const nth = (column: 'pair' | 'address', value: string, limit: number) => db.selectFrom('login_failures')
    .select('failed_at').where(column, '=', value).where('failed_at', '>', since)
    .orderBy('failed_at', 'desc').offset(limit - 1).limit(1)
  const wait = (q: ReturnType<typeof nth>) =>
    sql<number | null>`ceil(extract(epoch from (${q} + make_interval(secs => ${limits.windowSeconds}) - now())))::int`
  const row = await db.selectNoFrom([
    wait(nth('pair', pairOf(address, username), limits.perUser)).as('user'),
    wait(nth('address', address, limits.perAddress)).as('address'),
  ]).executeTakeFirstOrThrow()
  const seconds = Math.max(row.user ?? 0, row.address ?? 0)
  return row.user === null && row.address === null ? 0 : Math.max(1, seconds)
}

export async function recordFailure(db: Kysely<DB>, address: string, username: string): Promise<void> {
  await db.insertInto('login_failures').values({ address, pair: pairOf(address, username) }).execute()
}

/** After a success: the user's own mistakes from this address are forgiven (the per-address count stays). */
export async function forgiveFailures(db: Kysely<DB>, address: string, username: string): Promise<void> {
  await db.deleteFrom('login_failures').where('pair', '=', pairOf(address, username)).execute()
}

/** Failures that have left the window count for nothing: removed now and then by every server. */
export async function forgetOldFailures(db: Kysely<DB>, limits: LoginLimits): Promise<void> {
  await db.deleteFrom('login_failures')
    .where('failed_at', '<', sql<Date>`now() - make_interval(secs => ${limits.windowSeconds})`).execute()
}
