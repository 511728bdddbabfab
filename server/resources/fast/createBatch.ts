import { sql, type CompiledQuery } from 'kysely'
import type { Caller } from '../../access.js'
import type { AnyRow, TableName } from '../../db/schema.js'
import { checkCount, checkUnion } from '../core/checks.js'
import type { Ask, ScopeAsk } from '../core/accelerators.js'
import type { Db, ResourceDef } from '../core/define.js'
import { arrayParameter, columnTypes } from '../core/insert.js'
import { checkSlots, kindsOf, standInChecks } from './checks.js'
import { bind, planStatement, type Plan, type StatementCache } from './statements.js'
import { compiler, type CallerKind } from '../core/standIns.js'
import { VALUE_KIND } from './valueKinds.js'

// Single creates of one caller, of one shape and scope, that arrived together, made as one statement
// (docs/decisions.md §13): their checks, with each reference's ids gathered, and one INSERT of every row,
// which inserts all of them when every check passed and none otherwise. Each row's id is drawn from the
// table's sequence before the INSERT, with the row's place in the batch, so that each request gets the
// answer of its own row:
//   with input as (select nextval(<sequence>) as id, u.* from unnest($columns…) with ordinality u(…, ord)),
//        chk as (<the checks>),
//        ins as (insert into t (id, …) select id, … from input where (select count(*) from chk) = $n
//                  [and not exists (a row of input, or a group's greatest values, that fails the resource's
//                   storedCondition)]
//                returning id, <the record's JSON>)
//   select input.ord, ins.__json from ins left join input on input.id = ins.id
// Compiled once per shape with stand-ins (statements.ts), as a single create's statement is. A bulk create of one
// shape and tag set (an import's batch, createMany.ts) is made by the same statement, given its columns' arrays, and
// answered with the new ids alone (`RETURNING id`) when only they are asked for.

/** What every create of a batch shares: the caller, the references checked, the scope row, the columns
 * given and the kind of each value. */
export interface BatchShape {
  caller: Caller
  asks: Ask[]
  scopeAsk: ScopeAsk | undefined
  columns: string[]
  rowKinds: string
}

/** Inserts one row per create of the batch, each with the one id each of its references names, when
 * every check passes: their answers' JSON, in the rows' order; null when a check did not pass (then
 * nothing was written). `key`: the shape, without the kind of caller. */
export async function insertBatch<T extends TableName>(
  plans: StatementCache<Plan>,
  db: Db,
  def: ResourceDef<T>,
  key: string,
  shape: BatchShape,
  rows: AnyRow[],
): Promise<string[] | null> {
  const asks = asksOver(def, shape.asks, rows)
  const values = shape.columns.map((c) => rows.map((r) => r[c]))
  return (await insertColumns(plans, db, def, key, { ...shape, asks }, values, 'json')) as string[] | null
}

/** What a batch's INSERT answers of each row: its record's JSON (`compiled.json.returned`), or its id alone. */
export type BatchAnswer = 'json' | 'id'

/** insertBatch of rows given as one array of values per column of `shape.columns`, whose asks name every id the
 * rows refer to: each row's answer (its JSON text, or its id), in the rows' order; null when a check did not pass
 * (then nothing was written). */
export async function insertColumns<T extends TableName>(
  plans: StatementCache<Plan>,
  db: Db,
  def: ResourceDef<T>,
  key: string,
  shape: BatchShape,
  values: unknown[][],
  answer: BatchAnswer,
): Promise<Array<string | number> | null> {
  const count = values[0]?.length ?? 0
  const checks = checkCount(shape.asks, shape.scopeAsk)
  const types = columnTypes(def)
  const arrays = shape.columns.map((c, i) => arrayParameter(types.get(c)!, values[i]))
  const plan = plans.get(def, shape.caller, `batch|${answer}|${key}`, () => planBatch(def, shape.caller, shape, answer))
  const query = plan
    ? bind(plan, [...checkSlots(shape.caller, shape.asks, shape.scopeAsk, kindsOf(shape.scopeAsk)), ...arrays, checks])
    : compileBatch(def, shape, arrays, checks, answer)
  const inserted = (await db.executeQuery(query)).rows
  if (!inserted.length) return null
  const answers: Array<string | number> = new Array(count)
  for (const r of inserted) answers[Number(r.ord) - 1] = answer === 'json' ? (r.__json as string) : Number(r.id)
  // all or none were inserted, each in its own place: anything else is a fault, never answered
  if (inserted.length !== count || answers.some((a) => a === undefined || a === null))
    throw new Error(`a batch of ${count} creates inserted ${inserted.length} rows`)
  return answers
}

/** Can the resource's creates be made in batches? Its answers are written by the database (`compiled.json.returned`). */
export const batchable = <T extends TableName>(def: ResourceDef<T>): boolean => def.compiled.json.returned !== null

/** The asks of these rows: each reference's distinct ids over them (a single create's ask has one). */
export function asksOver<T extends TableName>(def: ResourceDef<T>, asks: Ask[], rows: AnyRow[]): Ask[] {
  return asks.map((a) => {
    const column = def.fields[a.name].column ?? a.name
    return { ...a, ids: [...new Set(rows.map((r) => Number(r[column])))] }
  })
}

function planBatch<T extends TableName>(
  def: ResourceDef<T>,
  kind: CallerKind,
  shape: BatchShape,
  answer: BatchAnswer,
): Plan | null {
  const kinds = kindsOf(shape.scopeAsk)
  const sets = ([0, 1] as const).map((set) => {
    const checks = standInChecks(set, kind, shape.asks, shape.scopeAsk, kinds)
    // each column's array is found by identity; the count of checks is a stand-in number
    return { checks, arrays: shape.columns.map((): unknown[] => []), count: checks.value(VALUE_KIND.number) as number }
  })
  return planStatement(
    [sets[0], sets[1]],
    (s) => [...checkSlots(s.checks.caller, s.checks.asks, s.checks.scopeAsk, kinds), ...s.arrays, s.count],
    (s) =>
      compileBatch(
        def,
        { ...shape, caller: s.checks.caller, asks: s.checks.asks, scopeAsk: s.checks.scopeAsk },
        s.arrays,
        s.count,
        answer,
      ),
  )
}

function compileBatch<T extends TableName>(
  def: ResourceDef<T>,
  shape: BatchShape,
  arrays: unknown[],
  checks: number,
  answer: BatchAnswer,
): CompiledQuery<AnyRow> {
  const types = columnTypes(def)
  const table: string = def.table
  const { columns } = shape
  const unnest = sql.join(arrays.map((a, i) => sql`${a}::${sql.raw(types.get(columns[i])!)}[]`))
  const names = sql.join(columns.map((c) => sql.id(c)))
  // the inserted row is named by its table in RETURNING
  const json = def.compiled.json.returned
  // every row, or none, passes the checks against stored records (a single create's storedCondition): made over
  // each group's greatest values where the resource says it may (storedConditionGroups), else over every row
  const stored = def.storedCondition?.((c) =>
    columns.includes(c) ? sql.ref(`i.${c}`) : sql`null::${sql.raw(types.get(c)!)}`,
  )
  const groups = def.storedConditionGroups
  const storedOver =
    groups && [...groups.by, ...groups.greatest].every((c) => columns.includes(c))
      ? sql`(select ${sql.join([
          ...groups.by.map((c) => sql.ref(c)),
          ...groups.greatest.map((c) => sql`max(${sql.ref(c)}) as ${sql.id(c)}`),
        ])} from input group by ${sql.join(groups.by.map((c) => sql.ref(c)))})`
      : sql`input`
  return (
    compiler
      .with(
        'input',
        () => sql<AnyRow>`(select nextval((select pg_get_serial_sequence(${sql.lit(table)}, 'id'))::regclass) as id, u.*
      from unnest(${unnest}) with ordinality as u(${names}, ord))`,
      )
      .with('chk', () => checkUnion(compiler, shape.caller, shape.asks, shape.scopeAsk))
      .with('ins', (db) =>
        db
          .insertInto(table)
          .columns(['id', ...columns])
          .expression(
            db
              .selectFrom('input')
              .select(['id', ...columns])
              .where(sql<boolean>`(select count(*) from chk) = ${checks}`)
              .$if(stored !== undefined, (q) =>
                q.where(sql<boolean>`not exists (select 1 from ${storedOver} as i where not ${stored})`),
              ),
          )
          .returning(
            answer === 'json'
              ? ['id', sql<string>`(select row_to_json(j)::text from (${json}) as j)`.as('__json')]
              : ['id'],
          ),
      )
      // every inserted row, even one without its place (which would fail the batch rather than answer wrongly)
      .selectFrom('ins')
      .leftJoin('input', 'input.id', 'ins.id')
      .select(answer === 'json' ? ['input.ord', 'ins.__json'] : ['input.ord', 'ins.id'])
      .compile() as CompiledQuery<AnyRow>
  )
}
