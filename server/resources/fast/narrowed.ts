import { ownedOnly, type Caller } from '../../access.js'

// The most frequent statements (a record fetch, a single create) are made first for the caller narrowed to
// what it owns (access.ts, ownedOnly), whose rule has none of the grant and group subqueries: PostgreSQL
// sets those up at every execution even when it never runs them, and most requests are about the
// caller's own records (docs/decisions.md §12). What the narrowed rule refuses is asked again under the
// whole rule. A caller whose request the whole rule then allowed is remembered, and its requests go
// straight to the whole rule; what is remembered only chooses which statement runs first, and both check
// everything they allow.

/** users remembered at most; past it the memory starts again */
const USES_GRANTS_MAX = 10_000

/** Asks made narrowed first, with the memory of the callers who needed the whole rule (one per app). */
export class NarrowedFirst {
  readonly #usesGrants = new Set<number>()

  /** The answer of `ask` for the caller: first for the caller narrowed to what it owns (unless it is a site
   * admin or is remembered as needing grants), then, unless `final` says the narrowed answer is the whole
   * one, under the whole rule. `gained`: did the whole rule allow what the narrowed one refused? */
  async ask<A>(
    caller: Caller,
    ask: (as: Caller) => Promise<A>,
    final: (narrowed: A) => boolean,
    gained: (whole: A, narrowed: A) => boolean,
  ): Promise<A> {
    if (caller.isAdmin || caller.ownedOnly || this.#usesGrants.has(caller.id)) return ask(caller)
    const narrowed = await ask(ownedOnly(caller))
    if (final(narrowed)) return narrowed
    const whole = await ask(caller)
    if (gained(whole, narrowed)) {
      if (this.#usesGrants.size >= USES_GRANTS_MAX) this.#usesGrants.clear()
      this.#usesGrants.add(caller.id)
    }
    return whole
  }
}
