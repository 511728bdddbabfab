import type { TableName } from '../../db/schema.js'
import { rowError } from '../../db/rowError.js'
import type { Context, Result } from '../../http/endpoint.js'
import { parseValue } from '../../http/fields.js'
import { JsonText } from '../../http/jsonText.js'
import type { Ask, CreateManyOf, ScopeAsk } from '../core/accelerators.js'
import type { Db, ResourceDef } from '../core/define.js'
import { kindsOf } from './checks.js'
import { createsInOne, type CreateState } from './create.js'
import { batchable, insertColumns } from './createBatch.js'

// A bulk create (an array body: an import's batch) made with its checks in its INSERT, as single creates that arrive
// together are (createBatch.ts, docs/decisions.md §13). The items are validated field by field as the plain path
// does (parseInput's rules), each value going straight into its column's array: no record of parsed values, errors
// and columns is kept per item while the batch is written, which was most of a bulk create's garbage collection
// (BENCHMARKS.md). A batch of more than CHUNK items is written a chunk a statement in one transaction, each chunk
// validated while the one before is being written, so the server's work and the database's overlap. It declines
// (null, nothing written) whenever the plain path would answer anything but the records created (a value, a
// reference or the caller's right that does not pass, a row identical to a stored one or to an earlier row, which
// the plain path skips), and where the batch is not of one shape (every item gives the same fields) or of one scope
// row (one tag set): the plain create then runs, with its own checks and errors.

/** The rows of a bulk create as the plain path would store them: one array of values per column. */
interface Columns {
  names: string[]
  values: unknown[][]
  count: number
}

/** Items a statement writes: a batch of 10,000 is written in five, each chunk validated while the one before is
 * written, within one transaction. */
const CHUNK = 2000

/** The answer of a bulk create made in one statement with its checks (a statement a chunk, in one transaction);
 * null when the plain create must make it, nothing written. */
export async function fastCreateMany<T extends TableName>(
  state: CreateState,
  ctx: Context,
  def: ResourceDef<T>,
  items: unknown[],
  of: CreateManyOf,
): Promise<Result | null> {
  // the checks against stored records must be the statement's own (storedCondition)
  if (!createsInOne(def) || !batchable(def) || (def.checkStored && !def.storedCondition)) return null
  const skip = of.onDuplicate === 'skip'
  // rows seen so far (by their identity), for a row identical to an earlier one, which the plain create skips
  const seen = new Set<string>()
  const prepare = (from: number): Columns | null => {
    const columns = columnsOf(def, items, from, Math.min(items.length, from + CHUNK), of.now, ctx.caller.id)
    return columns && (!skip || noRepeats(def, columns, seen)) ? columns : null
  }
  const first = prepare(0)
  if (!first) return null
  const scopeAsk = of.scope ? oneScopeRow(first, of.scope) : undefined
  if (scopeAsk === null) return null
  const answer = of.answerIds ? 'id' : 'json'
  const key = `many|${skip}|${scopeAsk?.flag ?? ''}|${kindsOf(scopeAsk).join(',')}|${first.names.join(',')}`
  /** one chunk's statement: its answers, or null when it inserted nothing (a check did not pass, a row was stored) */
  const write = async (db: Db, columns: Columns) => {
    const asks = asksOf(def, columns)
    if (!asks.length && !scopeAsk) return null
    const shape = { caller: ctx.caller, asks, scopeAsk, columns: columns.names, rowKinds: '', unique: skip }
    return insertColumns(
      state.plans,
      db,
      def,
      `${key}|${asks.map((a) => a.name).join(',')}`,
      shape,
      columns.values,
      answer,
    )
  }
  const answers = await (
    items.length <= CHUNK
      ? write(ctx.db, first)
      : ctx.db.transaction().execute(async (trx) => {
          const out: Array<string | number> = []
          let columns: Columns | null = first
          for (let from = 0; columns; from += CHUNK) {
            const writing = write(trx, columns).then(
              (written) => ({ written }),
              (error: unknown) => ({ error }),
            )
            let next: Columns | null = null
            if (from + CHUNK < items.length) {
              // once this chunk's statement is on its way (its promise chain has sent it), the next is validated
              await new Promise(setImmediate)
              next = prepare(from + CHUNK)
              if (!next || !sameScopeRow(next, scopeAsk)) throw DECLINED
            }
            const done = await writing
            if ('error' in done) throw done.error
            if (!done.written) throw DECLINED
            out.push(...done.written)
            columns = next
          }
          return out
        })
  ).catch(
    // a record referred to went while the statement ran, or a row the database refuses: the plain create says which
    (e: unknown) => {
      if (e === DECLINED || rowError(e)) return null
      throw e
    },
  )
  if (!answers) return null
  if (answer === 'json') return { status: 201, body: new JsonText(`[${answers.join(',')}]`) }
  const results = answers.map((id) => ({ id }))
  return { status: 201, body: skip ? { results, skipped: [] } : results }
}

/** Thrown inside the transaction when the plain create must make the batch: what was written is rolled back. */
const DECLINED = new Error('declined: the plain create makes this batch')

/** Items `from` to `to` (not included) as columns as the plain create stores them (parseInput's rules in create
 * mode, then toColumns, the owner and the stamps), each item's values passing the resource's checkValues; null
 * when an item is not an object, gives other fields than the first item, or has a value the plain path would
 * refuse. */
function columnsOf<T extends TableName>(
  def: ResourceDef<T>,
  items: unknown[],
  from: number,
  to: number,
  now: string,
  callerId: number,
): Columns | null {
  const plan = def.compiled.fields
  const count = to - from
  const first = items[0]
  if (!isObject(first)) return null
  // the fields of the first item (or defaulted) in the plain path's order, each with its column's array, if any
  const given = plan.writable.filter(([name, f]) => has(first, name) || f.default !== undefined || f.required)
  const names: string[] = []
  const values: unknown[][] = []
  const arrayOf = given.map(([name]) => {
    const column = plan.columns.get(name)
    if (column === undefined) return null
    names.push(column)
    values.push(new Array(count))
    return values[values.length - 1]
  })
  const presence = plan.writable.map(([name]) => has(first, name))
  for (let i = 0; i < count; i++) {
    const item = items[from + i]
    if (!isObject(item)) return null
    for (let k = 0; k < presence.length; k++) if (has(item, plan.writable[k][0]) !== presence[k]) return null
    const parsed: Record<string, unknown> = {}
    for (let k = 0; k < given.length; k++) {
      const [name, f] = given[k]
      let value: unknown
      if (!has(item, name)) {
        if (f.required) return null
        value = f.default
      } else {
        const v = item[name]
        if (v === null || (v === '' && f.nullable && f.type !== 'string')) {
          if (!f.nullable) return null
          value = null
        } else {
          const r = parseValue(f, v)
          if (!r.ok) return null
          value = r.value
        }
      }
      parsed[name] = value
      const array = arrayOf[k]
      if (array) array[i] = plan.jsonColumns.has(name) && value !== null ? JSON.stringify(value) : value
    }
    if (!passes(def, parsed)) return null
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

/** Do an item's parsed values pass the resource's checks of values alone (pure, as fast/create.ts runs them)? */
function passes<T extends TableName>(def: ResourceDef<T>, values: Record<string, unknown>): boolean {
  try {
    def.checkValues?.(values, null)
    return true
  } catch {
    return false
  }
}

/** The one scope row every row is in, or null when they are in several (the plain create checks each). */
function oneScopeRow(columns: Columns, of: NonNullable<CreateManyOf['scope']>): ScopeAsk | null {
  const row: Record<string, unknown> = {}
  for (const c of of.scope.columns) {
    const at = columns.names.indexOf(c)
    if (at < 0) return null
    row[c] = columns.values[at][0]
  }
  const ask = { scope: of.scope, flag: of.flag, rows: [row] }
  return sameScopeRow(columns, ask) ? ask : null
}

/** Is every row in the scope row of `ask` (every row, when there is none)? */
function sameScopeRow(columns: Columns, ask: ScopeAsk | undefined): boolean {
  if (!ask) return true
  for (const c of ask.scope.columns) {
    const at = columns.names.indexOf(c)
    if (at < 0) return false
    const array = columns.values[at]
    for (let i = 0; i < columns.count; i++) if (array[i] !== ask.rows[0][c]) return false
  }
  return true
}

/** The references to check (core/checks.ts, asksOf): per pk field, the distinct ids its column holds. */
function asksOf<T extends TableName>(def: ResourceDef<T>, columns: Columns): Ask[] {
  const asks: Ask[] = []
  for (const [name, f] of Object.entries(def.fields)) {
    if (f.type !== 'pk' || !f.target || f.readOnly || !f.column) continue
    const at = columns.names.indexOf(f.column)
    if (at < 0) continue
    const ids = new Set<number>()
    for (const v of columns.values[at]) if (typeof v === 'number') ids.add(v)
    if (ids.size) asks.push({ name, target: f.target(), ids: [...ids] })
  }
  return asks
}

/** Are these rows unlike each other and every row `seen` before, by the resource's identity (core/duplicates.ts),
 * each of whose columns they give? A row identical to an earlier one is skipped by the plain create; one identical
 * to a stored record, by the statement (`unique`), which then writes nothing. */
function noRepeats<T extends TableName>(def: ResourceDef<T>, columns: Columns, seen: Set<string>): boolean {
  const at = (def.identity ?? []).map((c) => columns.names.indexOf(c))
  if (!def.identity || at.some((i) => i < 0)) return false
  const identity = at.map((i) => columns.values[i])
  for (let i = 0; i < columns.count; i++) {
    const key = JSON.stringify(identity.map((values) => values[i]))
    if (seen.has(key)) return false
    seen.add(key)
  }
  return true
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

const has = (item: Record<string, unknown>, name: string) => Object.prototype.hasOwnProperty.call(item, name)
