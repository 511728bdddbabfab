import { sql, type CompiledQuery, type RawBuilder } from 'kysely'
import { rowColumns, type Caller, type Flag } from '../../access.js'
import type { AnyRow } from '../../db/schema.js'
import type { Referent } from '../../http/fields.js'
import type { Db, RecordRequest } from '../core/define.js'
import type { RecordColumns } from '../core/define.js'
import { Coalescers } from '../../db/coalesce.js'
import type { NarrowedFirst } from './narrowed.js'
import { bind, planStatement, type Plan, type StatementCache } from './statements.js'
import { callerKey, compiler, standInCaller, standInNumber, standInText, type CallerKind } from '../core/standIns.js'

// A record fetch, the most frequent statement: its SQL (the access rule's subqueries included) compiled once per
// resource, flags, form (columns or JSON) and kind of caller, with stand-ins for the caller's id, the record's
// id, and the origin and clock that computed fields read (statements.ts; a statement that uses anything else of
// the caller or the request is compiled again for every request);
// made first for the caller narrowed to what it owns (narrowed.ts, docs/decisions.md §12); and a caller's
// details that arrive together read in one statement (docs/decisions.md §13).

/** What a fetch needs of its accelerators: its plans, the narrowed-first memory and the batches of details. */
export interface FetchState {
  plans: StatementCache<Plan>
  narrowed: NarrowedFirst
  details: DetailBatches
}

/** the details being read: at most two batches of one caller's at once, at most 100 details each */
export const detailBatches = () => new Coalescers<number, AnyRow | undefined>(2, 100)
export type DetailBatches = ReturnType<typeof detailBatches>

/** A detail's JSON record (jsonRecord.ts) for one request. */
export interface JsonFor {
  json: RecordColumns
  req: RecordRequest
}

/** The row of record `id` (its columns, or with `json` its JSON record as `__json`) with the caller's flags as
 * `__can_<flag>`; undefined when it is missing or the caller cannot read it. */
export async function fetchFlaggedRow(
  state: FetchState,
  db: Db,
  def: Referent,
  caller: Caller,
  id: number,
  flags: Flag[],
  json: JsonFor | null,
): Promise<AnyRow | undefined> {
  // details of records with computed fields are read alone: each answer is of its own request's clock
  const fetch = (as: Caller): Promise<AnyRow | undefined> =>
    json && flags.length === 1 && !json.json.ofRequest
      ? // a detail: made with the caller's other details that arrive meanwhile (docs/decisions.md §13)
        state.details
          .of(db, def)
          .submit(`${as.id}|${callerKey(as)}`, id, (ids) => fetchDetails(state, db, def, as, ids, json))
      : fetchOne(state, db, def, as, id, flags, json)
  // a missing record is missing under both rules; one with every flag needs no other answer
  const row = await state.narrowed.ask(
    caller,
    fetch,
    (owned) => !owned || flags.every((f) => owned[`__can_${f}`]),
    (whole, owned) => !!whole && flags.some((f) => whole[`__can_${f}`] && !owned?.[`__can_${f}`]),
  )
  return row && row.__can_read ? row : undefined
}

async function fetchOne(
  state: FetchState,
  db: Db,
  def: Referent,
  as: Caller,
  id: number,
  flags: Flag[],
  json: JsonFor | null,
): Promise<AnyRow | undefined> {
  return (await db.executeQuery<AnyRow>(fetchQuery(state.plans, def, as, id, flags, json))).rows[0]
}

/** The details of one caller asked together: one alone, several in one statement (`r.id = any(...)`), each
 * given the row of its own id (none when it is missing). */
function fetchDetails(
  state: FetchState,
  db: Db,
  def: Referent,
  as: Caller,
  ids: number[],
  json: JsonFor,
): Array<Promise<AnyRow | undefined>> {
  if (ids.length === 1) return [fetchOne(state, db, def, as, ids[0], ['read'], json)]
  const rows = db
    .executeQuery<AnyRow>(fetchQuery(state.plans, def, as, [...new Set(ids)], ['read'], json))
    .then((r) => {
      const byId = new Map<number, AnyRow>()
      for (const row of r.rows) {
        const { __id, ...rest } = row
        byId.set(Number(__id), rest)
      }
      return byId
    })
  // each its own copy: the caller of a fetch changes the row it is given
  return ids.map((id) =>
    rows.then((byId) => {
      const row = byId.get(id)
      return row && { ...row }
    }),
  )
}

interface StandIn {
  caller: Caller
  id: number | number[]
  req: RecordRequest
}
/** an array or a clock stand-in is found by identity (statements.ts) */
const standIns = (kind: CallerKind, many: boolean): [StandIn, StandIn] =>
  ([0, 1] as const).map((set) => ({
    caller: standInCaller(set, kind),
    id: many ? [standInNumber(set, 1)] : standInNumber(set, 1),
    req: { origin: standInText(set, 2), now: new Date(standInNumber(set, 3)) },
  })) as [StandIn, StandIn]

/** `id`: one record's id, or several (then each row carries its record's id as `__id`). */
function fetchQuery(
  plans: StatementCache<Plan>,
  def: Referent,
  caller: Caller,
  id: number | number[],
  flags: Flag[],
  json: JsonFor | null,
): CompiledQuery<AnyRow> {
  const many = Array.isArray(id)
  const plan = plans.get(
    def,
    caller,
    `fetch|${flags.join(',')}|${json ? 'json' : 'row'}|${many ? 'many' : 'one'}`,
    () => planFetch(def, caller, flags, json?.json, many),
  )
  return plan
    ? bind(plan, [caller.id, id, json?.req.origin, json?.req.now])
    : fetchStatement(def, caller, id, flags, json && json.json.columns(json.req))
}

/** The statement with the stand-ins' positions (slots: the caller's id, the record's id, the origin and the clock
 * of computed fields), or null when it depends on the caller or the request beyond those parameters (or the
 * record's id is not a parameter of it). */
export function planFetch(
  def: Referent,
  kind: CallerKind,
  flags: Flag[],
  json: RecordColumns | null = null,
  many = false,
): Plan | null {
  const plan = planStatement(
    standIns(kind, many),
    (s) => [s.caller.id, s.id, s.req.origin, s.req.now],
    (s) => fetchStatement(def, s.caller, s.id, flags, json && json.columns(s.req)),
  )
  return plan && plan.at[1].length ? plan : null
}

/** The fetch of one record (or, given several ids, of each) with the caller's flags on it, compiled. */
export function fetchStatement(
  def: Referent,
  caller: Caller,
  id: number | number[],
  flags: Flag[],
  json: RawBuilder<unknown> | null,
): CompiledQuery<AnyRow> {
  const one = compiler
    .selectFrom(`${def.table} as r`)
    .select((eb) =>
      flags.map((f) => sql<boolean>`${def.scope.allows(eb, caller, rowColumns('r'), f)}`.as(`__can_${f}`)),
    )
  const flagged = Array.isArray(id)
    ? one.select('r.id as __id').where(sql<boolean>`r.id = any(${id}::int[])`)
    : one.where('r.id', '=', id)
  return (
    json
      ? flagged
          .innerJoinLateral(sql`(${json})`.as('j'), (join) => join.onTrue())
          .select(sql<string>`row_to_json(j)::text`.as('__json'))
      : flagged.selectAll('r')
  ).compile()
}
