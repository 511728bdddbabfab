import {
  DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, type CompiledQuery,
} from 'kysely'
import { rowColumns, type Caller, type Flag } from '../../access.js'
import type { AnyRow, AnyTables, TableName } from '../../db/schema.js'
import type { Context } from '../../http/endpoint.js'
import { forbidden, notFound } from '../../http/errors.js'
import { toJson, INT_MAX, type Referent } from '../../http/fields.js'
import { type Query } from '../../http/list.js'
import { anyTable, recs, type Db, type Rec, type ResourceDef } from './define.js'

// Reading records: the records a caller may read, one record with the caller's flags on it, and
// rendering rows as JSON records.

/** The records of `def` the caller holds `flag` on, as `r`. */
export function readable(db: Db, def: Referent, caller: Caller, flag: Flag = 'read'): Query<{}> {
  return records(db, def)
    .where((eb) => def.scope.allows(eb, caller, rowColumns('r'), flag))
}

/** Every record of `def`, as `r`, whoever the caller is. */
export function records(db: Db, def: { table: TableName }): Query<{}> {
  return anyTable(db).selectFrom(`${def.table} as r`)
}

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
  need: Flag[] = ALL_FLAGS): Promise<Fetched<T>> {
  const id = typeof rawId === 'number' ? rawId : parseId(rawId)
  if (id === null) throw notFound()
  const flags: Flag[] = need.includes('read') ? need : ['read', ...need]
  const row = (await db.executeQuery<AnyRow>(fetchQuery(def, caller, id, flags))).rows[0]
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

// A record fetch is the most frequent statement: its SQL (the access rule's subqueries included) is built
// and compiled once per resource, flags and admin-ness, with stand-ins for the caller's id and the record's
// id that each request replaces in the parameters. (The rules use nothing else of the caller.)
const CALLER_STAND_IN = -1_987_654_321
const ID_STAND_IN = -1_987_654_322
const fetchQueries = new Map<string, CompiledQuery<AnyRow>>()

function fetchQuery(def: Referent, caller: Caller, id: number, flags: Flag[]): CompiledQuery<AnyRow> {
  const key = `${def.name}|${flags.join(',')}|${caller.isAdmin}`
  let compiled = fetchQueries.get(key)
  if (!compiled) {
    const standIn: Caller = { id: CALLER_STAND_IN, username: '', isAdmin: caller.isAdmin }
    compiled = compiler.selectFrom(`${def.table} as r`)
      .selectAll('r')
      .select((eb) => flags.map((f) => sql<boolean>`${def.scope.allows(eb, standIn, rowColumns('r'), f)}`.as(`__can_${f}`)))
      .where('r.id', '=', ID_STAND_IN)
      .compile()
    fetchQueries.set(key, compiled)
  }
  const parameters = compiled.parameters.map((p) => p === CALLER_STAND_IN ? caller.id : p === ID_STAND_IN ? id : p)
  return { ...compiled, parameters }
}

/** Builds and compiles PostgreSQL statements; never connects (both database kinds speak PostgreSQL's SQL). */
const compiler = new Kysely<AnyTables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
})

/** fetchRecord, then 403 unless the caller holds `flag`. */
export async function fetchFor<T extends TableName>(db: Db, def: ResourceDef<T>, caller: Caller, rawId: string | number | undefined, flag: Flag): Promise<Rec<T>> {
  const { row, can } = await fetchRecord(db, def, caller, rawId, [flag])
  if (!can(flag)) throw forbidden()
  return row
}
