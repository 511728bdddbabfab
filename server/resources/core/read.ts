import { sql, type Kysely } from 'kysely'
import { rowColumns, type Caller, type Flag } from '../../access.js'
import type { AnyRow, AnyTables, TableName } from '../../db/schema.js'
import type { Context } from '../../http/endpoint.js'
import { forbidden, notFound } from '../../http/errors.js'
import { toJson, INT_MAX, type Referent } from '../../http/fields.js'
import type { Query } from '../../http/list.js'
import type { Accelerators } from '../fast/index.js'
import { anyTable, recs, type Db, type Rec, type ResourceDef } from './define.js'

// Reading records: the records a caller may read, one record with the caller's flags on it, and
// rendering rows as JSON records. `fast`, where given, may answer in the plain path's place
// (docs/architecture.md, "The plain path and the accelerators").

/** The records of `def` the caller holds `flag` on, as `r`: the access rule (access.ts) as a condition. */
export function readable(db: Db | Kysely<AnyTables>, def: Referent, caller: Caller, flag: Flag = 'read', fast?: Accelerators): Query<{}> {
  return anyTable(db).selectFrom(`${def.table} as r`)
    .where(fast?.rule(def, caller, flag) ?? ((eb) => def.scope.allows(eb, caller, rowColumns('r'), flag)))
}

/** The record `id` of `def`, as one row, when the caller holds `flag` on it (for an `exists`). */
export const readableRecord = (db: Db | Kysely<AnyTables>, def: Referent, caller: Caller, id: number, fast?: Accelerators) =>
  readable(db, def, caller, 'read', fast).select(sql.lit(1).as('one')).where('r.id', '=', id)

/** Rows -> JSON records, with the resource's embedded fields. */
export async function render<T extends TableName>(ctx: Context, def: ResourceDef<T>, rows: Rec<T>[], db: Db = ctx.db): Promise<Record<string, unknown>[]> {
  if (def.embed && rows.length) await def.embed(db, rows, ctx)
  return rows.map((row) => toJson(def.fields, row))
}

export function parseId(raw: string | undefined): number | null {
  if (!raw || !/^\d{1,10}$/.test(raw)) return null
  const n = Number(raw)
  return n >= 1 && n <= INT_MAX ? n : null
}

export interface Fetched<T extends TableName> { row: Rec<T>; can: (flag: Flag) => boolean }

const ALL_FLAGS: Flag[] = ['read', 'write', 'launch_job', 'admin']

/** The record `id` with the caller's flags on it; 404 when it is missing or not readable.
 * `need`: the flags `can` will be asked about (each is a subquery to plan and run; read is always checked). */
export async function fetchRecord<T extends TableName>(db: Db, def: ResourceDef<T>, caller: Caller, rawId: string | number | undefined,
  need: Flag[] = ALL_FLAGS, fast?: Accelerators): Promise<Fetched<T>> {
  const id = typeof rawId === 'number' ? rawId : parseId(rawId)
  if (id === null) throw notFound()
  const flags: Flag[] = need.includes('read') ? need : ['read', ...need]
  const row = await (fast?.fetch(db, def, caller, id, flags) ?? flaggedRecord(db, def, caller, id, flags).executeTakeFirst())
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
  return anyTable(db).selectFrom(`${def.table} as r`)
    .select((eb) => flags.map((f) => sql<boolean>`${def.scope.allows(eb, caller, rowColumns('r'), f)}`.as(`__can_${f}`)))
    .selectAll('r')
    .where('r.id', '=', id) as Query<AnyRow>
}

/** fetchRecord, then 403 unless the caller holds `flag`. */
export async function fetchFor<T extends TableName>(db: Db, def: ResourceDef<T>, caller: Caller, rawId: string | number | undefined, flag: Flag,
  fast?: Accelerators): Promise<Rec<T>> {
  const { row, can } = await fetchRecord(db, def, caller, rawId, [flag], fast)
  if (!can(flag)) throw forbidden()
  return row
}
