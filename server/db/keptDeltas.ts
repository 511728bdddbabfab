import { sql } from 'kysely'
import type { Db } from './schema.js'

// Tables of kept deltas: rows that triggers add for every statement that changes what they count (a tag set's
// tags, by class or media file, by class and strength band), whose sums are the counts. Reading a count sums a
// few rows instead of counting every record; when rows have gathered, they are folded into one per key, in one
// statement: exact under concurrent writers, since rows committed meanwhile are neither deleted nor summed.

/** rows of one fold's scope beyond one per key that make it worth folding */
export const FOLD_AFTER_ROWS = 64

/** A table of kept deltas, for folding. */
export interface KeptDeltas {
  table: string
  /** the columns whose values are one fold's rows (e.g. a tag set; or a tag set and one class) */
  scope: string[]
  /** the further columns each of whose values keeps a row of its own in a fold (e.g. the class and band) */
  keys: string[]
  /** the columns summed */
  deltas: string[]
  /** a folded key whose first delta sums to zero keeps no row */
  dropZero?: boolean
  /** for a table without foreign keys: the table each scope or key column refers to. The fold locks the records
   * its rows name against deletion until it commits, and writes no row naming one that is gone (their deletion
   * removes the rows). */
  parents?: Record<string, string>
}

/** Whether a fold's scope read to have `rows` rows, over `keys` distinct keys, has gathered enough to fold. */
export const crowded = (rows: number, keys = 0): boolean => rows - keys > FOLD_AFTER_ROWS

/** Fold the rows of `kept` whose scope columns have these values (in the order of `kept.scope`). */
export async function foldKept(db: Db, kept: KeptDeltas, at: number[]): Promise<void> {
  const grouped = [...kept.scope, ...kept.keys].map((c) => sql.ref(c))
  const where = sql.join(
    kept.scope.map((c, i) => sql`${sql.ref(c)} = ${at[i]}`),
    sql` and `,
  )
  const sums = kept.deltas.map((d) => sql`sum(${sql.ref(d)})`)
  // each parent's records that the rows name, locked; a row naming one that is gone is left out
  const parents = Object.entries(kept.parents ?? {})
  const lockParents = sql.join(
    parents.map(
      ([column, table], i) => sql`, ${sql.id(`p${i}`)} as (select p.id from ${sql.table(table)} as p
        where p.id in (select g.${sql.ref(column)} from gone g) for key share of p)`,
    ),
    sql``,
  )
  const parentsLocked = parents.length
    ? sql`where ${sql.join(
        parents.map(([column], i) => sql`${sql.ref(column)} in (select ${sql.id(`p${i}`)}.id from ${sql.id(`p${i}`)})`),
        sql` and `,
      )}`
    : sql``
  const having = kept.dropZero ? sql`having sum(${sql.ref(kept.deltas[0])}) <> 0` : sql``
  try {
    await sql`with gone as (delete from ${sql.table(kept.table)} where ${where}
        returning ${sql.join([...grouped, ...kept.deltas.map((d) => sql.ref(d))])})${lockParents}
      insert into ${sql.table(kept.table)} (${sql.join([...grouped, ...kept.deltas.map((d) => sql.ref(d))])})
      select ${sql.join([...grouped, ...sums])} from gone ${parentsLocked} group by ${sql.join(grouped)} ${having}`.execute(
      db,
    )
  } catch {
    // two folds meeting, or a fold and a parent's deletion in a deadlock: the rows stay as they are, still exact
  }
}

/** Fold every scope of `kept` that has gathered more than FOLD_AFTER_ROWS rows beyond one per key; answers how
 * many were folded. Reading a count folds its own scope; this keeps scopes written to but not read from growing
 * the table, which would slow every count. */
export async function foldCrowded(db: Db, kept: KeptDeltas): Promise<number> {
  const scope = kept.scope.map((c) => sql.ref(c))
  const keys = kept.keys.length ? sql`count(distinct (${sql.join(kept.keys.map((c) => sql.ref(c)))}))` : sql`0`
  const many = await sql<
    Record<string, number>
  >`select ${sql.join(kept.scope.map((c, i) => sql`${sql.ref(c)} as ${sql.id(`s${i}`)}`))}
    from ${sql.table(kept.table)} group by ${sql.join(scope)} having count(*) - ${keys} > ${FOLD_AFTER_ROWS}`.execute(
    db,
  )
  for (const row of many.rows)
    await foldKept(
      db,
      kept,
      kept.scope.map((_c, i) => row[`s${i}`]),
    )
  return many.rows.length
}
