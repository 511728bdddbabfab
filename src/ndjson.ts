import { StringDecoder } from 'node:string_decoder'

// Records of a stream of JSON lines (NDJSON), parsed a batch at a time. Lines are cut from each chunk as it comes
// (readline's events cost more than the parse of the records); an empty line, or a lone CR, is passed over.
//
// A record whose last field is, text for text, the last field of the record before shares that field's parsed value
// (so its records are to be read, not changed): the tags of one import end in one provenance, whose parse, and JSON
// text made again by each export, took a third of a Camtrap DP export's time (docs/decisions.md §32). Only the rest of
// its line is parsed, and that parse proves the cut: the rest with a closing brace is a whole object only when the
// cut field is a field of the record itself, not of an object inside it nor of a string.

/** A record's last field (an object or an array) as its line ends: `,"name":value}`. */
interface LastField {
  text: string
  name: string
  /** the field's value, parsed from `text` when the cut is first proved (undefined before) */
  value?: unknown
  /** the line it was found in, until the cut is proved */
  line: string
}

export async function* ndjsonBatches<T>(chunks: AsyncIterable<Buffer>, batchSize: number): AsyncGenerator<T[]> {
  const decoder = new StringDecoder('utf8')
  let records: T[] = []
  let rest = ''
  let last: LastField | undefined
  const take = (line: string) => {
    if (!line || line === '\r') return
    if (line.endsWith('\r')) line = line.slice(0, -1)
    const shared = last && line.length > last.text.length && line.endsWith(last.text) ? sharing(last, line) : undefined
    if (shared) {
      records.push(shared as T)
      return
    }
    const record = JSON.parse(line) as T
    records.push(record)
    last = lastFieldOf(line, record)
  }
  for await (const chunk of chunks) {
    const chunkText = rest + decoder.write(chunk)
    let start = 0
    for (let end = chunkText.indexOf('\n'); end >= 0; start = end + 1, end = chunkText.indexOf('\n', start))
      take(chunkText.slice(start, end))
    rest = chunkText.slice(start)
    if (records.length >= batchSize) {
      yield records
      records = []
    }
  }
  take(rest + decoder.end())
  if (records.length) yield records
}

/** The record of `line`, which ends as `last` does, with `last`'s value; undefined when the cut is not at a field of
 * the record (then the line is parsed whole). The first time, the cut is proved in the line `last` was found in
 * too, and the value is parsed from the field's own text: a field alone (`{"name":value}`), so that the record is
 * the one JSON.parse makes of the line whatever its keys. */
function sharing(last: LastField, line: string): Record<string, unknown> | undefined {
  const record = objectOf(line.slice(0, line.length - last.text.length) + '}')
  if (!record) return undefined
  if (last.line) {
    const field = objectOf('{' + last.text.slice(1))
    const names = field ? Object.keys(field) : []
    if (
      !objectOf(last.line.slice(0, last.line.length - last.text.length) + '}') ||
      names.length !== 1 ||
      names[0] !== last.name
    )
      return undefined
    last.value = field![last.name]
    last.line = ''
  }
  record[last.name] = last.value
  return record
}

/** The JSON object of `text`; undefined when it is not one. */
function objectOf(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** The record's last field as its line ends, when its value is an object or an array (a parse worth sharing). */
function lastFieldOf(line: string, record: unknown): LastField | undefined {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return undefined
  let name: string | undefined
  for (const key in record) name = key
  // an own "__proto__" is JSON.parse's alone to make: assigned, it would set the record's prototype
  if (name === undefined || name === '__proto__') return undefined
  const value = (record as Record<string, unknown>)[name]
  if (value === null || typeof value !== 'object') return undefined
  const at = line.lastIndexOf(`,${JSON.stringify(name)}:`)
  if (at < 0 || !line.endsWith('}')) return undefined
  return { text: line.slice(at), name, line }
}
