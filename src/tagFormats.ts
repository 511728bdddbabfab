import { parseRef, type Ref } from './refs.js'
import { jsonTextMemo, textMemo } from './textMemo.js'
import { ANNOTATIONS_MAX, PROVENANCE_MAX } from '../server/resources/tagLimits.js'
import { MSG } from '../server/values.js'

// Tag files read by `mas tag import` and written by `mas tag export`:
// CSV (header mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency[,strength], then optionally the flags,
// the names, annotations and provenance an export writes),
// JSON (one array of tag objects), NDJSON (one tag object a line) and Raven Pro
// selection tables (tab-separated, src/raven.ts). Media files and tag classes are given by
// id or by name (src/lookup.ts resolves them after parsing).

export type TagFormat = 'csv' | 'json' | 'ndjson' | 'raven'
export const TAG_FORMATS = ['csv', 'json', 'ndjson', 'raven'] as const satisfies readonly TagFormat[]

/** What a tag file row holds: the fields sent to POST tag/ (tagSet added by the caller). */
export interface TagInput {
  mediaFile: number
  tagClass: number
  startTime: number
  endTime: number
  minFrequency: number
  maxFrequency: number
  strength?: number
  machineTagged?: boolean
  userTagged?: boolean
  randomlyChosen?: boolean
  /** a mas extension: the columns of a Raven table mas has no field for (Notes, Call type…), column → text */
  annotations?: Record<string, string>
  /** a mas extension: what made the tag (the tool, its version and settings), kept as given */
  provenance?: Record<string, unknown>
}

/** A tag as the server lists it (what export writes). */
export interface TagRecord extends Partial<TagInput> {
  id?: number
  [k: string]: unknown
}

/** A tag's annotations, when it has any (an object of texts); {} otherwise. */
export const annotationsOf = (t: TagRecord): Record<string, unknown> =>
  t.annotations !== null && typeof t.annotations === 'object' && !Array.isArray(t.annotations)
    ? (t.annotations as Record<string, unknown>)
    : {}

/** Tags ready to send, each with the input line it came from. */
export interface ParsedTags {
  tags: TagInput[]
  lines: number[]
  errors: string[]
}

/** A row as read from a file: the media file and tag class by id or by name, not yet looked up. */
export interface TagRow extends Omit<TagInput, 'mediaFile' | 'tagClass'> {
  mediaFile: Ref
  tagClass: Ref
  /** the id written beside the media file's name (a Raven table's mas_media_file_id): taken when that
   * file has the name, so two files of one name are told apart, and a table from another server falls
   * back to the name */
  mediaFileHint?: number
}

/** What a tag file holds: rows with their lines, errors by line, and warnings (e.g. ignored columns). */
export interface ParsedRows {
  rows: TagRow[]
  lines: number[]
  errors: string[]
  warnings: string[]
  unit: 'line' | 'item'
}

export const emptyRows = (unit: 'line' | 'item' = 'line'): ParsedRows => ({
  rows: [],
  lines: [],
  errors: [],
  warnings: [],
  unit,
})

/** Options of parsing: the media file of rows without one (a Raven table of one recording), the class
 * column of a Raven table, and its strength column (BirdNET's tables: Confidence). */
/** Does a tag have a strength to show? A detector's confidence, or one given; a tag made by hand has the API's default
 * 0, which tables and exports leave empty (an empty cell reads back as that default). */
export const hasStrength = (t: { machineTagged?: unknown; strength?: unknown }): boolean =>
  typeof t.strength === 'number' && (t.machineTagged === true || t.strength !== 0)

export interface ParseOptions {
  format?: TagFormat
  mediaFile?: string
  classColumn?: string
  strengthColumn?: string
  /** a Raven table of several recordings without File Offset (s): each Begin Time is already within its row's file */
  timesInFile?: boolean
}

export const CSV_COLUMNS = [
  'mediaFile',
  'tagClass',
  'startTime',
  'endTime',
  'minFrequency',
  'maxFrequency',
  'strength',
] as const
const REQUIRED = ['mediaFile', 'tagClass', 'startTime', 'endTime', 'minFrequency', 'maxFrequency'] as const
/** The tag's flags: columns an export writes after `strength` (true or false), read back by an import; a CSV without
 * them (an older export, a file made by hand) gives tags the API's defaults, false. */
export const FLAGS = ['machineTagged', 'userTagged', 'randomlyChosen'] as const
/** What an export writes beside the ids for people to read (the file's alias, the class's name); an
 * import reads the ids and leaves these be. */
export const CSV_NAME_COLUMNS = ['mediaFileAlias', 'tagClassName'] as const
/** The tag's annotations, as the JSON text of their object (empty when it has none), and what made it, as JSON text:
 * the last two columns an export writes, read back by an import. */
const CSV_ANNOTATIONS = 'annotations'
const CSV_PROVENANCE = 'provenance'

/** A column of a table holding the tag's annotation of the name after this prefix (`mas_annotation:Channel`): written
 * where the annotation's own name is a column the table fills with something else (Raven's `Channel`, BirdNET's
 * `Common name`), and read back as that annotation; a column of the plain name beside it is then not an annotation. */
export const ANNOTATION_PREFIX = 'mas_annotation:'

/** The annotation each column of a header holds, by position: its name, or of a `mas_annotation:NAME` column (what a
 * mas export writes where the format fills a column of that name otherwise) NAME, and then none of the column NAME;
 * none of the columns `used` for the tag's fields. */
export function annotationColumns(
  header: readonly string[],
  used: ReadonlySet<number> = new Set(),
): Array<[number, string]> {
  const names = header.map((h) => h.trim())
  const prefixed = new Set(
    names.filter((h) => h.startsWith(ANNOTATION_PREFIX)).map((h) => h.slice(ANNOTATION_PREFIX.length)),
  )
  return names.flatMap((h, i): Array<[number, string]> => {
    if (used.has(i) || h === '') return []
    if (h.startsWith(ANNOTATION_PREFIX))
      return h.length > ANNOTATION_PREFIX.length ? [[i, h.slice(ANNOTATION_PREFIX.length)]] : []
    return prefixed.has(h) ? [] : [[i, h]]
  })
}

/** The names an export writes beside the ids. */
export interface ExportNames {
  mediaFile: (id: number) => string | undefined
  tagClass: (id: number) => string | undefined
}

/** Which format a file holds, from its first non-blank line. */
export function detectFormat(text: string): TagFormat {
  const first =
    text
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .find((l) => l.trim() !== '') ?? ''
  if (first.trimStart().startsWith('[')) return 'json'
  if (first.trimStart().startsWith('{')) return 'ndjson'
  if (first.includes('\t') && /(^|\t)Selection(\t|$)/.test(first)) return 'raven'
  return 'csv'
}

// ---- CSV ----------------------------------------------------------------

const QUOTE = 0x22
const LF = 0x0a
const CR = 0x0d

/** RFC 4180 records with the line each starts on (quoted fields may hold commas, quotes, newlines). */
export function csvRecords(text: string, separator = ','): { line: number; fields: string[] }[] {
  const out: { line: number; fields: string[] }[] = []
  let fields: string[] = []
  let field = ''
  let quoted = false
  let line = 1
  let start = 1
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  const endRecord = () => {
    fields.push(field)
    if (!(fields.length === 1 && fields[0] === '')) out.push({ line: start, fields })
    fields = []
    field = ''
  }
  // Runs of ordinary characters are copied as one slice (a 100,000-row file parses in a fraction of the time).
  const n = text.length
  const sep = separator.charCodeAt(0)
  while (i < n) {
    if (quoted) {
      let j = text.indexOf('"', i)
      if (j < 0) j = n
      for (let k = text.indexOf('\n', i); k >= 0 && k < j; k = text.indexOf('\n', k + 1)) line++
      field += text.slice(i, j)
      if (j + 1 < n && text.charCodeAt(j + 1) === QUOTE) {
        field += '"'
        i = j + 2
      } else {
        quoted = false
        i = j + 1
      }
      continue
    }
    const c = text.charCodeAt(i)
    if (c === QUOTE && field === '') {
      quoted = true
      i++
    } else if (c === sep) {
      fields.push(field)
      field = ''
      i++
    } else if (c === LF || c === CR) {
      i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1
      endRecord()
      line++
      start = line
    } else {
      let j = i + 1
      for (; j < n; j++) {
        const d = text.charCodeAt(j)
        if (d === sep || d === LF || d === CR) break
      }
      field += text.slice(i, j)
      i = j
    }
  }
  if (field !== '' || fields.length) endRecord()
  return out
}

/** The CSV cell of a tag's provenance, its JSON text (empty without one), made once while tags share one: the
 * tags of one import all do (src/textMemo.ts). One for each export. */
export function provenanceCells(): (provenance: unknown) => string {
  const cell = jsonTextMemo(csvField)
  return (provenance) => (provenance ? cell(provenance) : '')
}

export function csvField(v: unknown): string {
  if (v === undefined || v === null) return ''
  if (typeof v === 'number') return String(v) // most cells of an export: no character to quote
  const s = String(v)
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function parseCsv(text: string, mediaFile?: string): ParsedRows {
  const records = csvRecords(text)
  const result = emptyRows()
  if (records.length === 0) {
    result.errors.push('line 1: the file is empty (expected a header row)')
    return result
  }
  const reader = csvReader(records[0].fields, mediaFile)
  if ('error' in reader) {
    result.errors.push(`line ${records[0].line}: ${reader.error}`)
    return result
  }
  for (const rec of records.slice(1)) reader.row(result, rec.line, rec.fields)
  return result
}

/** Reads the rows of a mas CSV after its `header` (src/tableReader.ts streams them), or says what is wrong with it. */
export function csvReader(
  headerFields: string[],
  mediaFile?: string,
): { row: (result: ParsedRows, line: number, fields: string[]) => void } | { error: string } {
  const header = headerFields.map((h) => h.trim())
  const index = new Map(header.map((h, i) => [h, i]))
  const missing = REQUIRED.filter((c) => !index.has(c) && !(c === 'mediaFile' && mediaFile !== undefined))
  const known: readonly string[] = [...CSV_COLUMNS, ...FLAGS, ...CSV_NAME_COLUMNS, CSV_ANNOTATIONS, CSV_PROVENANCE]
  const unknown = header.filter((h) => !known.includes(h))
  if (missing.length || unknown.length) {
    return {
      error:
        `bad header${missing.length ? `: missing ${missing.join(', ')}` : ''}` +
        `${unknown.length ? `${missing.length ? ';' : ':'} unknown column ${unknown.join(', ')}` : ''}` +
        ` (expected ${CSV_COLUMNS.join(',')})`,
    }
  }
  return {
    row(result, line, fields) {
      if (fields.length !== header.length) {
        result.errors.push(`line ${line}: expected ${header.length} fields, found ${fields.length}`)
        return
      }
      const raw: Record<string, string> = {}
      header.forEach((h, i) => {
        raw[h] = fields[i].trim()
      })
      if (mediaFile !== undefined && (raw.mediaFile ?? '') === '') raw.mediaFile = mediaFile
      addRow(result, line, raw)
    },
  }
}

export function writeCsv(tags: Iterable<TagRecord>, names?: ExportNames): string {
  let out = csvHeader(names)
  csvRows(tags, (text) => (out += text), provenanceCells(), names)
  return out
}

const csvHeader = (names?: ExportNames) =>
  [...CSV_COLUMNS, ...FLAGS, ...(names ? CSV_NAME_COLUMNS : []), CSV_ANNOTATIONS, CSV_PROVENANCE].join(',') + '\n'

/** A writer of tags' annotations as CSV cells: their JSON text, empty when a tag has none (told without making the
 * list of its keys); a detector's tags repeat a few annotations (a species' common name), each quoted once. */
function annotationsCells(): (t: TagRecord) => string {
  const quoted = textMemo(csvField)
  return (t) => {
    const notes = annotationsOf(t)
    for (const _ in notes) return quoted(JSON.stringify(notes))
    return ''
  }
}

/** A flag's cell: true or false, as csvField writes them, without making a string of the boolean for every tag. */
const flagCell = (v: unknown) => (v === true ? 'true' : v === false ? 'false' : csvField(v))

/** The rows of `tags`, each to `out`, their provenance cells made by `provenanceCell` (provenanceCells). */
function csvRows(
  tags: Iterable<TagRecord>,
  out: (row: string) => void,
  provenanceCell: (provenance: unknown) => string,
  names?: ExportNames,
  annotationsCell = annotationsCells(),
): void {
  for (const t of tags) {
    let row = csvField(t[CSV_COLUMNS[0]])
    for (let i = 1; i < CSV_COLUMNS.length; i++) row += `,${csvField(t[CSV_COLUMNS[i]])}`
    for (const f of FLAGS) row += `,${flagCell(t[f])}`
    if (names)
      row += `,${csvField(names.mediaFile(Number(t.mediaFile)))},${csvField(names.tagClass(Number(t.tagClass)))}`
    out(`${row},${annotationsCell(t)},${provenanceCell(t.provenance)}\n`)
  }
}

// ---- NDJSON -------------------------------------------------------------

export function parseNdjson(text: string): ParsedRows {
  const result = emptyRows()
  const lines = text.replace(/^\uFEFF/, '').split('\n')
  lines.forEach((l, i) => {
    if (l.trim() === '') return
    let obj: unknown
    try {
      obj = JSON.parse(l)
    } catch (err) {
      result.errors.push(`line ${i + 1}: not valid JSON (${(err as Error).message})`)
      return
    }
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
      result.errors.push(`line ${i + 1}: expected a JSON object`)
      return
    }
    addRow(result, i + 1, obj as Record<string, unknown>)
  })
  return result
}

// ---- JSON array ---------------------------------------------------------

/** One JSON array of tag objects; rows are numbered by their place in the array ("item N"). */
export function parseJsonArray(text: string): ParsedRows {
  const result = emptyRows('item')
  let data: unknown
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (err) {
    result.errors.push(`not valid JSON (${(err as Error).message})`)
    return result
  }
  if (!Array.isArray(data)) {
    result.errors.push('expected a JSON array of tag objects')
    return result
  }
  data.forEach((obj, i) => {
    if (!obj || typeof obj !== 'object' || Array.isArray(obj))
      result.errors.push(`item ${i + 1}: expected a JSON object`)
    else addRow(result, i + 1, obj as Record<string, unknown>, 'item')
  })
  return result
}

export function writeJsonArray(tags: TagRecord[]): string {
  return tags.length ? `[\n${tags.map((t) => JSON.stringify(t)).join(',\n')}\n]\n` : '[]\n'
}

export function writeNdjson(tags: Iterable<TagRecord>): string {
  let out = ''
  ndjsonRows(tags, (line) => (out += line))
  return out
}

function ndjsonRows(tags: Iterable<TagRecord>, out: (line: string) => void): void {
  for (const t of tags) out(JSON.stringify(t) + '\n')
}

// ---- validation ---------------------------------------------------------

/** The fields of a tag a table's row gives, each read from one column. */
export type RowField = 'mediaFile' | 'tagClass' | 'startTime' | 'endTime' | 'minFrequency' | 'maxFrequency' | 'strength'

/** The table's own name of the column each field was read from (BirdNET's `Confidence` for the strength), so that a
 * row's error names the column the user sees in the file. */
export type ColumnNames = Partial<Record<RowField, string>>

/** Validates one row (strings from CSV/Raven, or JSON values) and adds the tag or its errors; `columns` names the
 * table's columns its errors speak of, where they are not the fields' own names. */
export function addRow(
  result: ParsedRows,
  line: number,
  raw: Record<string, unknown>,
  unit = 'line',
  columns?: ColumnNames,
): void {
  const problems: string[] = []
  const tag: Partial<TagRow> = {}
  const column = (f: RowField) => columns?.[f] || f
  const named = (f: RowField) => (column(f) !== f ? `${column(f)} (${f})` : f)
  for (const f of ['mediaFile', 'tagClass'] as const) {
    const v = refValue(raw[f])
    if (v === undefined) problems.push(`${named(f)} is required`)
    else if (v === null) problems.push(`${named(f)} must be a positive integer id or a name, not ${show(raw[f])}`)
    else tag[f] = v
  }
  for (const f of ['startTime', 'endTime', 'minFrequency', 'maxFrequency', 'strength'] as const) {
    const v = numberValue(raw[f])
    const optional = f === 'strength'
    if (v === undefined) {
      if (!optional) problems.push(`${named(f)} is required`)
    } else if (v === null) problems.push(`${named(f)} must be a number, not ${show(raw[f])}`)
    else if (f !== 'strength' && v < 0) problems.push(`${named(f)} must not be negative`)
    else tag[f] = v
  }
  if (tag.startTime !== undefined && tag.endTime !== undefined && tag.endTime < tag.startTime) {
    problems.push(`${column('endTime')} (${tag.endTime}) is before ${column('startTime')} (${tag.startTime})`)
  }
  if (tag.minFrequency !== undefined && tag.maxFrequency !== undefined && tag.maxFrequency < tag.minFrequency) {
    problems.push(
      `${column('maxFrequency')} (${tag.maxFrequency}) is below ${column('minFrequency')} (${tag.minFrequency})`,
    )
  }
  const hint = numberValue(raw.mediaFileHint)
  if (typeof hint === 'number' && Number.isSafeInteger(hint) && hint > 0) tag.mediaFileHint = hint
  const annotations = annotationsValue(raw.annotations)
  if (annotations === null) problems.push(`annotations must be an object of texts, not ${show(raw.annotations)}`)
  else if (annotations !== undefined && !withinSize(annotations, ANNOTATIONS_MAX))
    problems.push(`annotations: ${MSG.jsonMaxLength(ANNOTATIONS_MAX)}`)
  else if (annotations !== undefined) tag.annotations = annotations
  const provenance = provenanceValue(raw.provenance)
  if (provenance === null) problems.push(`provenance must be a JSON object, not ${show(raw.provenance)}`)
  else if (provenance !== undefined && !withinSize(provenance, PROVENANCE_MAX))
    problems.push(`provenance: ${MSG.jsonMaxLength(PROVENANCE_MAX)}`)
  else if (provenance !== undefined) tag.provenance = provenance
  for (const f of FLAGS) {
    const v = raw[f]
    if (v === undefined || v === '' || v === null) continue
    if (typeof v === 'boolean') tag[f] = v
    else if (v === 'true' || v === 'false') tag[f] = v === 'true'
    else problems.push(`${f} must be true or false, not ${show(v)}`)
  }
  if (problems.length) result.errors.push(`${unit} ${line}: ${problems.join('; ')}`)
  else {
    result.rows.push(tag as TagRow)
    result.lines.push(line)
  }
}

/** Is a JSON field within the server's size for it (server/http/fields.ts measures it so)? */
const withinSize = (value: object, max: number) => JSON.stringify(value).length <= max

/** A JSON object field of a row: the object, or its JSON text (a CSV cell) parsed; undefined when absent or an empty
 * cell, null when the text is no JSON or the value no object. */
function objectValue(v: unknown): Record<string, unknown> | undefined | null {
  if (v === undefined || v === null || v === '') return undefined
  let value: unknown = v
  if (typeof v === 'string') {
    try {
      value = JSON.parse(v) as unknown
    } catch {
      return null
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null
}

/** A tag's annotations: an object of texts (objectValue); undefined when absent or empty (a tag without any is sent
 * without the field, as the original service takes it), null when not an object of texts. */
function annotationsValue(v: unknown): Record<string, string> | undefined | null {
  const value = objectValue(v)
  if (!value) return value
  if (Object.values(value).some((x) => typeof x !== 'string')) return null
  return Object.keys(value).length ? (value as Record<string, string>) : undefined
}

/** What made a tag: an object (objectValue). */
const provenanceValue = objectValue

/** A record by id (a positive integer, or digits) or by name (other text); undefined: absent;
 * null: neither (a number that is no id, `name:` with nothing after it, a JSON object). */
function refValue(v: unknown): Ref | undefined | null {
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return undefined
  if (typeof v !== 'number' && typeof v !== 'string') return null
  const ref = parseRef(v)
  if ('id' in ref) return Number.isSafeInteger(ref.id) && ref.id > 0 ? ref : null
  return ref.name.trim() === '' ? null : ref
}

export function numberValue(v: unknown): number | undefined | null {
  if (v === undefined || v === null || v === '') return undefined
  const n =
    typeof v === 'number'
      ? v
      : typeof v === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v)
        ? Number(v)
        : NaN
  return Number.isFinite(n) ? n : null
}

function show(v: unknown): string {
  return JSON.stringify(v)
}

export interface TagWriter {
  header: string
  /** the text of `tags`, a piece at a time to `out` */
  rows: (tags: TagRecord[], out: (text: string) => void) => void
  /** what ends the output, after the last rows */
  footer: () => string
  /** the only fields of a tag record `rows` reads (undefined: it writes whole records) */
  fields?: readonly string[]
}

/** Writes tags a page at a time: the header once, then rows, then the footer (the closing bracket of a
 * JSON array). Raven tables need every tag and its recording first (src/raven.ts). CSV carries `names`
 * beside the ids when given. */
export function tagWriter(format: Exclude<TagFormat, 'raven'>, names?: ExportNames): TagWriter {
  const none = () => ''
  if (format === 'ndjson') return { header: '', rows: ndjsonRows, footer: none }
  if (format === 'json') {
    let written = 0
    return {
      header: '[',
      rows: (tags, out) => {
        for (const t of tags) out(`${written++ ? ',' : ''}\n${JSON.stringify(t)}`)
      },
      footer: () => `${written ? '\n' : ''}]\n`,
    }
  }
  const provenanceCell = provenanceCells()
  const annotationsCell = annotationsCells()
  return {
    header: csvHeader(names),
    rows: (tags, out) => csvRows(tags, out, provenanceCell, names, annotationsCell),
    footer: none,
    fields: [...CSV_COLUMNS, ...FLAGS, CSV_ANNOTATIONS, CSV_PROVENANCE],
  }
}
