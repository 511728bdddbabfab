import { sql, type Kysely, type RawBuilder } from 'kysely'
import { anyTable, type Db, type ListRequest, type Query, type ResourceDef } from '../core/define.js'
import type { AnyTables, TableName } from '../../db/schema.js'

// A page of a list whose records the database writes as JSON, from the SQL of its records worked out when the
// resource was defined (core/recordJson.ts; docs/decisions.md §11).

/** How the records of a page of `def`, whose records the database writes (`compiled.json.record`), are written
 * as JSON: the statement for `page` (a query of records as `r`, limited to a page), with rows of `id`, the
 * named `extras` of `page` and `__json`, unordered. */
export function listPageJson<T extends TableName>(
  db: Db | Kysely<AnyTables>,
  def: ResourceDef<T>,
  req: Pick<ListRequest, 'origin' | 'now'>,
): (page: Query, extras: string[]) => Query {
  const record = def.compiled.json.record
  if (!record) throw new Error(`the records of ${def.name} are not written by the database`)
  // the record a detail writes: made once, or for each request when its computed fields read the origin or clock
  const columns = record.columns(req)
  return (page, extras) => pageStatement(db, page, extras, columns)
}

function pageStatement(db: Db | Kysely<AnyTables>, page: Query, extras: string[], columns: RawBuilder<unknown>): Query {
  return anyTable(db)
    .with('page', () => page)
    .selectFrom('page as r')
    .innerJoinLateral(sql`(${columns})`.as('j'), (join) => join.onTrue())
    .select([
      'r.id',
      ...extras.map((e) => `r.${e}`),
      sql<string>`row_to_json(j)::text`.as('__json'),
    ]) as unknown as Query
}
