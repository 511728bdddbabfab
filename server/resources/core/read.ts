import { sql, type Kysely } from 'kysely'
import { rowColumns, type Caller, type Flag } from '../../access.js'
import type { AnyRow, AnyTables, TableName } from '../../db/schema.js'
import type { Context } from '../../http/endpoint.js'
import { forbidden, notFound } from '../../http/errors.js'
import { toJson, INT_MAX, type Referent } from '../../http/fields.js'
import type { Query } from '../../http/list.js'
import type { Accelerators } from './accelerators.js'
import {
  anyTable,
  computedFor,
  computedNames,
  recs,
  type Db,
  type Rec,
  type RecordRequest,
  type ResourceDef,
} from './define.js'

// Reading records: the records a caller may read, one record with the caller's flags on it, and
// rendering rows as JSON records. `fast`, where given, may answer in the plain path's place
// (docs/architecture.md, "The plain path and the accelerators").

/** The records of `def` the caller holds `flag` on, as `r`: the access rule (access.ts) as a condition. */
export function readable(
  db: Db | Kysely<AnyTables>,
  def: Referent,
  caller: Caller,
  flag: Flag = 'read',
  fast?: Accelerators,
): Query<{}> {
  return anyTable(db)
    .selectFrom(`${def.table} as r`)
    .where(fast?.rule(def, caller, flag) ?? ((eb) => def.scope.allows(eb, caller, rowColumns('r'), flag)))
}

/** The record `id` of `def`, as one row, when the caller holds `flag` on it (for an `exists`). */
export const readableRecord = (
  db: Db | Kysely<AnyTables>,
  def: Referent,
  caller: Caller,
  id: number,
  fast?: Accelerators,
) => readable(db, def, caller, 'read', fast).select(sql.lit(1).as('one')).where('r.id', '=', id)

/** The request a record's computed fields are made for: the caller's origin, and now. */
export const recordRequest = (ctx: Pick<Context, 'origin'>): RecordRequest => ({ origin: ctx.origin, now: new Date() })

/** `qb`, a query of records as `r`, with the resource's computed fields selected under their wire names. */
export function selectComputed<T extends TableName, O>(
  qb: Query<O>,
  def: ResourceDef<T>,
  req: RecordRequest,
): Query<O> {
  const computed = computedFor(def, req)
  return computed
    ? (qb.select(Object.entries(computed).map(([name, value]) => sql`${value}`.as(name))) as Query<O>)
    : qb
}

/** Rows read with their computed fields (selectComputed) -> JSON records: each field from its column, a
 * computed one as the statement gave it, and `embed`'s fields read for them. */
export async function renderSelected<T extends TableName>(
  ctx: Context,
  def: ResourceDef<T>,
  rows: Rec<T>[],
  db: Db = ctx.db,
): Promise<Record<string, unknown>[]> {
  if (def.embed && rows.length) await def.embed(db, rows, ctx)
  const computed = computedNames(def)
  return rows.map((row) => {
    const json = toJson(def.compiled.fields, row)
    for (const name of computed) if (name in json) json[name] = row[name]
    return json
  })
}

/** Rows read without their computed fields (a detail, a write's answer) -> JSON records: the computed fields
 * are read for them in one statement. */
export async function render<T extends TableName>(
  ctx: Context,
  def: ResourceDef<T>,
  rows: Rec<T>[],
  db: Db = ctx.db,
): Promise<Record<string, unknown>[]> {
  if (def.computed && rows.length) {
    const ids = rows.map((r) => r.id as number)
    const records: Query<{}> = anyTable(db).selectFrom(`${def.table} as r`)
    const ofRows = records.where(sql<boolean>`r.id = any(${ids}::int[])`)
    const read = await selectComputed(ofRows.select(sql<number>`r.id`.as('__id')), def, recordRequest(ctx)).execute()
    const byId = new Map(read.map(({ __id, ...fields }: AnyRow) => [__id as number, fields]))
    for (const row of rows) Object.assign(row, byId.get(row.id as number))
  }
  return renderSelected(ctx, def, rows, db)
}

export function parseId(raw: string | undefined): number | null {
  if (!raw || !/^\d{1,10}$/.test(raw)) return null
  const n = Number(raw)
  return n >= 1 && n <= INT_MAX ? n : null
}

export interface Fetched<T extends TableName> {
  row: Rec<T>
  can: (flag: Flag) => boolean
}

const ALL_FLAGS: Flag[] = ['read', 'write', 'launch_job', 'admin']

/** The record `id` with the caller's flags on it; 404 when it is missing or not readable.
 * `need`: the flags `can` will be asked about (each is a subquery to plan and run; read is always checked). */
export async function fetchRecord<T extends TableName>(
  db: Db,
  def: ResourceDef<T>,
  caller: Caller,
  rawId: string | number | undefined,
  need: Flag[] = ALL_FLAGS,
  fast?: Accelerators,
): Promise<Fetched<T>> {
  const id = typeof rawId === 'number' ? rawId : parseId(rawId)
  if (id === null) throw notFound()
  const flags: Flag[] = need.includes('read') ? need : ['read', ...need]
  const row = await (fast?.fetch(db, def, caller, id, flags) ??
    flaggedRecord(db, def, caller, id, flags).executeTakeFirst())
  if (!row || !row.__can_read) throw notFound()
  const can = Object.fromEntries(flags.map((f) => [f, !!row[`__can_${f}`]]))
  for (const f of flags) delete row[`__can_${f}`]
  return {
    row: recs<T>([row])[0],
    can: (f) => {
      if (!(f in can)) throw new Error(`fetchRecord: flag ${f} was not fetched`)
      return can[f]
    },
  }
}

/** The record `id` with, for each flag, whether the caller holds it (`__can_<flag>`). */
function flaggedRecord(db: Db, def: Referent, caller: Caller, id: number, flags: Flag[]) {
  return anyTable(db)
    .selectFrom(`${def.table} as r`)
    .select((eb) =>
      flags.map((f) => sql<boolean>`${def.scope.allows(eb, caller, rowColumns('r'), f)}`.as(`__can_${f}`)),
    )
    .selectAll('r')
    .where('r.id', '=', id) as Query<AnyRow>
}

/** fetchRecord, then 403 unless the caller holds `flag`. */
export async function fetchFor<T extends TableName>(
  db: Db,
  def: ResourceDef<T>,
  caller: Caller,
  rawId: string | number | undefined,
  flag: Flag,
  fast?: Accelerators,
): Promise<Rec<T>> {
  const { row, can } = await fetchRecord(db, def, caller, rawId, [flag], fast)
  if (!can(flag)) throw forbidden()
  return row
}
