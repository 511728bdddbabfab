import { sql, type Kysely } from 'kysely'
import { valueColumns, type Caller, type Flag, type Scope } from '../../access.js'
import type { AnyRow, AnyTables, TableName } from '../../db/schema.js'
import type { Context } from '../../http/endpoint.js'
import { ApiError, MSG } from '../../http/errors.js'
import { parseInput, type InputMode, type ParsedInput, type Referent } from '../../http/fields.js'
import { anyTable, type Db, type Rec, type ResourceDef } from './define.js'
import type { Ask, ScopeAsk } from './accelerators.js'
import type { Records } from './records.js'
import { readable } from './read.js'

// The checks of a write before it is made: every reference names a record the caller can read,
// the caller holds the access rule's flag on the new values, and the fields are valid.

/** Every pk field must name a record the caller can read; otherwise it is reported exactly like a missing one.
 * On update (`existing` given) a reference left as it is stored is not checked again: a caller who may
 * change a shared record can send it back whole even when it points at something only its owner can read.
 * All fields are checked in one statement. */
export async function checkReferences<T extends TableName>(
  db: Db,
  def: ResourceDef<T>,
  caller: Caller,
  items: Record<string, unknown>[],
  existing: Rec<T> | null = null,
  records?: Records,
): Promise<Record<string, string[]>[]> {
  return (await checkAccess(db, def, caller, items, existing, undefined, records)).errors
}

/** checkReferences and, in the same statement, a scope check (`allowed`: null when none was asked). */
async function checkAccess<T extends TableName>(
  db: Db,
  def: ResourceDef<T>,
  caller: Caller,
  items: Record<string, unknown>[],
  existing: Rec<T> | null,
  scopeAsk?: ScopeAsk,
  records?: Records,
): Promise<{ errors: Record<string, string[]>[]; allowed: boolean | null }> {
  const errors: Record<string, string[]>[] = items.map(() => ({}))
  const asks = asksOf(def, items, existing)
  const keys = scopeAsk ? scopeKeys(scopeAsk.scope, scopeAsk.rows) : []
  if (!asks.length && !keys.length) return { errors, allowed: scopeAsk ? true : null }
  const { found, allowed } = await readableIds(
    db,
    def,
    caller,
    asks,
    scopeAsk ? { ...scopeAsk, rows: keys } : undefined,
    records,
  )
  asks.forEach(({ name, kept }, a) => {
    items.forEach((v, i) => {
      if (typeof v[name] === 'number' && v[name] !== kept && !found[a].has(v[name] as number))
        errors[i][name] = [MSG.pkMissing(v[name])]
    })
  })
  return { errors, allowed: scopeAsk ? allowed : null }
}

/** The references to check: per pk field, the distinct ids the items give (on update, but the one kept). */
export function asksOf<T extends TableName>(
  def: ResourceDef<T>,
  items: Record<string, unknown>[],
  existing: Rec<T> | null = null,
): Array<Ask & { kept: number | null }> {
  const asks: Array<Ask & { kept: number | null }> = []
  for (const [name, f] of referenceFields(def)) {
    const kept = existing && f.column ? Number(existing[f.column]) : null
    const ids = [...new Set(items.map((v) => v[name]).filter((v): v is number => typeof v === 'number' && v !== kept))]
    if (ids.length) asks.push({ name, kept, target: f.target!(), ids })
  }
  return asks
}

/** The fields whose values are references a write's checks ask about: the pk fields with a target a body may set. */
export const referenceFields = <T extends TableName>(def: ResourceDef<T>) =>
  Object.entries(def.fields).filter(([, f]) => f.type === 'pk' && f.target && !f.readOnly)

/** The rows with distinct values in the scope's columns. */
export function scopeKeys(scope: Scope, rows: AnyRow[]): AnyRow[] {
  const seen = new Map<string, AnyRow>()
  for (const row of rows) {
    const key = scopeKey(scope, row)
    if (!seen.has(key)) seen.set(key, row)
  }
  return [...seen.values()]
}

/** A row's values in the scope's columns as one string (distinct values, distinct strings). */
export function scopeKey(scope: Scope, row: AnyRow): string {
  let key = ''
  for (const c of scope.columns) {
    const v = row[c]
    key += (v === null || v === undefined ? 'null' : typeof v === 'number' ? String(v) : JSON.stringify(v)) + ','
  }
  return key
}

/** How many rows the check statement answers when every check passes: one per id asked, one per scope row. */
export const checkCount = (asks: Array<{ ids: number[] }>, scopeAsk: ScopeAsk | undefined): number =>
  asks.reduce((n, a) => n + a.ids.length, 0) + (scopeAsk?.rows.length ?? 0)

/** Which of `ids` of each target the caller can read, and whether it holds the flag on every scope row:
 * one statement (a union of one select per target and one per scope row). */
async function readableIds<T extends TableName>(
  db: Db,
  def: ResourceDef<T>,
  caller: Caller,
  asks: Ask[],
  scopeAsk?: ScopeAsk,
  records?: Records,
): Promise<{ found: Set<number>[]; allowed: boolean }> {
  const found = asks.map(() => new Set<number>())
  let allowedRows = 0
  const planned = records?.checks(def, caller, asks, scopeAsk)
  const rows = planned
    ? (await db.executeQuery<AnyRow>(planned)).rows
    : await checkUnion(anyTable(db), caller, asks, scopeAsk).execute()
  for (const r of rows) {
    if (r.ask === -1) allowedRows++
    else found[r.ask as number].add(Number(r.id))
  }
  return { found, allowed: allowedRows === (scopeAsk?.rows.length ?? 0) }
}

/** The check statement, not compiled: a row (ask, id) per readable id, and (-1, k) per allowed scope row k.
 * At least one ask or scope row. */
export function checkUnion(
  db: Kysely<AnyTables>,
  caller: Caller,
  asks: Array<{ target: Referent; ids: number[] }>,
  scopeAsk?: ScopeAsk,
) {
  const selects = asks.map(({ target, ids }, a) =>
    readable(db, target, caller)
      .select([sql<number>`${a}::int`.as('ask'), 'r.id'])
      .where(sql<boolean>`r.id = any(${ids}::int[])`),
  )
  // a scope row answers (-1, its index) when allowed
  for (const [k, row] of (scopeAsk?.rows ?? []).entries()) {
    selects.push(
      db
        .selectNoFrom([sql<number>`-1`.as('ask'), sql<number>`${k}::int`.as('id')])
        .where((eb) => scopeAsk!.scope.allows(eb, caller, valueColumns(row), scopeAsk!.flag)),
    )
  }
  return selects.slice(1).reduce((u, q) => u.unionAll(q), selects[0])
}

/** Does the caller hold `flag` under `scope` for records with these column values? One query per distinct key. */
export async function scopeAllows(db: Db, scope: Scope, caller: Caller, rows: AnyRow[], flag: Flag): Promise<boolean> {
  if (caller.isAdmin) return true
  const seen = new Set<string>()
  for (const row of rows) {
    const key = scopeKey(scope, row)
    if (seen.has(key)) continue
    seen.add(key)
    const r = await anyTable(db)
      .selectNoFrom((eb) => sql<boolean>`${scope.allows(eb, caller, valueColumns(row), flag)}`.as('ok'))
      .executeTakeFirst()
    if (!r?.ok) return false
  }
  return true
}

export function hasErrors(errors: Record<string, unknown>[]): boolean {
  return errors.some((e) => Object.keys(e).length > 0)
}

/** The items of a write's body parsed by the fields it may set: once, for the accelerators' attempt and the checks
 * alike (validateItems). */
export const parseItems = <T extends TableName>(def: ResourceDef<T>, data: unknown[], mode: InputMode): ParsedInput[] =>
  data.map((d) => parseInput(mode === 'create' ? def.compiled.fields : def.compiled.updatable, d, mode))

/** `scopeOf`: the scope check the caller's write will need, made with the reference checks (see createRecords). */
export async function validateItems<T extends TableName>(
  ctx: Context,
  def: ResourceDef<T>,
  parsed: ParsedInput[],
  mode: InputMode,
  existing: Rec<T> | null,
  scopeOf?: (values: Record<string, unknown>[]) => ScopeAsk,
) {
  const errors = parsed.map((p) => ({ ...p.errors }) as Record<string, string[]>)
  const scopeAsk = scopeOf?.(parsed.filter((p) => !Object.keys(p.errors).length).map((p) => p.values))
  const checked = await checkAccess(
    ctx.db,
    def,
    ctx.caller,
    parsed.map((p) => p.values),
    existing,
    scopeAsk,
    ctx.services.records,
  )
  checked.errors.forEach((e, i) => Object.assign(errors[i], e))
  const scope = scopeAsk ? { keys: scopeKeys(scopeAsk.scope, scopeAsk.rows), allowed: checked.allowed! } : null
  for (let i = 0; i < parsed.length; i++) {
    if (Object.keys(errors[i]).length || !(def.validate || def.checkValues)) continue
    try {
      def.checkValues?.(parsed[i].values, existing)
      await def.validate?.(ctx, parsed[i].values, existing)
    } catch (e) {
      if (e instanceof ApiError && e.statusCode === 400 && !Array.isArray(e.body)) Object.assign(errors[i], e.body)
      else throw e
    }
  }
  if (def.checkStored) {
    const passed = parsed.map((_p, i) => i).filter((i) => !Object.keys(errors[i]).length)
    const found = passed.length
      ? await def.checkStored(
          ctx.db,
          passed.map((i) => parsed[i].values),
          existing,
        )
      : []
    passed.forEach((i, k) => Object.assign(errors[i], found[k]))
  }
  return { values: parsed.map((p) => p.values), errors, scope }
}

/** The items whose fields naming the scope's target have no errors (the target exists and is readable), so
 * whether the caller may write it can be said without revealing anything. */
export function targetKnown<T extends TableName>(
  def: ResourceDef<T>,
  scope: Scope,
  values: Record<string, unknown>[],
  errors: Record<string, string[]>[],
) {
  const names = Object.entries(def.fields)
    .filter(([, f]) => f.column && scope.columns.includes(f.column))
    .map(([n]) => n)
  return values.filter((v, i) => names.every((n) => !errors[i][n] && n in v))
}
