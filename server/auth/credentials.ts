import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.js'
import { throttled } from '../http/errors.js'
import { dummyHash, hashPassword, needsRehash, verifyPassword } from './passwords.js'
import { forgiveFailures, reserveAttempt, retryAfter, type LoginLimits } from './throttle.js'

// The one place a username and password are checked, whatever carried them
// (HTTP Basic, the token endpoint, the session login): the brute-force limit
// first, the attempt counted with the check (a 429 before any password is
// looked at; server/auth/throttle.ts), then one password
// verification whether or not the user exists, so neither the answer nor its
// time tells which usernames exist.

export interface PasswordUser {
  id: number
  username: string
  is_admin: boolean
  is_active: boolean
}

export type PasswordCheck = { ok: true; user: PasswordUser } | { ok: false; reason: 'invalid' | 'inactive' }

export async function checkPassword(
  db: Kysely<DB>,
  limits: LoginLimits,
  address: string,
  username: string,
  password: string,
): Promise<PasswordCheck> {
  return verifyCredentials(db, limits, address, username, password)
}

/** A 429 when `address` has failed too often, for `username` or for any: before any password is looked at,
 * and before a remembered credential is accepted (a guess that happens to be right must not get through). */
export async function refuseIfThrottled(
  db: Kysely<DB>,
  limits: LoginLimits,
  address: string,
  username: string,
): Promise<void> {
  const wait = await retryAfter(db, limits, address, username)
  if (wait > 0) throw throttled(wait)
}

/** attempts under way in this process, by digest of address, username and password */
const underWay = new Map<string, Promise<PasswordCheck>>()

/**
 * The attempt counted against the limits (429 past them), then the password verified; a success forgives it.
 * The same attempt made again while one is under way (a script's first requests in parallel, all with the same
 * Basic credentials) shares its answer: it tells a guesser nothing more, and counts once.
 */
export function verifyCredentials(
  db: Kysely<DB>,
  limits: LoginLimits,
  address: string,
  username: string,
  password: string,
): Promise<PasswordCheck> {
  const key = createHash('sha256').update(`${address}\n${username}\n${password}`).digest('hex')
  let attempt = underWay.get(key)
  if (!attempt) {
    attempt = verifyOnce(db, limits, address, username, password).finally(() => underWay.delete(key))
    underWay.set(key, attempt)
  }
  return attempt
}

async function verifyOnce(
  db: Kysely<DB>,
  limits: LoginLimits,
  address: string,
  username: string,
  password: string,
): Promise<PasswordCheck> {
  const wait = await reserveAttempt(db, limits, address, username)
  if (wait > 0) throw throttled(wait)
  const user = await db
    .selectFrom('users')
    .select(['id', 'username', 'is_admin', 'is_active', 'password'])
    .where('username', '=', username)
    .executeTakeFirst()
  const valid = await verifyPassword(password, user?.password ?? (await dummyHash()))
  if (!user || !valid || !user.is_active) {
    // the attempt stays counted as a failure
    return { ok: false, reason: user && valid ? 'inactive' : 'invalid' }
  }
  await forgiveFailures(db, address, username)
  if (needsRehash(user.password)) {
    // only where the hash is still the one verified: a password changed meanwhile is left alone
    await db
      .updateTable('users')
      .set({ password: await hashPassword(password) })
      .where('id', '=', user.id)
      .where('password', '=', user.password)
      .execute()
  }
  const { password: _, ...rest } = user
  return { ok: true, user: rest }
}
