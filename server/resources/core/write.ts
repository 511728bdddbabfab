import type { Scope } from '../../access.js'
import type { Transaction } from 'kysely'
import type { AnyRow, DB, TableName } from '../../db/schema.js'
import { retryingTransaction } from '../../db/contention.js'
import { localTimestamp } from '../../db/time.js'
import type { Context, Result } from '../../http/endpoint.js'
import { badRequest, forbidden, MSG, notFound } from '../../http/errors.js'
import { ColumnRows } from '../../http/columnRows.js'
import { toColumns } from '../../http/fields.js'
import { heldRights } from '../../access.js'
import { anyTable, recs, type Rec, type ResourceDef } from './define.js'
import { hasErrors, parseItems, scopeAllows, scopeKey, scopeKeys, targetKnown, validateItems } from './checks.js'
import { answerFieldsOf, answerRecords, idsOnly } from './answerFields.js'
import { identityKey, onDuplicateOf, storedDuplicates } from './duplicates.js'
import { insertRows, insertsAsArrays } from './insert.js'
import { parseId, render } from './read.js'

// Create, update and delete of a resource's records, with their hooks. On this path each write is one transaction
// with its checks (checkedWrite): the references and rights it checks are those it commits under.

/** `write` given a context whose `db` is one transaction that first holds the caller's rights (access.ts,
 * heldRights): a grant revoked meanwhile is either seen by the checks or waits for the commit
 * (docs/architecture.md, "Writes and their checks"). An update or delete names its `target`, which is locked
 * before the rights are held: two writes of one record then wait for each other before either holds rights
 * the other's write may change (a member replacing the group that holds their own membership, a grant
 * changed by the caller it is held by), so they queue instead of deadlocking; a deadlock met all the same is
 * run again (docs/decisions.md §37). */
async function checkedWrite<R>(
  ctx: Context,
  write: (ctx: Context, trx: Transaction<DB>) => Promise<R>,
  target?: { table: TableName; id: string | undefined; deleting: boolean },
): Promise<R> {
  const targetId = target ? parseId(target.id) : null
  return retryingTransaction(ctx.db, async (trx) => {
    if (!ctx.caller.isAdmin) {
      if (target && targetId !== null) {
        const row = anyTable(trx).selectFrom(target.table).select('id').where('id', '=', targetId)
        await (target.deleting ? row.forUpdate() : row.forNoKeyUpdate()).execute()
      }
      await heldRights(trx, ctx.caller).execute()
    }
    return write({ ...ctx, db: trx }, trx)
  })
}

/** Create one record or, for bulk resources, an array of them in one transaction. With `?onDuplicate=skip`
 * (duplicates.ts), rows identical to a stored record are not created, and the answer says which they were:
 * `{results, skipped}`, results in input order (the stored record for a skipped row), skipped their indexes. */
export async function createRecords<T extends TableName>(ctx: Context, def: ResourceDef<T>): Promise<Result> {
  const onDuplicate = onDuplicateOf(ctx, def)
  const fields = def.bulk ? answerFieldsOf(ctx, def) : null
  const body = await ctx.body(def.bulk ? 'columns' : undefined)
  const columns = body instanceof ColumnRows ? body : null
  const many = columns !== null || Array.isArray(body)
  if (many && !def.bulk) throw badRequest({ non_field_errors: [MSG.notDict('list')] })
  if (Array.isArray(body) && body.length === 0) throw badRequest({ non_field_errors: ['This list may not be empty.'] })
  const now = localTimestamp()
  const rowsOf = (values: Record<string, unknown>[]) =>
    values.map((v) => {
      const cols = toColumns(def.compiled.fields, v)
      if (def.owner) cols[def.owner] = ctx.caller.id
      // a stamp given (a creationDate kept from elsewhere) is written as given
      for (const s of def.stamps ?? []) cols[s] ??= now
      return cols
    })
  const createScope = def.createScope === undefined ? def.scope : def.createScope
  const flag = def.create || 'write'
  const checkScope = createScope && !ctx.caller.isAdmin ? createScope : null
  // the scope's columns of each new row (what rowsOf would give them), without building whole rows twice
  const stamps: readonly string[] = def.stamps ?? []
  const columnField = def.compiled.fields.fieldOfColumn
  const scopeRowsOf = (scope: Scope, values: Record<string, unknown>[]) =>
    values.map((v) => {
      const row: AnyRow = {}
      for (const c of scope.columns)
        row[c] =
          c === def.owner
            ? ctx.caller.id
            : stamps.includes(c)
              ? (v[columnField.get(c) ?? ''] ?? now)
              : v[columnField.get(c) ?? '']
      return row
    })
  // an import's batch: its items straight into columns, made in one statement with its checks (fast/createMany.ts)
  if (many && (idsOnly(fields) || (fields === null && onDuplicate === 'create'))) {
    const made = await ctx.services.records.createMany(ctx, def, columns ?? (body as unknown[]), {
      onDuplicate,
      answerIds: idsOnly(fields),
      now,
      scope: checkScope ? { scope: checkScope, flag } : null,
    })
    if (made) return made
  }
  // the plain path reads a column-wise body as the array of items it stands for
  const items = columns ? columns.items() : many ? (body as unknown[]) : [body]
  const parsed = parseItems(def, items, 'create')
  if (!many && onDuplicate === 'create' && !fields) {
    const made = await ctx.services.records.create(ctx, def, parsed[0], {
      row: (v) => rowsOf([v])[0],
      scopeAsk: (v) => (checkScope ? { scope: checkScope, flag, rows: scopeRowsOf(checkScope, [v]) } : undefined),
    })
    if (made) return made
  }
  return checkedWrite(ctx, async (ctx, trx) => {
    const { values, errors, scope } = await validateItems(
      ctx,
      def,
      parsed,
      'create',
      null,
      checkScope ? (valid) => ({ scope: checkScope, flag, rows: scopeRowsOf(checkScope, valid) }) : undefined,
    )
    if (hasErrors(errors)) {
      // readable but not writable is 403, before any field error about references (docs/decisions.md §6)
      if (
        checkScope &&
        scope &&
        !scope.allowed &&
        !(await scopeAllows(
          ctx.db,
          checkScope,
          ctx.caller,
          scopeRowsOf(checkScope, targetKnown(def, checkScope, values, errors)),
          flag,
        ))
      ) {
        throw forbidden()
      }
      throw badRequest(many ? errors : errors[0])
    }
    const rows = rowsOf(values)
    if (checkScope) {
      // answered with the reference checks, unless validation changed the values the scope looks at
      const keyOf = (rs: AnyRow[]) => rs.map((r) => scopeKey(checkScope, r)).join('|')
      const same = scope && keyOf(scopeKeys(checkScope, scopeRowsOf(checkScope, values))) === keyOf(scope.keys)
      if (!(same ? scope.allowed : await scopeAllows(ctx.db, checkScope, ctx.caller, rows, flag))) throw forbidden()
    }
    if (def.transform) for (let i = 0; i < rows.length; i++) await def.transform(rows[i], values[i], ctx)
    if (onDuplicate === 'skip') return createSkippingDuplicates(ctx, trx, def, rows, values, fields)
    const json = await answerRecords(ctx, def, await insertAll(ctx, trx, def, rows, values, idsOnly(fields)), fields)
    return { status: 201, body: many ? json : json[0] }
  })
}

/** INSERT the rows, with the resource's afterWrite, in the transaction of `ctx` (checkedWrite). */
async function insertAll<T extends TableName>(
  ctx: Context,
  trx: Transaction<DB>,
  def: ResourceDef<T>,
  rows: AnyRow[],
  values: Record<string, unknown>[],
  answerIdsOnly = false,
): Promise<Rec<T>[]> {
  if (!rows.length) return []
  // the hooks read whole records; without them, an answer of ids needs nothing else back
  const out = await insertRows(trx, def, rows, insertsAsArrays(def, rows), answerIdsOnly && !def.afterWrite)
  if (def.afterWrite) for (let i = 0; i < out.length; i++) await def.afterWrite(trx, out[i], values[i], ctx, true)
  return out
}

/** The create of `?onDuplicate=skip`: rows identical to a stored record are answered with that record. */
async function createSkippingDuplicates<T extends TableName>(
  ctx: Context,
  trx: Transaction<DB>,
  def: ResourceDef<T>,
  rows: AnyRow[],
  values: Record<string, unknown>[],
  fields: readonly string[] | null,
): Promise<Result> {
  const stored = await storedDuplicates(ctx.db, def, rows)
  // a row identical to an earlier one of the same request (one table given twice in an import) is that row's
  // record, as it would be on a re-run
  const firstOf = new Map<string, number>()
  const repeats = new Map<number, number>()
  const fresh: number[] = []
  rows.forEach((row, i) => {
    if (stored.has(i)) return
    const key = identityKey((def.identity ?? []).map((c) => row[c]))
    const first = firstOf.get(key)
    if (first === undefined) {
      firstOf.set(key, i)
      fresh.push(i)
    } else repeats.set(i, first)
  })
  const created = await answerRecords(
    ctx,
    def,
    await insertAll(
      ctx,
      trx,
      def,
      fresh.map((i) => rows[i]),
      fresh.map((i) => values[i]),
      idsOnly(fields),
    ),
    fields,
  )
  const table: string = def.table
  const ids = [...new Set(stored.values())]
  const existing =
    ids.length && !idsOnly(fields)
      ? recs<T>(await anyTable(ctx.db).selectFrom(table).selectAll().where('id', 'in', ids).execute())
      : ids.map((id) => ({ id }) as Rec<T>)
  const existingJson = new Map(
    (await answerRecords(ctx, def, existing, fields)).map((r, k) => [existing[k].id as number, r]),
  )
  const results: unknown[] = new Array(rows.length)
  fresh.forEach((i, k) => {
    results[i] = created[k]
  })
  for (const [i, id] of stored) results[i] = existingJson.get(id)
  for (const [i, first] of repeats) results[i] = results[first]
  return { status: 201, body: { results, skipped: [...stored.keys(), ...repeats.keys()].sort((a, b) => a - b) } }
}

/** PUT (all required fields) or PATCH (any subset). */
export function updateRecord<T extends TableName>(
  ctx: Context,
  def: ResourceDef<T>,
  partial: boolean,
): Promise<Result> {
  return checkedWrite(ctx, (ctx, trx) => update(ctx, trx, def, partial), {
    table: def.table,
    id: ctx.params.id,
    deleting: false,
  })
}

async function update<T extends TableName>(
  ctx: Context,
  trx: Transaction<DB>,
  def: ResourceDef<T>,
  partial: boolean,
): Promise<Result> {
  const flag = def.update || 'write'
  const existing = await ctx.services.records.fetchFor(ctx, def, ctx.params.id, flag)
  const mode = partial ? 'partial' : 'replace'
  const { values, errors } = await validateItems(ctx, def, parseItems(def, [await ctx.body()], mode), mode, existing)
  const createScope = def.createScope === undefined ? def.scope : def.createScope
  if (hasErrors(errors)) {
    // moved to a target the caller may read but not write: 403, before field errors about other references
    const known = createScope && targetKnown(def, createScope, values, errors)
    if (
      known?.length &&
      Object.keys(toColumns(def.compiled.fields, values[0])).some((c) => createScope!.columns.includes(c)) &&
      !(await scopeAllows(
        ctx.db,
        createScope!,
        ctx.caller,
        [{ ...existing, ...toColumns(def.compiled.fields, values[0]) }],
        flag,
      ))
    ) {
      throw forbidden()
    }
    throw badRequest(errors[0])
  }
  const changes = toColumns(def.compiled.fields, values[0])
  const merged = { ...existing, ...changes }
  if (createScope && createScope !== def.scope && !(await scopeAllows(ctx.db, createScope, ctx.caller, [merged], flag)))
    throw forbidden()
  if (
    createScope === def.scope &&
    Object.keys(changes).some((c) => def.scope.columns.includes(c)) &&
    !(await scopeAllows(ctx.db, def.scope, ctx.caller, [merged], flag))
  )
    throw forbidden()
  if (def.transform) await def.transform(changes, values[0], ctx)
  const table: string = def.table
  const row = Object.keys(changes).length
    ? recs<T>(
        await anyTable(ctx.db).updateTable(table).set(changes).where('id', '=', existing.id).returningAll().execute(),
      )[0]
    : existing
  // deleted by a simultaneous request since it was read
  if (!row) throw notFound()
  if (def.afterWrite) await def.afterWrite(trx, row, values[0], ctx, false)
  if (def.afterUpdate) await def.afterUpdate(trx, row, values[0], ctx)
  return { body: (await render(ctx, def, [row]))[0] }
}

export async function deleteRecord<T extends TableName>(ctx: Context, def: ResourceDef<T>): Promise<Result> {
  const table: string = def.table
  const afterCommit = await checkedWrite(
    ctx,
    async (ctx, trx) => {
      const row = await ctx.services.records.fetchFor(ctx, def, ctx.params.id, def.destroy || 'write')
      const then = def.beforeDelete ? await def.beforeDelete(trx, row, ctx) : undefined
      await anyTable(ctx.db).deleteFrom(table).where('id', '=', row.id).execute()
      return then
    },
    { table: def.table, id: ctx.params.id, deleting: true },
  )
  if (afterCommit) await afterCommit()
  return { status: 204 }
}
