import { createHash } from 'node:crypto'
import type { Caller } from '../access.js'

// Who a credential belongs to, remembered for a few seconds by each app (server/services.ts),
// so a request costs no authentication query (and Basic auth no scrypt) when the
// same credential came recently. Staleness is bounded: a change made through
// this process (a user deactivated, demoted or renamed, a session logged out)
// forgets every entry at once; a change made anywhere else (another server
// process or host, a direct database edit) is announced by the database and
// forgets that user's entries (callerNotifications.ts), and while nothing listens
// for those announcements nothing is remembered at all. CALLER_CACHE_SECONDS
// bounds an entry's life whatever happens. Failed authentications are never remembered.

export const CALLER_CACHE_SECONDS = 5
const MAX_ENTRIES = 10_000

interface Entry {
  caller: Caller
  until: number
}

export class CallerCache {
  private entries = new Map<string, Entry>()
  /** bumped by forget(): an answer read from the database before a change is not stored after it */
  generation = 0
  /** remember nothing: a server that should hear of changes made elsewhere and cannot */
  private deaf = false

  get(key: string, now = Date.now()): Caller | undefined {
    const hit = this.entries.get(key)
    if (!hit) return undefined
    if (hit.until > now) return hit.caller
    this.entries.delete(key)
    return undefined
  }

  set(key: string, caller: Caller, generation: number, now = Date.now()): void {
    if (generation !== this.generation || this.deaf) return
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
    this.entries.set(key, { caller, until: now + CALLER_CACHE_SECONDS * 1000 })
  }

  /** after any change to users, tokens or sessions made by this app: authenticate from the database again */
  forget(): void {
    this.generation++
    this.entries.clear()
  }

  /** forget the entries of user `id` (any answer being read now is not stored either) */
  forgetUser(id: number): void {
    this.generation++
    for (const [key, entry] of this.entries) if (entry.caller.id === id) this.entries.delete(key)
  }

  /** deaf: forget everything and remember nothing until hearing again; either way, answers read before are not stored */
  setDeaf(deaf: boolean): void {
    this.forget()
    this.deaf = deaf
  }
}

/** Cache key of a credential that must not sit in memory as it is (a Basic header holds a password). */
export function credentialKey(kind: string, secret: string): string {
  return `${kind}:${createHash('sha256').update(secret).digest('base64')}`
}
