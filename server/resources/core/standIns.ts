import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely'
import type { Caller } from '../../access.js'
import type { AnyTables } from '../../db/schema.js'

// How a statement is given to the accelerators to be compiled once (docs/decisions.md §14): built by `compiler`
// with stand-ins for the values each request gives (the caller, ids, texts), so that two builds with different
// stand-ins show where each request's values go. The accelerators' own statements and an endpoint's own (a review
// decision's, through the port's `statement`) are built alike.

/** Builds and compiles PostgreSQL statements; never connects (both database kinds speak PostgreSQL's SQL). */
export const compiler = new Kysely<AnyTables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
})

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
