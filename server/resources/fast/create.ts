import { sql, type CompiledQuery } from 'kysely'
import type { Caller } from '../../access.js'
import type { AnyRow, TableName } from '../../db/schema.js'
import type { Context, Result } from '../../http/endpoint.js'
import type { ParsedInput } from '../../http/fields.js'
import { JsonText } from '../../http/jsonText.js'
import { asksOf, checkCount, checkUnion, hasErrors, scopeKey } from '../core/checks.js'
import type { Ask, ScopeAsk, CreateOf } from '../core/accelerators.js'
import { recs, type Db, type Rec, type ResourceDef } from '../core/define.js'
import { columnTypes } from '../core/insert.js'
import { render } from '../core/read.js'
import { checkSlots, kindsOf, standInChecks } from './checks.js'
import { cacheableKinds, isSlot, valueKind } from './valueKinds.js'
import { Coalescers, type Coalescer } from '../../db/coalesce.js'
import { rowError } from '../../db/rowError.js'
import { asksOver, batchable, insertBatch } from './createBatch.js'
import { bind, planStatement, type Plan, type StatementCache } from './statements.js'
import { callerKey, compiler, type CallerKind } from '../core/standIns.js'
import type { NarrowedFirst } from './narrowed.js'

// The common success case of creating one record in one round trip: the reference and access checks
// and the INSERT are one statement, which inserts only when every check passed
//   with chk as (<the checks>) insert into t (…) select $… where (select count(*) from chk) = <checks>
//     [and <the resource's checks against stored records, its storedCondition>]
// When it inserts nothing, the create is made again the ordinary way (createRecords), whose checks say
// exactly what failed, with the same errors as ever. The statement is compiled once per shape with
// stand-ins (statements.ts): the checks' shape, the columns given and the kind of each value.
// It is made first for the caller narrowed to what it owns (narrowed.ts).

/** What a single create needs of its accelerators: the plans and the narrowed-first memory. */
export interface CreateState {
  plans: StatementCache<Plan>
  narrowed: NarrowedFirst
  batches: CreateBatches
}

/** Whether a resource's single creates may be made in one statement: none of the hooks that run between the
 * checks and the INSERT, or after it (transform, validate, afterWrite), nor a handler of its own. */
export const createsInOne = <T extends TableName>(def: ResourceDef<T>): boolean =>
  !def.transform && !def.afterWrite && !def.validate && !def.createHandler

/** The answer of a single create (its body, not an array, as the plain create parsed it) made in one statement
 * with its checks; null when the resource or the request does not fit one, or a check did not pass (nothing was
 * written: the plain create, with the same parsed values, says what failed). */
export async function fastCreate<T extends TableName>(
  state: CreateState,
  ctx: Context,
  def: ResourceDef<T>,
  parsed: ParsedInput,
  of: CreateOf,
): Promise<Result | null> {
  if (!createsInOne(def)) return null
  if (
    Object.keys(parsed.errors).length ||
    !valuesPass(def, parsed.values) ||
    // the checks against stored records are made by the statement itself when the resource says how (storedCondition)
    (!def.storedCondition && hasErrors((await def.checkStored?.(ctx.db, [parsed.values], null)) ?? []))
  )
    return null
  const created = await insertChecked(
    state,
    ctx.db,
    def,
    ctx.caller,
    parsed.values,
    of.row(parsed.values),
    of.scopeAsk(parsed.values),
  )
    // a record referred to went while the statement ran (its trigger found it gone): the plain create says which
    .catch((e: unknown) => {
      if ((e as { code?: unknown } | null)?.code === '23503') return null
      throw e
    })
  if (!created) return null
  return {
    status: 201,
    body: 'json' in created ? new JsonText(created.json) : (await render(ctx, def, [created.row]))[0],
  }
}

/** Do the values pass the resource's checks of values alone (checkValues)? The plain path runs them after the
 * reference and access checks; being pure, they are run here before the one statement that makes those checks
 * and the INSERT together. When they do not pass, nothing is written, and the plain create runs them again in
 * their place and says what failed, so the errors and their order are the plain path's. */
export function valuesPass<T extends TableName>(def: ResourceDef<T>, values: Record<string, unknown>): boolean {
  try {
    def.checkValues?.(values, null)
    return true
  } catch {
    return false
  }
}

/** most scope rows a cached shape has: one create has one */
const SCOPE_ROWS = 1

/** A record a single create inserted: as the JSON text of its answer, written by the database, when the
 * resource's records are written so (`compiled.json.returned`, as a detail is, detail.ts), else as its row. */
export type Inserted<T extends TableName> = { json: string } | { row: Rec<T> }

/** The record inserted, or null when a check did not pass or the create does not fit one statement
 * (then nothing was written). `values`: the parsed wire values; `row`: their columns as stored. */
export async function insertChecked<T extends TableName>(
  state: CreateState,
  db: Db,
  def: ResourceDef<T>,
  caller: Caller,
  values: Record<string, unknown>,
  row: AnyRow,
  scopeAsk: ScopeAsk | undefined,
): Promise<Inserted<T> | null> {
  const shape = shapeOf(def, values, row, scopeAsk)
  if (!shape) return null
  const insert = (as: Caller): Promise<Inserted<T> | null> => {
    if (!batchable(def)) return insertOne(state.plans, db, def, as, shape, row)
    // made with the creates of the same caller, shape and scope values that arrive meanwhile (createBatch.ts)
    const key = `${as.id}|${callerKey(as)}|${shapeKey(shape)}|${scopeAsk?.rows.map((r) => scopeKey(scopeAsk.scope, r)).join('|') ?? ''}`
    return (state.batches.of(db, def) as Coalescer<AnyRow, Inserted<T> | null>).submit(key, row, (rows) =>
      insertRows(state.plans, db, def, as, shape, rows),
    )
  }
  // a record inserted is the answer; nothing inserted is asked again under the whole rule
  return state.narrowed.ask(
    caller,
    insert,
    (created) => created !== null,
    (created) => created !== null,
  )
}

/** One create alone: its checks and INSERT in one statement. */
async function insertOne<T extends TableName>(
  plans: StatementCache<Plan>,
  db: Db,
  def: ResourceDef<T>,
  as: Caller,
  shape: Shape,
  row: AnyRow,
): Promise<Inserted<T> | null> {
  const plan = planOf(plans, def, as, shape)
  const query: CompiledQuery<AnyRow> = plan
    ? bind(plan, slotValues(as, shape, shape.scopeAsk, row))
    : compileInsert(def, as, shape.asks, shape.scopeAsk, row, shape.columns)
  const inserted = (await db.executeQuery(query)).rows[0]
  if (!inserted) return null
  return typeof inserted.__json === 'string' ? { json: inserted.__json } : { row: recs<T>([inserted])[0] }
}

/** The creates of a batch (rows of one caller, shape and scope values): one alone, several in one
 * statement; when that inserts nothing (a check of one of them did not pass) or fails, each alone, so
 * that each gets its own answer or error. */
function insertRows<T extends TableName>(
  plans: StatementCache<Plan>,
  db: Db,
  def: ResourceDef<T>,
  as: Caller,
  shape: Shape,
  rows: AnyRow[],
): Array<Promise<Inserted<T> | null>> {
  if (rows.length === 1) return [insertOne(plans, db, def, as, shape, rows[0])]
  // each row's own shape: the same, with the ids its references name
  const own = (row: AnyRow): Shape => ({ ...shape, asks: asksOver(def, shape.asks, [row]) })
  const batch = insertBatch(plans, db, def, shapeKey(shape), { ...shape, caller: as }, rows)
  return rows.map((row, i) =>
    batch.then(
      (answers) => (answers ? { json: answers[i] } : insertOne(plans, db, def, as, own(row), row)),
      (e: unknown) => (rowError(e) ? insertOne(plans, db, def, as, own(row), row) : Promise.reject(e)),
    ),
  )
}

/** the batches of single creates being made: one of a key at once, at most 250 creates each (docs/decisions.md §13) */
export const createBatches = () => new Coalescers<AnyRow, Inserted<TableName> | null>(1, 250)
export type CreateBatches = ReturnType<typeof createBatches>

/** What a create's statement is compiled for: the references checked, the kind of each scope value and
 * of each column's value. */
interface Shape {
  asks: Ask[]
  kinds: string[]
  columns: string[]
  rowKinds: string
  scopeAsk: ScopeAsk | undefined
}

/** The create's shape, or null when it does not fit one statement. */
function shapeOf<T extends TableName>(
  def: ResourceDef<T>,
  values: Record<string, unknown>,
  row: AnyRow,
  scopeAsk: ScopeAsk | undefined,
): Shape | null {
  const asks = asksOf(def, [values])
  const rows = scopeAsk?.rows ?? []
  if (!asks.length && !rows.length) return null
  if (rows.length > SCOPE_ROWS || asks.some((a) => a.ids.length !== 1)) return null
  const types = columnTypes(def)
  const columns = Object.keys(row)
  if (columns.some((c) => !types.has(c))) return null
  const kinds = kindsOf(scopeAsk)
  const rowKinds = columns.map((c) => valueKind(row[c])).join('')
  if (!kinds.every(cacheableKinds) || !cacheableKinds(rowKinds)) return null
  return { asks, kinds, columns, rowKinds, scopeAsk }
}

/** The cached plan of a create's statement (see insertChecked); null when it may not be cached, or the
 * create does not fit one statement. */
export function insertPlan<T extends TableName>(
  def: ResourceDef<T>,
  kind: CallerKind,
  values: Record<string, unknown>,
  row: AnyRow,
  scopeAsk?: ScopeAsk,
): Plan | null {
  const shape = shapeOf(def, values, row, scopeAsk)
  return shape && planInsert(def, kind, shape)
}

function planOf<T extends TableName>(
  plans: StatementCache<Plan>,
  def: ResourceDef<T>,
  kind: CallerKind,
  shape: Shape,
): Plan | null {
  return plans.get(def, kind, `create|${shapeKey(shape)}`, () => planInsert(def, kind, shape))
}

/** What a create's statement depends on besides its slots' values and the kind of caller: its shape. */
function shapeKey({ asks, kinds, columns, rowKinds, scopeAsk }: Shape): string {
  return `${scopeAsk?.flag ?? ''}|${asks.map((a) => a.name).join(',')}|${kinds.join(',')}|${columns.join(',')}|${rowKinds}`
}

/** The slots of a shape: the check's (checkSlots), then the row's numbers and texts, in that order. */
function slotValues(caller: Caller, shape: Shape, scopeAsk: ScopeAsk | undefined, row: AnyRow): unknown[] {
  const out = checkSlots(caller, shape.asks, scopeAsk, shape.kinds)
  shape.columns.forEach((c, i) => {
    if (isSlot(shape.rowKinds[i])) out.push(row[c])
  })
  return out
}

function planInsert<T extends TableName>(def: ResourceDef<T>, kind: CallerKind, shape: Shape): Plan | null {
  const { asks, kinds, columns, rowKinds, scopeAsk } = shape
  const sets = ([0, 1] as const).map((set) => {
    const checks = standInChecks(set, kind, asks, scopeAsk, kinds)
    const row = Object.fromEntries(columns.map((c, i) => [c, checks.value(rowKinds[i])]))
    return { ...checks, shape: { ...shape, asks: checks.asks }, row }
  })
  return planStatement(
    [sets[0], sets[1]],
    (s) => slotValues(s.caller, s.shape, s.scopeAsk, s.row),
    (s) => compileInsert(def, s.caller, s.shape.asks, s.scopeAsk, s.row, columns),
  )
}

function compileInsert<T extends TableName>(
  def: ResourceDef<T>,
  caller: Caller,
  asks: Ask[],
  scopeAsk: ScopeAsk | undefined,
  row: AnyRow,
  columns: string[],
): CompiledQuery<AnyRow> {
  const types = columnTypes(def)
  const checks = checkCount(asks, scopeAsk)
  const table: string = def.table
  // a column's value as the row gives it, of its column's type (null when the row does not give it)
  const value = (c: string) =>
    c in row ? sql`${row[c]}::${sql.raw(types.get(c)!)}` : sql`null::${sql.raw(types.get(c)!)}`
  const insert = compiler
    .with('chk', () => checkUnion(compiler, caller, asks, scopeAsk))
    .insertInto(table)
    .columns(columns)
    .expression(
      compiler
        .selectNoFrom(columns.map((c) => value(c).as(c)))
        .where(sql<boolean>`(select count(*) from chk) = ${checks}`)
        .$if(def.storedCondition !== undefined, (q) => q.where(def.storedCondition!(value))),
    )
  // the inserted row is named by its table in RETURNING
  const json = def.compiled.json.returned
  return (
    json
      ? insert.returning(sql<string>`(select row_to_json(j)::text from (${json}) as j)`.as('__json'))
      : insert.returningAll()
  ).compile() as CompiledQuery<AnyRow>
}
