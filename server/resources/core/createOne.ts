import { sql, type CompiledQuery } from 'kysely'
import type { Caller } from '../../access.js'
import type { AnyRow, TableName } from '../../db/schema.js'
import { asksOf, checkUnion, kindsOf, type Ask, type ScopeAsk } from './checks.js'
import { bind, compiler, planStatement, standInCaller, standInNumber, standInText, type Plan } from './compiled.js'
import { recs, type Db, type Rec, type ResourceDef } from './define.js'
import { columnTypes } from './insert.js'

// The common success case of creating one record in one round trip: the reference and access checks
// and the INSERT are one statement, which inserts only when every check passed
//   with chk as (<the checks>) insert into t (…) select $… where (select count(*) from chk) = <checks>
// When it inserts nothing, the create is made again the ordinary way (createRecords), whose checks say
// exactly what failed, with the same errors as ever. The statement is compiled once per shape with
// stand-ins (compiled.ts): the checks' shape, the columns given and the kind of each value.

/** most scope rows a cached shape has: one create has one */
const SCOPE_ROWS = 1

/** The record inserted, or null when a check did not pass or the create does not fit one statement
 * (then nothing was written). `values`: the parsed wire values; `row`: their columns as stored. */
export async function insertChecked<T extends TableName>(db: Db, def: ResourceDef<T>, caller: Caller, values: Record<string, unknown>,
  row: AnyRow, scopeAsk: ScopeAsk | undefined): Promise<Rec<T> | null> {
  const asks = asksOf(def, [values])
  const rows = scopeAsk?.rows ?? []
  if (!asks.length && !rows.length) return null
  if (rows.length > SCOPE_ROWS || asks.some((a) => a.ids.length !== 1)) return null
  const types = columnTypes(def)
  const columns = Object.keys(row)
  if (columns.some((c) => !types.has(c))) return null
  const kinds = kindsOf(scopeAsk)
  const rowKinds = columns.map((c) => valueKind(row[c])).join('')
  if (kinds.some((k) => k.includes('?')) || rowKinds.includes('?')) return null
  let plans = insertPlans.get(def)
  if (!plans) insertPlans.set(def, plans = new Map())
  const key = `${caller.isAdmin}|${scopeAsk?.flag ?? ''}|${asks.map((a) => a.name).join(',')}|${kinds.join(',')}|${columns.join(',')}|${rowKinds}`
  let plan = plans.get(key)
  if (plan === undefined) plans.set(key, plan = planInsert(def, caller.isAdmin, asks, scopeAsk, kinds, columns, rowKinds))
  const query: CompiledQuery<AnyRow> = plan ? bind(plan, slotValues(caller, asks, scopeAsk, kinds, row, columns, rowKinds))
    : compileInsert(def, caller, asks, scopeAsk, row, columns)
  return recs<T>((await db.executeQuery(query)).rows)[0] ?? null
}

/** per resource: the plan of each shape, or null when it may not be cached */
const insertPlans = new WeakMap<object, Map<string, Plan | null>>()

/** 'z' null, 'n' number, 's' text, 't'/'f' a boolean (written into the key, not a slot); '?' anything else */
function valueKind(v: unknown): string {
  return v === null || v === undefined ? 'z' : typeof v === 'number' ? 'n' : typeof v === 'string' ? 's'
    : v === true ? 't' : v === false ? 'f' : '?'
}

/** The slots of a shape: the caller's id, each reference's array of ids, the scope row's values that are
 * not null, then the row's numbers and texts, in that order. */
function slotValues(caller: Caller, asks: Ask[], scopeAsk: ScopeAsk | undefined, kinds: string[], row: AnyRow, columns: string[], rowKinds: string[] | string): unknown[] {
  const out: unknown[] = [caller.id, ...asks.map((a) => a.ids)]
  const scopeColumns = scopeAsk?.scope.columns ?? []
  ;(scopeAsk?.rows ?? []).forEach((r, i) => scopeColumns.forEach((c, j) => { if (kinds[i][j] !== 'z') out.push(r[c]) }))
  columns.forEach((c, i) => { if (rowKinds[i] === 'n' || rowKinds[i] === 's') out.push(row[c]) })
  return out
}

function planInsert<T extends TableName>(def: ResourceDef<T>, isAdmin: boolean, asks: Ask[], scopeAsk: ScopeAsk | undefined,
  kinds: string[], columns: string[], rowKinds: string): Plan | null {
  const scopeColumns = scopeAsk?.scope.columns ?? []
  const sets = ([0, 1] as const).map((set) => {
    let k = 1
    const next = (kind: string, constant: unknown) => kind === 'n' ? standInNumber(set, k++) : kind === 's' ? standInText(set, k++)
      : kind === 't' ? true : kind === 'f' ? false : constant
    const standInAsks = asks.map((a) => ({ ...a, ids: [standInNumber(set, k++)] }))
    const rows = kinds.map((kind) => Object.fromEntries(scopeColumns.map((c, i) => [c, next(kind[i], null)])))
    const row = Object.fromEntries(columns.map((c, i) => [c, next(rowKinds[i], null)]))
    const caller = standInCaller(set, isAdmin)
    return { caller, asks: standInAsks, scopeAsk: scopeAsk && { ...scopeAsk, rows }, row }
  })
  return planStatement([sets[0], sets[1]],
    (s) => slotValues(s.caller, s.asks, s.scopeAsk, kinds, s.row, columns, rowKinds),
    (s) => compileInsert(def, s.caller, s.asks, s.scopeAsk, s.row, columns))
}

function compileInsert<T extends TableName>(def: ResourceDef<T>, caller: Caller, asks: Ask[], scopeAsk: ScopeAsk | undefined,
  row: AnyRow, columns: string[]): CompiledQuery<AnyRow> {
  const types = columnTypes(def)
  const checks = asks.reduce((n, a) => n + a.ids.length, 0) + (scopeAsk?.rows.length ?? 0)
  const table: string = def.table
  return compiler.with('chk', () => checkUnion(caller, asks, scopeAsk))
    .insertInto(table)
    .columns(columns)
    .expression(compiler.selectNoFrom(columns.map((c) => sql`${row[c]}::${sql.raw(types.get(c)!)}`.as(c)))
      .where(sql<boolean>`(select count(*) from chk) = ${checks}`))
    .returningAll()
    .compile() as CompiledQuery<AnyRow>
}
