import { sql } from 'kysely'
import type { AnyRow, TableName } from '../../db/schema.js'
import type { Context } from '../../http/endpoint.js'
import { badRequest } from '../../http/errors.js'
import type { Db, ResourceDef } from './define.js'
import { arrayParameter, columnTypes } from './insert.js'

// `?onDuplicate=skip` on a create (docs/decisions.md §9): new records identical to a stored one (the
// same values in the resource's `identity` columns) are not created again, so a re-run of an import
// creates nothing.

export type OnDuplicate = 'create' | 'skip'

/** What the request's `onDuplicate` asks for; 400 naming it when the value, or the resource, does not take it. */
export function onDuplicateOf<T extends TableName>(ctx: Context, def: ResourceDef<T>): OnDuplicate {
  const given = ctx.query.onDuplicate
  if (given === undefined || given === 'create') return 'create'
  if (given !== 'skip') throw badRequest({ onDuplicate: [`"${given}" is not a valid choice: skip or create.`] })
  if (!def.identity) throw badRequest({ onDuplicate: [`${def.title} records have no duplicates to skip.`] })
  return 'skip'
}

/** What makes two rows of one request identical: their values in the resource's identity columns, in order. */
export const identityKey = (values: readonly unknown[]): string => JSON.stringify(values)

/** For each new row identical to a stored record: its index → that record's id (the oldest of several). */
export async function storedDuplicates<T extends TableName>(
  db: Db,
  def: ResourceDef<T>,
  rows: AnyRow[],
): Promise<Map<number, number>> {
  const found = await duplicatesQuery(def, rows).execute(db)
  return new Map(found.rows.map((r) => [Number(r.i) - 1, r.id]))
}

/** The statement of storedDuplicates: each row's place (from 1) and the id of the oldest stored record like it. */
export function duplicatesQuery<T extends TableName>(def: ResourceDef<T>, rows: AnyRow[]) {
  return duplicatesOfColumns(
    def,
    (def.identity ?? []).map((c) => rows.map((r) => r[c])),
  )
}

/** duplicatesQuery of rows given as one array of values per identity column (in `identity`'s order). */
export function duplicatesOfColumns<T extends TableName>(def: ResourceDef<T>, values: unknown[][]) {
  const columns: string[] = def.identity ?? []
  const types = columnTypes(def)
  const arrays = columns.map((c, i) => sql`${arrayParameter(types.get(c)!, values[i])}::${sql.raw(types.get(c)!)}[]`)
  const keys = columns.map((_c, i) => sql.raw(`c${i}`))
  const onRow = new Set<string>(def.identityOnRow ?? [])
  const equal = columns.map((c, i) =>
    onRow.has(c) ? sql`t.${sql.ref(c)} + 0 = k.${keys[i]}` : sql`t.${sql.ref(c)} = k.${keys[i]}`,
  )
  // each row looked up by itself (a lateral aggregate is never turned into a join): with the arrays' values in
  // view, the planner chose a merge join on the leading identity columns for 10,000 rows, comparing each with
  // every tag of its tag set and class (12 s at 2·10^5 tags); one index lookup a row costs the same at any size.
  // The minimum is of `id + 0`: of `id` itself, PostgreSQL reads it as the first row in id order of an index that
  // ends in id (tags' (tag_class_id, tag_set_id, id)), walking every tag of the row's set and class to find none
  // when the row is new, which made each batch of an import slower than the one before; `identityOnRow` keeps a
  // generic plan off such an index altogether
  return sql<{ i: string; id: number }>`select k.i, d.id
    from unnest(${sql.join(arrays)}) with ordinality as k(${sql.join(keys)}, i)
    cross join lateral (select min(t.id + 0) as id from ${sql.table(def.table)} t
      where ${sql.join(equal, sql` and `)}) d
    where d.id is not null`
}
