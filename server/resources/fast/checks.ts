import type { CompiledQuery } from 'kysely'
import type { Caller } from '../../access.js'
import type { AnyRow } from '../../db/schema.js'
import { checkUnion } from '../core/checks.js'
import type { Ask, ScopeAsk } from '../core/accelerators.js'
import { bind, planStatement, type Plan, type StatementCache } from './statements.js'
import { compiler, standInCaller, standInNumber, standInText, type CallerKind } from '../core/standIns.js'
import { cacheableKinds, isSlot, VALUE_KIND, valueKind } from './valueKinds.js'

// The check statement of a write (core/checks.ts: references readable, the rule on the new values) compiled once
// per shape (statements.ts): the resource, the fields whose references are checked, the scope, its flag, how many
// scope rows and which of their values are null, numbers or text, and the kind of caller. The slots of a
// shape: the caller's id, each field's array of ids, each scope row's non-null values.

/** most scope rows a cached shape has (a bulk create names a few distinct targets; more compile each time) */
const CACHED_SCOPE_ROWS = 4

/** The check statement of this request from its plan; null when its shape is not planned (the plain path
 * builds it). */
export function plannedCheck(
  plans: StatementCache<Plan>,
  owner: object,
  caller: Caller,
  asks: Ask[],
  scopeAsk?: ScopeAsk,
): CompiledQuery<AnyRow> | null {
  const rows = scopeAsk?.rows ?? []
  const kinds = kindsOf(scopeAsk)
  if (rows.length > CACHED_SCOPE_ROWS || !kinds.every(cacheableKinds)) return null
  const plan = plans.get(
    owner,
    caller,
    `check|${scopeAsk?.flag ?? ''}|${asks.map((a) => a.name).join(',')}|${kinds.join(',')}`,
    () => planCheck(caller, asks, scopeAsk),
  )
  return plan && bind(plan, checkSlots(caller, asks, scopeAsk, kinds))
}

/** The slots of a check statement: the caller's id, each reference's array of ids, each scope row's
 * numbers and texts (`kinds`: kindsOf), in that order. */
export function checkSlots(
  caller: Caller,
  asks: Array<{ ids: number[] }>,
  scopeAsk: ScopeAsk | undefined,
  kinds: string[],
): unknown[] {
  const out: unknown[] = [caller.id, ...asks.map((a) => a.ids)]
  const columns = scopeAsk?.scope.columns ?? []
  ;(scopeAsk?.rows ?? []).forEach((row, r) =>
    columns.forEach((c, i) => {
      if (isSlot(kinds[r][i])) out.push(row[c])
    }),
  )
  return out
}

/** One set of stand-ins for a check statement (see statements.ts): a caller of the kind, one id for each reference,
 * and scope rows of the given kinds. `value` gives the stand-in of the next slot of a kind (a number or a
 * text; a boolean is itself, null null), numbering on after the check's own slots. */
export function standInChecks<A extends { ids: number[] }>(
  set: 0 | 1,
  kind: CallerKind,
  asks: A[],
  scopeAsk: ScopeAsk | undefined,
  kinds: string[],
) {
  let k = 1
  const value = (kind: string) =>
    kind === VALUE_KIND.number
      ? standInNumber(set, k++)
      : kind === VALUE_KIND.text
        ? standInText(set, k++)
        : kind === VALUE_KIND.true
          ? true
          : kind === VALUE_KIND.false
            ? false
            : null
  const standInAsks = asks.map((a) => ({ ...a, ids: [standInNumber(set, k++)] }))
  const columns = scopeAsk?.scope.columns ?? []
  const rows = kinds.map((kind) => Object.fromEntries(columns.map((c, i) => [c, value(kind[i])])))
  return { caller: standInCaller(set, kind), asks: standInAsks, scopeAsk: scopeAsk && { ...scopeAsk, rows }, value }
}

/** Per scope row, the kind of each of its values (valueKinds.ts), joined; a boolean is of no kind cached here. */
export function kindsOf(scopeAsk: ScopeAsk | undefined): string[] {
  const kind = (v: unknown) => (typeof v === 'boolean' ? VALUE_KIND.other : valueKind(v))
  return (scopeAsk?.rows ?? []).map((row) => scopeAsk!.scope.columns.map((c) => kind(row[c])).join(''))
}

/** The check statement compiled (with stand-ins or a request's values). */
export const compileCheck = (
  caller: Caller,
  asks: Array<{ target: Ask['target']; ids: number[] }>,
  scopeAsk?: ScopeAsk,
): CompiledQuery<AnyRow> => checkUnion(compiler, caller, asks, scopeAsk).compile() as CompiledQuery<AnyRow>

/** The check statement of this shape with its slots' positions, or null when it may not be cached. */
export function planCheck(kind: CallerKind, asks: Ask[], scopeAsk?: ScopeAsk): Plan | null {
  const kinds = kindsOf(scopeAsk)
  if (!kinds.every(cacheableKinds)) return null
  const sets = [standInChecks(0, kind, asks, scopeAsk, kinds), standInChecks(1, kind, asks, scopeAsk, kinds)] as const
  return planStatement(
    sets,
    (s) => checkSlots(s.caller, s.asks, s.scopeAsk, kinds),
    (s) => compileCheck(s.caller, s.asks, s.scopeAsk),
  )
}
