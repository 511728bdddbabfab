import type { TableName } from '../../db/schema.js'
import { rowError } from '../../db/rowError.js'
import type { Context, Result } from '../../http/endpoint.js'
import { ABSENT, columnValue, fieldInput } from '../../http/fields.js'
import { ColumnRows, type BulkItems } from '../../http/columnRows.js'
import { JsonText } from '../../http/jsonText.js'
import type { Ask, CreateManyOf, ScopeAsk } from '../core/accelerators.js'
import type { ResourceDef } from '../core/define.js'
import { duplicatesOfColumns, identityKey } from '../core/duplicates.js'
import { referenceFields } from '../core/checks.js'
import { kindsOf } from './checks.js'
import { createsInOne, valuesPass, type CreateState } from './create.js'
import { batchable, insertColumns } from './createBatch.js'

// A bulk create (an array body: an import's batch) made in one statement with its checks, as single creates that
// arrive together are (createBatch.ts, docs/decisions.md §13). The items are validated field by field as the plain
// path does (parseInput's rules), each value going straight into its column's array: no record of parsed values,
// errors and columns is kept per item while the batch is written, which was most of a bulk create's garbage
// collection (BENCHMARKS.md). It declines (null, nothing written) whenever the plain path would answer anything but
// the records created (a value, a reference or the caller's right that does not pass, a duplicate to skip), and
// where the batch is not of one shape (every item gives the same fields) or of one scope row (one tag set): the
// plain create then runs, with its own checks and errors.

/** The rows of a bulk create as the plain path would store them: one array of values per column. */
interface Columns {
  names: string[]
  values: unknown[][]
  count: number
}

/** The answer of a bulk create made in one statement with its checks; null when the plain create must make it. */
export async function fastCreateMany<T extends TableName>(
  state: CreateState,
  ctx: Context,
  def: ResourceDef<T>,
  items: BulkItems,
  of: CreateManyOf,
): Promise<Result | null> {
  // the checks against stored records must be the statement's own (storedCondition)
  if (!createsInOne(def) || !batchable(def) || (def.checkStored && !def.storedCondition)) return null
  const columns = columnsOf(def, items, of.now, ctx.caller.id)
  if (!columns) return null
  const scopeAsk = of.scope ? oneScopeRow(columns, of.scope) : undefined
  if (scopeAsk === null) return null
  const asks = asksOf(def, columns)
  if (!asks.length && !scopeAsk) return null
  if (of.onDuplicate === 'skip' && (await anyDuplicate(ctx, def, columns))) return null
  const answer = of.answerIds ? 'id' : 'json'
  const key = `many|${scopeAsk?.flag ?? ''}|${asks.map((a) => a.name).join(',')}|${kindsOf(scopeAsk).join(',')}|${columns.names.join(',')}`
  const shape = { caller: ctx.caller, asks, scopeAsk, columns: columns.names, rowKinds: '' }
  const answers = await insertColumns(state.plans, ctx.db, def, key, shape, columns.values, answer).catch(
    // a record referred to went while the statement ran, or a row the database refuses: the plain create says which
    (e: unknown) => {
      if (rowError(e)) return null
      throw e
    },
  )
  if (!answers) return null
  if (answer === 'json') return { status: 201, body: new JsonText(`[${answers.join(',')}]`) }
  const results = answers.map((id) => ({ id }))
  return { status: 201, body: of.onDuplicate === 'skip' ? { results, skipped: [] } : results }
}

/** The items' columns as the plain create stores them (parseInput's rules in create mode, then toColumns, the
 * owner and the stamps), with each item's values passing the resource's checkValues; null when an item is not an
 * object, gives other fields than the first, or has a value the plain path would refuse. A field every item gives
 * alike (a column-wise body's `same`, or one no item gives: its default) is parsed and stored once. */
function columnsOf<T extends TableName>(
  def: ResourceDef<T>,
  input: BulkItems,
  now: string,
  callerId: number,
): Columns | null {
  const plan = def.compiled.fields
  const items = itemsReader(input, plan.writable)
  if (!items) return null
  const { count, same, first } = items
  const given = plan.writable.filter(
    ([name, f]) => has(same, name) || has(first, name) || f.default !== undefined || f.required,
  )
  const names: string[] = []
  const values: unknown[][] = []
  // the values checkValues reads: the fields alike once, each item's own written over the rest
  const parsed: Record<string, unknown> = {}
  const varying: Array<{ name: string; f: (typeof given)[number][1]; array: unknown[] }> = []
  for (const [name, f] of given) {
    // a field stored elsewhere than in its column is the plain path's
    const column = plan.columns.get(name)
    if (column === undefined) return null
    const array = new Array<unknown>(count)
    names.push(column)
    values.push(array)
    if (has(first, name)) {
      varying.push({ name, f, array })
      continue
    }
    const r = fieldInput(f, same, name, 'create')
    if (r === ABSENT || !r.ok) return null
    parsed[name] = r.value
    array.fill(columnValue(plan, name, r.value))
  }
  for (let i = 0; i < count; i++) {
    const item = items.item(i)
    if (!item) return null
    for (let k = 0; k < varying.length; k++) {
      const { name, f, array } = varying[k]
      const r = fieldInput(f, item, name, 'create')
      if (r === ABSENT || !r.ok) return null
      parsed[name] = r.value
      array[i] = columnValue(plan, name, r.value)
    }
    if (!valuesPass(def, parsed)) return null
  }
  const constant = (column: string, value: unknown, keepGiven: boolean) => {
    const at = names.indexOf(column)
    if (at < 0) {
      names.push(column)
      values.push(new Array<unknown>(count).fill(value))
    } else for (let i = 0; i < count; i++) if (!keepGiven || values[at][i] == null) values[at][i] = value
  }
  if (def.owner) constant(def.owner, callerId, false)
  for (const s of def.stamps ?? []) constant(s, now, true)
  return { names, values, count }
}

/** How columnsOf reads the items: the fields they all give alike, the first item's own fields, and item i's own
 * fields (null when it is not an object, or gives other fields than the first). */
interface ItemsRead {
  count: number
  same: Readonly<Record<string, unknown>>
  first: Readonly<Record<string, unknown>>
  item(i: number): Readonly<Record<string, unknown>> | null
}

/** The items as columnsOf reads them; null when the first is not an object. An array's items give no field alike; a
 * column-wise body's item is one object, refilled for each item. */
function itemsReader(input: BulkItems, writable: ReadonlyArray<readonly [string, unknown]>): ItemsRead | null {
  if (input instanceof ColumnRows) {
    const names = Object.keys(input.each)
    const current: Record<string, unknown> = {}
    const item = (i: number) => {
      for (const name of names) current[name] = input.each[name][i]
      return current
    }
    return { count: input.count, same: input.same, first: { ...item(0) }, item }
  }
  const first = input[0]
  if (!isObject(first)) return null
  const presence = writable.map(([name]) => has(first, name))
  return {
    count: input.length,
    same: {},
    first,
    item: (i) => {
      const item = input[i]
      if (!isObject(item)) return null
      for (let k = 0; k < presence.length; k++) if (has(item, writable[k][0]) !== presence[k]) return null
      return item
    },
  }
}

/** The one scope row every row is in, or null when they are in several (the plain create checks each). */
function oneScopeRow(columns: Columns, of: NonNullable<CreateManyOf['scope']>): ScopeAsk | null {
  const row: Record<string, unknown> = {}
  for (const c of of.scope.columns) {
    const at = columns.names.indexOf(c)
    if (at < 0) return null
    const array = columns.values[at]
    for (let i = 1; i < columns.count; i++) if (array[i] !== array[0]) return null
    row[c] = array[0]
  }
  return { scope: of.scope, flag: of.flag, rows: [row] }
}

/** The references to check (core/checks.ts, asksOf): per pk field, the distinct ids its column holds. */
function asksOf<T extends TableName>(def: ResourceDef<T>, columns: Columns): Ask[] {
  const asks: Ask[] = []
  for (const [name, f] of referenceFields(def)) {
    const at = f.column ? columns.names.indexOf(f.column) : -1
    if (at < 0) continue
    const ids = new Set<number>()
    for (const v of columns.values[at]) if (typeof v === 'number') ids.add(v)
    if (ids.size) asks.push({ name, target: f.target!(), ids: [...ids] })
  }
  return asks
}

/** Is a row identical to a stored record, or to an earlier row (core/duplicates.ts)? Then the plain create skips it. */
async function anyDuplicate<T extends TableName>(
  ctx: Context,
  def: ResourceDef<T>,
  columns: Columns,
): Promise<boolean> {
  const at = (def.identity ?? []).map((c) => columns.names.indexOf(c))
  if (at.some((i) => i < 0)) return true
  const identity = at.map((i) => columns.values[i])
  const seen = new Set<string>()
  for (let i = 0; i < columns.count; i++) {
    const key = identityKey(identity.map((values) => values[i]))
    if (seen.has(key)) return true
    seen.add(key)
  }
  return (await duplicatesOfColumns(def, identity).execute(ctx.db)).rows.length > 0
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

const has = (item: Record<string, unknown>, name: string) => Object.prototype.hasOwnProperty.call(item, name)
