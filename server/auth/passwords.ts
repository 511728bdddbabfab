import { createHash, pbkdf2, randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { channel } from 'node:diagnostics_channel'
import { promisify } from 'node:util'

// Passwords are stored as `scrypt$N$r$p$salt$hash` (base64). Hashes exported
// from a Django service (`pbkdf2_sha256$iterations$salt$hash`) verify too, and
// are replaced by scrypt at the user's next successful login (needsRehash), so
// every verification comes to cost the same.

/** Every password verification is announced here (what it was checked against: 'scrypt', 'pbkdf2_sha256',
 * 'none'), so a test can see that an unknown username costs a verification like a known one. */
export const passwordVerified = channel('mas:password-verified')

const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>
const pbkdf2Async = promisify(pbkdf2)
const N = 16384,
  R = 8,
  P = 1,
  KEYLEN = 32

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scryptAsync(password, salt, KEYLEN, { N, r: R, p: P })
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (passwordVerified.hasSubscribers) passwordVerified.publish({ scheme: parts.length > 1 ? parts[0] : 'none' })
  if (parts[0] === 'scrypt' && parts.length === 6) {
    const [, n, r, p, salt, hash] = parts
    const expected = Buffer.from(hash, 'base64')
    const got = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: 256 * Number(n) * Number(r),
    })
    return timingSafeEqual(got, expected)
  }
  if (parts[0] === 'pbkdf2_sha256' && parts.length === 4) {
    const [, iterations, salt, hash] = parts
    const expected = Buffer.from(hash, 'base64')
    const got = await pbkdf2Async(password, salt, Number(iterations), expected.length, 'sha256')
    return got.length === expected.length && timingSafeEqual(got, expected)
  }
  // an unusable stored password (e.g. Django's "!") costs a verification too
  await verifyPassword(password, await dummyHash())
  return false
}

let dummy: Promise<string> | undefined

/** A stored hash that no password matches, made like a real one: what an unknown username is verified
 * against, so its answer costs the same as a wrong password's. */
export function dummyHash(): Promise<string> {
  return (dummy ??= hashPassword(randomBytes(32).toString('base64')))
}

/** A hash not made with today's scheme and cost: replaced at the next successful login. */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith(`scrypt$${N}$${R}$${P}$`)
}

export function newToken(): string {
  return randomBytes(20).toString('hex')
}

/** What a token or session secret is looked up by: its sha256, so lookup timing reveals nothing of the secret. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex')
}
