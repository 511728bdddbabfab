// Tag files read by `mas tag import` and written by `mas tag export`:
// CSV (header mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency[,strength]),
// JSON (one array of tag objects), NDJSON (one tag object a line) and Raven Pro
// selection tables (tab-separated).

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
}

/** A tag as the server lists it (what export writes). */
export interface TagRecord extends Partial<TagInput> { id?: number; [k: string]: unknown }

export interface ParsedTags { tags: TagInput[]; lines: number[]; errors: string[] }

export const CSV_COLUMNS = ['mediaFile', 'tagClass', 'startTime', 'endTime', 'minFrequency', 'maxFrequency', 'strength'] as const
const REQUIRED = ['mediaFile', 'tagClass', 'startTime', 'endTime', 'minFrequency', 'maxFrequency'] as const
const FLAGS = ['machineTagged', 'userTagged', 'randomlyChosen'] as const

export const RAVEN_COLUMNS = ['Selection', 'View', 'Channel', 'Begin Time (s)', 'End Time (s)', 'Low Freq (Hz)', 'High Freq (Hz)',
  'Tag Class', 'Media File', 'Strength'] as const
const RAVEN_CLASS = ['tag class', 'tagclass', 'class', 'class id', 'annotation', 'species']
const RAVEN_MEDIA = ['media file', 'mediafile', 'media file id', 'media']

/** Which format a file holds, from its first non-blank line. */
export function detectFormat(text: string): TagFormat {
  const first = text.replace(/^\uFEFF/, '').split(/\r?\n/).find((l) => l.trim() !== '') ?? ''
  if (first.trimStart().startsWith('[')) return 'json'
  if (first.trimStart().startsWith('{')) return 'ndjson'
  if (first.includes('\t') && /(^|\t)Selection(\t|$)/.test(first)) return 'raven'
  return 'csv'
}

export function parseTags(text: string, opts: { format?: TagFormat; mediaFile?: number } = {}): ParsedTags {
  const format = opts.format ?? detectFormat(text)
  if (format === 'json') return parseJsonArray(text)
  if (format === 'ndjson') return parseNdjson(text)
  if (format === 'raven') return parseRaven(text, opts.mediaFile)
  return parseCsv(text, opts.mediaFile)
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
      if (j + 1 < n && text.charCodeAt(j + 1) === QUOTE) { field += '"'; i = j + 2 } else { quoted = false; i = j + 1 }
      continue
    }
    const c = text.charCodeAt(i)
    if (c === QUOTE && field === '') { quoted = true; i++ }
    else if (c === sep) { fields.push(field); field = ''; i++ }
    else if (c === LF || c === CR) {
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

function csvField(v: unknown): string {
  if (v === undefined || v === null) return ''
  const s = String(v)
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function parseCsv(text: string, mediaFile?: number): ParsedTags {
  const records = csvRecords(text)
  const result: ParsedTags = { tags: [], lines: [], errors: [] }
  if (records.length === 0) { result.errors.push('line 1: the file is empty (expected a header row)'); return result }
  const header = records[0].fields.map((h) => h.trim())
  const index = new Map(header.map((h, i) => [h, i]))
  const missing = REQUIRED.filter((c) => !index.has(c) && !(c === 'mediaFile' && mediaFile !== undefined))
  const unknown = header.filter((h) => !(CSV_COLUMNS as readonly string[]).includes(h) && !(FLAGS as readonly string[]).includes(h))
  if (missing.length || unknown.length) {
    result.errors.push(`line ${records[0].line}: bad header${missing.length ? `: missing ${missing.join(', ')}` : ''}` +
      `${unknown.length ? `${missing.length ? ';' : ':'} unknown column ${unknown.join(', ')}` : ''}` +
      ` (expected ${CSV_COLUMNS.join(',')})`)
    return result
  }
  for (const rec of records.slice(1)) {
    if (rec.fields.length !== header.length) {
      result.errors.push(`line ${rec.line}: expected ${header.length} fields, found ${rec.fields.length}`)
      continue
    }
    const raw: Record<string, string> = {}
    header.forEach((h, i) => { raw[h] = rec.fields[i].trim() })
    if (mediaFile !== undefined && (raw.mediaFile ?? '') === '') raw.mediaFile = String(mediaFile)
    addRow(result, rec.line, raw)
  }
  return result
}

export function writeCsv(tags: Iterable<TagRecord>): string {
  let out = CSV_COLUMNS.join(',') + '\n'
  for (const t of tags) out += CSV_COLUMNS.map((c) => csvField(t[c])).join(',') + '\n'
  return out
}

// ---- NDJSON -------------------------------------------------------------

export function parseNdjson(text: string): ParsedTags {
  const result: ParsedTags = { tags: [], lines: [], errors: [] }
  const lines = text.replace(/^\uFEFF/, '').split('\n')
  lines.forEach((l, i) => {
    if (l.trim() === '') return
    let obj: unknown
    try { obj = JSON.parse(l) } catch (err) {
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
export function parseJsonArray(text: string): ParsedTags {
  const result: ParsedTags = { tags: [], lines: [], errors: [] }
  let data: unknown
  try { data = JSON.parse(text.replace(/^\uFEFF/, '')) } catch (err) {
    result.errors.push(`not valid JSON (${(err as Error).message})`)
    return result
  }
  if (!Array.isArray(data)) {
    result.errors.push('expected a JSON array of tag objects')
    return result
  }
  data.forEach((obj, i) => {
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) result.errors.push(`item ${i + 1}: expected a JSON object`)
    else addRow(result, i + 1, obj as Record<string, unknown>, 'item')
  })
  return result
}

export function writeJsonArray(tags: TagRecord[]): string {
  return tags.length ? `[\n${tags.map((t) => JSON.stringify(t)).join(',\n')}\n]\n` : '[]\n'
}

export function writeNdjson(tags: Iterable<TagRecord>): string {
  let out = ''
  for (const t of tags) out += JSON.stringify(t) + '\n'
  return out
}

// ---- Raven Pro selection table ------------------------------------------

export function parseRaven(text: string, mediaFile?: number): ParsedTags {
  const records = csvRecords(text, '\t')
  const result: ParsedTags = { tags: [], lines: [], errors: [] }
  if (records.length === 0) { result.errors.push('line 1: the file is empty (expected a header row)'); return result }
  const header = records[0].fields.map((h) => h.trim())
  const find = (names: readonly string[]) => header.findIndex((h) => names.includes(h.toLowerCase()))
  const col = {
    selection: find(['selection']),
    view: find(['view']),
    begin: find(['begin time (s)']),
    end: find(['end time (s)']),
    low: find(['low freq (hz)']),
    high: find(['high freq (hz)']),
    tagClass: find(RAVEN_CLASS),
    mediaFile: find(RAVEN_MEDIA),
    strength: find(['strength']),
  }
  const missing = [
    col.begin < 0 && 'Begin Time (s)', col.end < 0 && 'End Time (s)',
    col.low < 0 && 'Low Freq (Hz)', col.high < 0 && 'High Freq (Hz)',
    col.tagClass < 0 && 'Tag Class',
    col.mediaFile < 0 && mediaFile === undefined && 'Media File (or give --media-file)',
  ].filter(Boolean)
  if (missing.length) {
    result.errors.push(`line ${records[0].line}: bad header: missing ${missing.join(', ')}`)
    return result
  }
  // Raven writes one row per view (Waveform, Spectrogram) of a selection: keep one per selection.
  const seen = new Set<string>()
  for (const rec of records.slice(1)) {
    const get = (i: number) => (i >= 0 ? (rec.fields[i] ?? '').trim() : '')
    const selection = get(col.selection)
    if (selection !== '') {
      if (seen.has(selection)) continue
      seen.add(selection)
    }
    const raw: Record<string, string> = {
      mediaFile: get(col.mediaFile) || (mediaFile !== undefined ? String(mediaFile) : ''),
      tagClass: get(col.tagClass),
      startTime: get(col.begin),
      endTime: get(col.end),
      minFrequency: get(col.low),
      maxFrequency: get(col.high),
      strength: get(col.strength),
    }
    addRow(result, rec.line, raw)
  }
  return result
}

export function writeRaven(tags: Iterable<TagRecord>): string {
  let out = RAVEN_COLUMNS.join('\t') + '\n'
  let n = 0
  for (const t of tags) {
    n++
    out += [n, 'Spectrogram 1', 1, t.startTime, t.endTime, t.minFrequency, t.maxFrequency, t.tagClass, t.mediaFile, t.strength]
      .map((v) => (v === undefined || v === null ? '' : String(v))).join('\t') + '\n'
  }
  return out
}

// ---- validation ---------------------------------------------------------

/** Validates one row (strings from CSV/Raven, or JSON values) and adds the tag or its errors. */
function addRow(result: ParsedTags, line: number, raw: Record<string, unknown>, unit = 'line'): void {
  const problems: string[] = []
  const tag: Partial<TagInput> = {}
  for (const f of ['mediaFile', 'tagClass'] as const) {
    const v = idValue(raw[f])
    if (v === undefined) problems.push(`${f} is required`)
    else if (v === null) problems.push(`${f} must be a positive integer id, not ${show(raw[f])}`)
    else tag[f] = v
  }
  for (const f of ['startTime', 'endTime', 'minFrequency', 'maxFrequency', 'strength'] as const) {
    const v = numberValue(raw[f])
    const optional = f === 'strength'
    if (v === undefined) { if (!optional) problems.push(`${f} is required`) }
    else if (v === null) problems.push(`${f} must be a number, not ${show(raw[f])}`)
    else if (f !== 'strength' && v < 0) problems.push(`${f} must not be negative`)
    else tag[f] = v
  }
  if (tag.startTime !== undefined && tag.endTime !== undefined && tag.endTime < tag.startTime) {
    problems.push(`endTime (${tag.endTime}) is before startTime (${tag.startTime})`)
  }
  if (tag.minFrequency !== undefined && tag.maxFrequency !== undefined && tag.maxFrequency < tag.minFrequency) {
    problems.push(`maxFrequency (${tag.maxFrequency}) is below minFrequency (${tag.minFrequency})`)
  }
  for (const f of FLAGS) {
    const v = raw[f]
    if (v === undefined || v === '' || v === null) continue
    if (typeof v === 'boolean') tag[f] = v
    else if (v === 'true' || v === 'false') tag[f] = v === 'true'
    else problems.push(`${f} must be true or false, not ${show(v)}`)
  }
  if (problems.length) result.errors.push(`${unit} ${line}: ${problems.join('; ')}`)
  else { result.tags.push(tag as TagInput); result.lines.push(line) }
}

/** undefined: absent; null: present but not a positive integer. */
function idValue(v: unknown): number | undefined | null {
  if (v === undefined || v === null || v === '') return undefined
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN
  return Number.isSafeInteger(n) && n > 0 ? n : null
}

function numberValue(v: unknown): number | undefined | null {
  if (v === undefined || v === null || v === '') return undefined
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v) ? Number(v) : NaN
  return Number.isFinite(n) ? n : null
}

function show(v: unknown): string {
  return JSON.stringify(v)
}

export interface TagWriter {
  header: string
  rows: (tags: TagRecord[]) => string
  /** what ends the output, after the last rows */
  footer: () => string
}

/** Writes tags a page at a time: the header once, then rows (Raven selections numbered across pages),
 * then the footer (the closing bracket of a JSON array). */
export function tagWriter(format: TagFormat): TagWriter {
  const none = () => ''
  if (format === 'ndjson') return { header: '', rows: writeNdjson, footer: none }
  if (format === 'json') {
    let written = 0
    return {
      header: '[',
      rows: (tags) => tags.map((t) => `${written++ ? ',' : ''}\n${JSON.stringify(t)}`).join(''),
      footer: () => `${written ? '\n' : ''}]\n`,
    }
  }
  if (format === 'csv') return { header: CSV_COLUMNS.join(',') + '\n', rows: (tags) => writeCsv(tags).slice(CSV_COLUMNS.join(',').length + 1), footer: none }
  let n = 0
  return {
    footer: none,
    header: RAVEN_COLUMNS.join('\t') + '\n',
    rows: (tags) => {
      const body = writeRaven(tags).slice(RAVEN_COLUMNS.join('\t').length + 1)
      const lines = body.split('\n').filter(Boolean).map((l) => `${++n}${l.slice(l.indexOf('\t'))}`)
      return lines.length ? lines.join('\n') + '\n' : ''
    },
  }
}
