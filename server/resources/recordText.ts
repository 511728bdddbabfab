import { sql, type RawBuilder } from 'kysely'
import type { FieldDef, Fields } from '../http/fields.js'

// A record's JSON text as one concatenation of its columns' texts, byte for byte the text row_to_json writes
// for it (fast/jsonRecord.ts, the records of lists and details), for a stream of many records (the export of a
// tag set, docs/decisions.md "Lists at scale"): measured on 10^6 tags, the database spends a quarter less time
// on it than on row_to_json over a lateral row, which looks up each column's JSON kind for every record; and
// writing the text in node from plain columns costs node twice the database's time (a string and a parse a
// column). test/server/resources/recordText.test.ts compares the two, record for record, on values chosen to differ.

/** The JSON text of a column of a field's type, as row_to_json writes it; undefined: no form here. */
function valueText(f: FieldDef, column: RawBuilder<unknown>): RawBuilder<string> | undefined {
  switch (f.type) {
    case 'object':
      // the json value's own text is what row_to_json writes (an `emptyAsNull` object's NULL is {})
      return sql<string>`coalesce(${column}::text, ${f.emptyAsNull ? sql.lit('{}') : sql.lit('null')})`
    case 'integer':
    case 'pk':
    case 'boolean':
      // int4out and boolout ('true'/'false') are what row_to_json writes
      return sql<string>`coalesce(${column}::text, 'null')`
    case 'float':
      // float8out's text is a JSON number but for NaN and the infinities, which row_to_json (to_json) quotes
      return sql<string>`case when ${column} > '-Infinity' and ${column} < 'Infinity' then ${column}::text else coalesce(to_json(${column})::text, 'null') end`
    case 'string':
    case 'choice':
    case 'datetime':
      return sql<string>`coalesce(to_json(${column})::text, 'null')`
    default:
      return undefined
  }
}

/** The text of the JSON record of `fields` over the row `alias`; null when a readable field has no column or no
 * form here. */
export function recordText(fields: Fields, alias: string): RawBuilder<string> | null {
  const parts: RawBuilder<string>[] = []
  for (const [name, f] of Object.entries(fields)) {
    if (f.writeOnly) continue
    const value = f.column ? valueText(f, sql.ref(`${alias}.${f.column}`)) : undefined
    if (!value) return null
    // the name is written into the statement, not a parameter, so that a COPY may hold it (db/copyOut.ts)
    parts.push(sql<string>`${sql.lit(`${parts.length ? ',' : '{'}${JSON.stringify(name)}:`)}::text || ${value}`)
  }
  return parts.length ? sql<string>`${sql.join(parts, sql` || `)} || '}'` : sql<string>`'{}'`
}
