import { createHash } from 'node:crypto'
import type { Caller } from '../access.js'

// Who a credential belongs to, remembered for a few seconds per database handle,
// so a request costs no authentication query (and Basic auth no scrypt) when the
// same credential came recently. Staleness is bounded: a change made through
// this process (a user deactivated, demoted or renamed, a session logged out)
// forgets every entry at once; a change made by another process (another
// `--workers` process, a direct database edit) takes effect here within
// CALLER_CACHE_SECONDS. Failed authentications are never remembered.

export const CALLER_CACHE_SECONDS = 5
const MAX_ENTRIES = 10_000

interface Entry { caller: Caller; until: number }

class CallerCache {
  private entries = new Map<string, Entry>()
  /** bumped by forget(): an answer read from the database before a change is not stored after it */
  generation = 0

  get(key: string, now = Date.now()): Caller | undefined {
    const hit = this.entries.get(key)
    if (!hit) return undefined
    if (hit.until > now) return hit.caller
    this.entries.delete(key)
    return undefined
  }

  set(key: string, caller: Caller, generation: number, now = Date.now()): void {
    if (generation !== this.generation) return
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
    this.entries.set(key, { caller, until: now + CALLER_CACHE_SECONDS * 1000 })
  }

  forget(): void {
    this.generation++
    this.entries.clear()
  }
}

const caches = new WeakMap<object, CallerCache>()

export function callerCache(db: object): CallerCache {
  let cache = caches.get(db)
  if (!cache) caches.set(db, cache = new CallerCache())
  return cache
}

/** After any change to users, tokens or sessions made through `db`: authenticate from the database again. */
export function forgetCallers(db: object): void {
  caches.get(db)?.forget()
}

/** Cache key of a credential that must not sit in memory as it is (a Basic header holds a password). */
export function credentialKey(kind: string, secret: string): string {
  return `${kind}:${createHash('sha256').update(secret).digest('base64')}`
}
