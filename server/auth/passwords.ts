import { createHash, pbkdf2, randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'

// Passwords are stored as `scrypt$N$r$p$salt$hash` (base64). Hashes exported
// from a Django service (`pbkdf2_sha256$iterations$salt$hash`) verify too.

const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>
const pbkdf2Async = promisify(pbkdf2)
const N = 16384, R = 8, P = 1, KEYLEN = 32

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scryptAsync(password, salt, KEYLEN, { N, r: R, p: P })
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts[0] === 'scrypt' && parts.length === 6) {
    const [, n, r, p, salt, hash] = parts
    const expected = Buffer.from(hash, 'base64')
    const got = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length,
      { N: Number(n), r: Number(r), p: Number(p), maxmem: 256 * Number(n) * Number(r) })
    return timingSafeEqual(got, expected)
  }
  if (parts[0] === 'pbkdf2_sha256' && parts.length === 4) {
    const [, iterations, salt, hash] = parts
    const expected = Buffer.from(hash, 'base64')
    const got = await pbkdf2Async(password, salt, Number(iterations), expected.length, 'sha256')
    return got.length === expected.length && timingSafeEqual(got, expected)
  }
  return false
}

/** A password check that costs as much as a real one, for unknown usernames. */
export async function burnPasswordCheck(password: string): Promise<void> {
  await scryptAsync(password, Buffer.alloc(16), KEYLEN, { N, r: R, p: P })
}

export function newToken(): string {
  return randomBytes(20).toString('hex')
}

/** What a token or session secret is looked up by: its sha256, so lookup timing reveals nothing of the secret. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex')
}
