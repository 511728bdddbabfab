import type { CompiledQuery } from 'kysely'
import type { AnyRow } from '../../db/schema.js'
import { callerKey, type CallerKind } from '../core/standIns.js'

// The one cache of statements compiled once per shape, and the stand-in technique it rests on (docs/decisions.md
// §14). The most frequent statements (a record fetch, the reference and
// access checks of a write) have SQL that depends on the request only through a few values (the caller's
// id, the record's id, the ids a write names). Such a statement is built and compiled once with stand-ins
// for those values, which each request then puts back in the parameters. It fails closed: the statement
// is compiled for two sets of stand-ins (distinct values, other usernames) and kept only when the two
// compilations differ in nothing but the stand-ins' parameters, each where the other has its own. A
// statement that uses anything else of the request (the caller's username, or a value written into the
// SQL) is compiled again for every request (docs/decisions.md §6).

/** A statement compiled once: for each slot (a value each request gives), its parameter positions. */
export interface Plan {
  query: CompiledQuery<AnyRow>
  at: number[][]
}

/** Compiles `compile(set)` for both stand-in sets; the plan, or null when the statement depends on the
 * request beyond the slots' parameters. `slots(set)` are the stand-in values compile put in, compared by
 * identity (an array stand-in is found as the very array given). */
export function planStatement<S>(
  sets: readonly [S, S],
  slots: (set: S) => readonly unknown[],
  compile: (set: S) => CompiledQuery,
): Plan | null {
  const [a, b] = sets.map(compile)
  if (a.sql !== b.sql || a.parameters.length !== b.parameters.length) return null
  const [sa, sb] = sets.map(slots)
  const at: number[][] = sa.map(() => [])
  for (let i = 0; i < a.parameters.length; i++) {
    const pa = a.parameters[i]
    const pb = b.parameters[i]
    const k = sa.findIndex((s, j) => pa === s && pb === sb[j])
    if (k >= 0) at[k].push(i)
    else if (pa !== pb && JSON.stringify(pa) !== JSON.stringify(pb)) return null
    else if (sa.includes(pa) || sb.includes(pb)) return null
  }
  return { query: a as CompiledQuery<AnyRow>, at }
}

/** The plan's statement with each slot's value of this request. */
export function bind(plan: Plan, values: readonly unknown[]): CompiledQuery<AnyRow> {
  const parameters = plan.query.parameters.slice()
  plan.at.forEach((positions, k) => {
    for (const i of positions) parameters[i] = values[k]
  })
  return { ...plan.query, parameters }
}

/** What is kept per owner (a resource, or a statement family of one module) and key: a plan, or null when the
 * statement may not be compiled once (then it is compiled for every request). */
export class StatementCache<V> {
  readonly #byOwner = new WeakMap<object, Map<string, V | null>>()

  /** `max`: entries kept per owner; past it, a shape not kept is answered null (compiled for its request). */
  constructor(readonly max: number) {}

  /** The entry of `owner` for a caller of this kind and a shape (everything else the statement depends on
   * besides its slots' values): made by `make` the first time. The key always begins with the kind of caller,
   * so a statement made for one kind is never served to another. */
  get(owner: object, kind: CallerKind, shape: string, make: () => V | null): V | null {
    let entries = this.#byOwner.get(owner)
    if (!entries) this.#byOwner.set(owner, (entries = new Map()))
    const key = `${callerKey(kind)}|${shape}`
    let entry = entries.get(key)
    if (entry === undefined) {
      if (entries.size >= this.max) return null
      entries.set(key, (entry = make()))
    }
    return entry
  }
}
