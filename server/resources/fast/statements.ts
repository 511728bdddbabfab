import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
} from 'kysely'
import type { Caller } from '../../access.js'
import type { AnyRow, AnyTables } from '../../db/schema.js'

// The one cache of statements compiled once per shape, and the stand-in technique it rests on (docs/decisions.md
// §14). The most frequent statements (a record fetch, the reference and
// access checks of a write) have SQL that depends on the request only through a few values (the caller's
// id, the record's id, the ids a write names). Such a statement is built and compiled once with stand-ins
// for those values, which each request then puts back in the parameters. It fails closed: the statement
// is compiled for two sets of stand-ins (distinct values, other usernames) and kept only when the two
// compilations differ in nothing but the stand-ins' parameters, each where the other has its own. A
// statement that uses anything else of the request (the caller's username, or a value written into the
// SQL) is compiled again for every request (docs/decisions.md §6).

/** Builds and compiles PostgreSQL statements; never connects (both database kinds speak PostgreSQL's SQL). */
export const compiler = new Kysely<AnyTables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
})

/** A statement compiled once: for each slot (a value each request gives), its parameter positions. */
export interface Plan {
  query: CompiledQuery<AnyRow>
  at: number[][]
}

/** The stand-in for slot `k` of stand-in set `set` (0 or 1): distinct from every other stand-in and from
 * any id or value a request gives (ids are positive; negative values this size are not written). */
export const standInNumber = (set: 0 | 1, k: number): number => -1_987_654_321 - 2 * k - set
export const standInText = (set: 0 | 1, k: number): string => `stand-in ${set} value ${k}`
/** What a statement may depend on of its caller besides the caller's id: part of every plan's key. */
export type CallerKind = Pick<Caller, 'isAdmin' | 'ownedOnly'>
export const callerKey = (caller: CallerKind): string => (caller.isAdmin ? 'admin' : caller.ownedOnly ? 'owned' : 'any')

/** The stand-in caller of a set, of the given kind: its id is slot 0's stand-in number; its username
 * differs between sets. */
export const standInCaller = (set: 0 | 1, kind: CallerKind): Caller => ({
  id: standInNumber(set, 0),
  username: `stand-in caller ${set}`,
  isAdmin: kind.isAdmin,
  ownedOnly: kind.ownedOnly,
})

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
