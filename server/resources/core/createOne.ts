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
  const shape = shapeOf(def, values, row, scopeAsk)
  if (!shape) return null
  const plan = planOf(def, caller.isAdmin, shape)
  const query: CompiledQuery<AnyRow> = plan ? bind(plan, slotValues(caller, shape, scopeAsk, row))
    : compileInsert(def, caller, shape.asks, scopeAsk, row, shape.columns)
  return recs<T>((await db.executeQuery(query)).rows)[0] ?? null
}

/** What a create's statement is compiled for: the references checked, the kind of each scope value and
 * of each column's value. */
interface Shape { asks: Ask[]; kinds: string[]; columns: string[]; rowKinds: string; scopeAsk: ScopeAsk | undefined }

/** The create's shape, or null when it does not fit one statement. */
function shapeOf<T extends TableName>(def: ResourceDef<T>, values: Record<string, unknown>, row: AnyRow, scopeAsk: ScopeAsk | undefined): Shape | null {
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
  return { asks, kinds, columns, rowKinds, scopeAsk }
}

/** The cached plan of a create's statement (see insertChecked); null when it may not be cached, or the
 * create does not fit one statement. */
export function insertPlan<T extends TableName>(def: ResourceDef<T>, isAdmin: boolean, values: Record<string, unknown>, row: AnyRow,
  scopeAsk?: ScopeAsk): Plan | null {
  const shape = shapeOf(def, values, row, scopeAsk)
  return shape && planOf(def, isAdmin, shape)
}

function planOf<T extends TableName>(def: ResourceDef<T>, isAdmin: boolean, shape: Shape): Plan | null {
  let plans = insertPlans.get(def)
  if (!plans) insertPlans.set(def, plans = new Map())
  const { asks, kinds, columns, rowKinds, scopeAsk } = shape
  const key = `${isAdmin}|${scopeAsk?.flag ?? ''}|${asks.map((a) => a.name).join(',')}|${kinds.join(',')}|${columns.join(',')}|${rowKinds}`
  let plan = plans.get(key)
  if (plan === undefined) plans.set(key, plan = planInsert(def, isAdmin, shape))
  return plan
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
function slotValues(caller: Caller, shape: Shape, scopeAsk: ScopeAsk | undefined, row: AnyRow): unknown[] {
  const out: unknown[] = [caller.id, ...shape.asks.map((a) => a.ids)]
  const scopeColumns = scopeAsk?.scope.columns ?? []
  ;(scopeAsk?.rows ?? []).forEach((r, i) => scopeColumns.forEach((c, j) => { if (shape.kinds[i][j] !== 'z') out.push(r[c]) }))
  shape.columns.forEach((c, i) => { if (shape.rowKinds[i] === 'n' || shape.rowKinds[i] === 's') out.push(row[c]) })
  return out
}

function planInsert<T extends TableName>(def: ResourceDef<T>, isAdmin: boolean, shape: Shape): Plan | null {
  const { asks, kinds, columns, rowKinds, scopeAsk } = shape
  const scopeColumns = scopeAsk?.scope.columns ?? []
  const sets = ([0, 1] as const).map((set) => {
    let k = 1
    const next = (kind: string) => kind === 'n' ? standInNumber(set, k++) : kind === 's' ? standInText(set, k++)
      : kind === 't' ? true : kind === 'f' ? false : null
    const standInAsks = asks.map((a) => ({ ...a, ids: [standInNumber(set, k++)] }))
    const rows = kinds.map((kind) => Object.fromEntries(scopeColumns.map((c, i) => [c, next(kind[i])])))
    const row = Object.fromEntries(columns.map((c, i) => [c, next(rowKinds[i])]))
    return { caller: standInCaller(set, isAdmin), shape: { ...shape, asks: standInAsks }, scopeAsk: scopeAsk && { ...scopeAsk, rows }, row }
  })
  return planStatement([sets[0], sets[1]],
    (s) => slotValues(s.caller, s.shape, s.scopeAsk, s.row),
    (s) => compileInsert(def, s.caller, s.shape.asks, s.scopeAsk, s.row, columns))
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
