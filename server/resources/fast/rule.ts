import { sql, type RawBuilder, type SqlBool } from 'kysely'
import { rowColumns, type Caller, type Flag } from '../../access.js'
import type { Referent } from '../../http/fields.js'
import { planStatement, type Plan, type StatementCache } from './statements.js'
import { compiler, standInCaller } from '../core/standIns.js'

// A resource's access rule for a caller, as SQL compiled once per resource, flag and kind of caller
// (statements.ts): the rule of a record `r` is the largest part of most statements (a tag set's is an owner,
// a library and a grant with its groups), and building it with the query builder at every request cost more
// than the rest of a page of tags (docs/decisions.md §14). The compiled rule is kept as its SQL text split at
// its parameters; each use puts the caller's id back where the stand-ins' ids were. A rule that uses more of
// the caller than its id is built at every use.

/** A rule compiled once: its SQL between its parameters, and each parameter (null where the caller's id goes). */
export interface CompiledRule {
  pieces: string[]
  values: Array<RawBuilder<unknown> | null>
}

/** The rule of `def` on the record `r` for `caller` and `flag` as one SQL expression (in parentheses), or null
 * when it cannot be compiled once (the caller builds it: `def.scope.allows`). */
export function compiledRule(
  rules: StatementCache<CompiledRule>,
  def: Referent,
  caller: Caller,
  flag: Flag,
): RawBuilder<SqlBool> | null {
  const rule = rules.get(def, caller, flag, () => compileRule(def, caller, flag))
  if (!rule) return null
  const parts: RawBuilder<unknown>[] = [sql.raw(rule.pieces[0])]
  rule.values.forEach((value, i) => parts.push(value ?? sql.val(caller.id), sql.raw(rule.pieces[i + 1])))
  return sql<SqlBool>`(${sql.join(parts, sql.raw(''))})`
}

function compileRule(def: Referent, kind: Caller, flag: Flag): CompiledRule | null {
  const records = compiler.selectFrom(`${def.table} as r`).selectAll('r')
  const prefix = `${records.compile().sql} where `
  const plan: Plan | null = planStatement(
    ([0, 1] as const).map((set) => standInCaller(set, kind)) as [Caller, Caller],
    (c) => [c.id],
    (c) => records.where((eb) => def.scope.allows(eb, c, rowColumns('r'), flag)).compile(),
  )
  if (!plan || !plan.query.sql.startsWith(prefix)) return null
  const text = plan.query.sql.slice(prefix.length)
  // the text between $1, $2, ... in their order; anything else (a `$` of the rule's own) is not split here
  const pieces = text.split(/\$\d+/)
  const numbers = [...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]))
  const { parameters } = plan.query
  if (numbers.length !== parameters.length || numbers.some((n, i) => n !== i + 1)) return null
  const callerAt = new Set(plan.at[0])
  return { pieces, values: parameters.map((p, i) => (callerAt.has(i) ? null : sql.val(p))) }
}
