// A batch of records as a column-wise body (`Content-Type: application/vnd.mas.columns+json`, a mas extension, docs/
// decisions.md §44): `{"count": N, "same": {…}, "each": {field: [N values]}}`, the fields every record gives alike
// once, each other field as one array. An import's batch is then a few arrays of numbers and one provenance instead
// of a record per tag naming every field: about a fifth of the bytes for the server to read and parse. A server that
// does not read such bodies says so (src/tagImport.ts) and is sent arrays.

export const COLUMNS_TYPE = 'application/vnd.mas.columns+json'

/** The JSON text of `records`, each with `extra`'s fields too, as a column-wise body; undefined when they do not all
 * give the same fields (an absent field is not a null, which a column could not tell apart). A field is `same` when
 * every record holds the very same value (a primitive, or one object shared by all), else a column of `each`. */
export function columnBody(
  objects: readonly object[],
  extra: Readonly<Record<string, unknown>> = {},
): string | undefined {
  const records = objects as ReadonlyArray<Readonly<Record<string, unknown>>>
  const count = records.length
  if (count === 0) return undefined
  const names = givenFields(records[0]).filter((name) => !Object.prototype.hasOwnProperty.call(extra, name))
  for (let i = 1; i < count; i++) if (!givesExactly(records[i], names, extra)) return undefined
  const same: Record<string, unknown> = { ...extra }
  const each: Record<string, unknown[]> = {}
  for (const name of names) {
    const first = records[0][name]
    let alike = true
    const values = new Array<unknown>(count)
    for (let i = 0; i < count; i++) {
      const v = records[i][name]
      values[i] = v
      if (v !== first) alike = false
    }
    if (alike) same[name] = first
    else each[name] = values
  }
  return JSON.stringify({ count, same, each })
}

/** The fields a record gives: those whose value JSON writes (not undefined). */
const givenFields = (record: Readonly<Record<string, unknown>>) =>
  Object.keys(record).filter((k) => record[k] !== undefined)

/** Does `record` give exactly `names` (besides any of `extra`'s, which the body's own values replace)? */
function givesExactly(
  record: Readonly<Record<string, unknown>>,
  names: readonly string[],
  extra: Readonly<Record<string, unknown>>,
): boolean {
  let given = 0
  for (const k in record) {
    if (record[k] === undefined || Object.prototype.hasOwnProperty.call(extra, k)) continue
    given++
  }
  if (given !== names.length) return false
  for (const name of names) if (record[name] === undefined) return false
  return true
}
