import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely'
import { rowColumns, type Caller, type Flag } from '../../access.js'
import type { AnyRow, AnyTables, TableName } from '../../db/schema.js'
import type { Context } from '../../http/endpoint.js'
import { forbidden, notFound } from '../../http/errors.js'
import { toJson, INT_MAX, type Referent } from '../../http/fields.js'
import type { Query } from '../../http/list.js'
import { bind, callerKey, compiler, planStatement, standInCaller, standInNumber, type CallerKind, type Plan } from './compiled.js'
import { anyTable, recs, type Db, type Rec, type ResourceDef } from './define.js'
import { ownRecordColumns } from './jsonRecord.js'
import { askNarrowedFirst } from './narrowed.js'
import { coalescersPer } from './coalesce.js'
import { compiledRule } from './compiledRule.js'

// Reading records: the records a caller may read, one record with the caller's flags on it, and
// rendering rows as JSON records.

/** The records of `def` the caller holds `flag` on, as `r`. */
export function readable(db: Db | Kysely<AnyTables>, def: Referent, caller: Caller, flag: Flag = 'read'): Query<{}> {
  return records(db, def)
    .where(compiledRule(def, caller, flag) ?? ((eb) => def.scope.allows(eb, caller, rowColumns('r'), flag)))
}

/** The record `id` of `def`, as one row, when the caller holds `flag` on it (for an `exists`). */
export const readableRecord = (db: Db | Kysely<AnyTables>, def: Referent, caller: Caller, id: number) =>
  readable(db, def, caller).select(sql.lit(1).as('one')).where('r.id', '=', id)

/** A resource's `countBy` count of the records of parent `id`, for the caller: all of them when the caller reads
 * the parent (they are all readable with it: `allReadableWith`, checked by defineResource), else none. */
export function countOfReadable<T extends TableName>(db: Db | Kysely<AnyTables>, def: ResourceDef<T>, caller: Caller, id: number): RawBuilder<unknown> {
  const { field, count } = def.countBy!
  const parent = def.fields[field].target!()
  return sql`(case when exists (${readableRecord(db, parent, caller, id)}) then ${count(id)} else 0 end)`
}

/** Every record of `def`, as `r`, whoever the caller is. */
function records(db: Db | Kysely<AnyTables>, def: { table: TableName }): Query<{}> {
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
  const { row, can } = await fetchFlagged(db, def, caller, rawId, need, null)
  return { row: recs<T>([row])[0], can }
}

/** The record `id` as the JSON text its detail answers, written by the database as a list writes its records
 * (jsonRecord.ts), or null when the resource's records are rendered by toJson and its `embed`; 404 when it is
 * missing or not readable. A detail answer then reaches the server as one text, not as a row of every column
 * it reads into values and serialises again (docs/decisions.md §11). */
export async function fetchRecordJson<T extends TableName>(db: Db, def: ResourceDef<T>, caller: Caller, rawId: string | undefined): Promise<string | null> {
  const columns = ownRecordColumns(def, 'r')
  if (!columns) return null
  const { row } = await fetchFlagged(db, def, caller, rawId, ['read'], columns)
  return row.__json as string
}

/** The row of record `id` (its columns, or with `json` its JSON record as `__json`) and the caller's flags. */
async function fetchFlagged(db: Db, def: Referent, caller: Caller, rawId: string | number | undefined, need: Flag[],
  json: RawBuilder<unknown> | null): Promise<{ row: AnyRow; can: (flag: Flag) => boolean }> {
  const id = typeof rawId === 'number' ? rawId : parseId(rawId)
  if (id === null) throw notFound()
  const flags: Flag[] = need.includes('read') ? need : ['read', ...need]
  const fetch = (as: Caller): Promise<AnyRow | undefined> => json && flags.length === 1
    // a detail: made with the caller's other details that arrive meanwhile (docs/decisions.md §13)
    ? fetchersOf(db, def).submit(`${as.id}|${callerKey(as)}`, id, (ids) => fetchDetails(db, def, as, ids, json))
    : fetchOne(db, def, as, id, flags, json)
  // a missing record is missing under both rules; one with every flag needs no other answer
  const row = await askNarrowedFirst(caller, fetch, (owned) => !owned || flags.every((f) => owned[`__can_${f}`]),
    (whole, owned) => !!whole && flags.some((f) => whole[`__can_${f}`] && !owned?.[`__can_${f}`]))
  if (!row || !row.__can_read) throw notFound()
  const can = Object.fromEntries(flags.map((f) => [f, !!row[`__can_${f}`]]))
  for (const f of flags) delete row[`__can_${f}`]
  return {
    row,
    can: (f) => {
      if (!(f in can)) throw new Error(`fetchRecord: flag ${f} was not fetched`)
      return can[f]
    },
  }
}

async function fetchOne(db: Db, def: Referent, as: Caller, id: number, flags: Flag[], json: RawBuilder<unknown> | null): Promise<AnyRow | undefined> {
  return (await db.executeQuery<AnyRow>(fetchQuery(def, as, id, flags, json))).rows[0]
}

/** The details of one caller asked together: one alone, several in one statement (`r.id = any(...)`), each
 * given the row of its own id (none when it is missing). */
function fetchDetails(db: Db, def: Referent, as: Caller, ids: number[], json: RawBuilder<unknown>): Array<Promise<AnyRow | undefined>> {
  if (ids.length === 1) return [fetchOne(db, def, as, ids[0], ['read'], json)]
  const rows = db.executeQuery<AnyRow>(fetchQuery(def, as, [...new Set(ids)], ['read'], json)).then((r) => {
    const byId = new Map<number, AnyRow>()
    for (const row of r.rows) {
      const { __id, ...rest } = row
      byId.set(Number(__id), rest)
    }
    return byId
  })
  // each its own copy: a caller of fetchFlagged changes the row it is given
  return ids.map((id) => rows.then((byId) => { const row = byId.get(id); return row && { ...row } }))
}

/** the details being read: at most two batches of one caller's at once, at most 100 details each */
const fetchersOf = coalescersPer<number, AnyRow | undefined>(2, 100)

// A record fetch is the most frequent statement: its SQL (the access rule's subqueries included) is compiled
// once per resource, flags, form (columns or JSON) and kind of caller, with stand-ins for the caller's id and
// the record's id (see compiled.ts; a rule that uses anything else of the caller is compiled again for every
// request).

interface StandIn { caller: Caller; id: number | number[] }
/** an array stand-in is found by identity (compiled.ts) */
const standIns = (kind: CallerKind, many: boolean): [StandIn, StandIn] => ([0, 1] as const).map((set) =>
  ({ caller: standInCaller(set, kind), id: many ? [standInNumber(set, 1)] : standInNumber(set, 1) })) as [StandIn, StandIn]

/** A fetch plan, with the positions of its two slots under their names. */
interface FetchPlan extends Plan { callerAt: number[]; idAt: number[] }

/** per resource, by flags, form and kind of caller: the plan, or null when the statement may not be cached */
const fetchPlans = new WeakMap<Referent, Map<string, FetchPlan | null>>()

/** `id`: one record's id, or several (then each row carries its record's id as `__id`). */
function fetchQuery(def: Referent, caller: Caller, id: number | number[], flags: Flag[], json: RawBuilder<unknown> | null): CompiledQuery<AnyRow> {
  let plans = fetchPlans.get(def)
  if (!plans) fetchPlans.set(def, plans = new Map())
  const many = Array.isArray(id)
  const key = `${flags.join(',')}|${json ? 'json' : 'row'}|${many ? 'many' : 'one'}|${callerKey(caller)}`
  let plan = plans.get(key)
  if (plan === undefined) plans.set(key, plan = planFetch(def, caller, flags, json, many))
  return plan ? bind(plan, [caller.id, id]) : compileFetch(def, caller, id, flags, json)
}

/** The statement with the stand-ins' positions (slots: the caller's id, the record's id), or null when it
 * depends on the caller beyond its id parameters (or the record's id is not a parameter of it). */
export function planFetch(def: Referent, kind: CallerKind, flags: Flag[], json: RawBuilder<unknown> | null = null, many = false): FetchPlan | null {
  const plan = planStatement(standIns(kind, many), (s) => [s.caller.id, s.id], (s) => compileFetch(def, s.caller, s.id, flags, json))
  return plan && plan.at[1].length ? { ...plan, callerAt: plan.at[0], idAt: plan.at[1] } : null
}

function compileFetch(def: Referent, caller: Caller, id: number | number[], flags: Flag[], json: RawBuilder<unknown> | null): CompiledQuery<AnyRow> {
  const one = compiler.selectFrom(`${def.table} as r`)
    .select((eb) => flags.map((f) => sql<boolean>`${def.scope.allows(eb, caller, rowColumns('r'), f)}`.as(`__can_${f}`)))
  const flagged = Array.isArray(id) ? one.select('r.id as __id').where(sql<boolean>`r.id = any(${id}::int[])`) : one.where('r.id', '=', id)
  return (json
    ? flagged.innerJoinLateral(sql`(${json})`.as('j'), (join) => join.onTrue()).select(sql<string>`row_to_json(j)::text`.as('__json'))
    : flagged.selectAll('r')).compile()
}

/** fetchRecord, then 403 unless the caller holds `flag`. */
export async function fetchFor<T extends TableName>(db: Db, def: ResourceDef<T>, caller: Caller, rawId: string | number | undefined, flag: Flag): Promise<Rec<T>> {
  const { row, can } = await fetchRecord(db, def, caller, rawId, [flag])
  if (!can(flag)) throw forbidden()
  return row
}
