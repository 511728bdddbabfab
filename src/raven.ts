import type { MediaFile } from './records.js'
import { parseRef } from './refs.js'
import {
  addRow,
  ANNOTATION_PREFIX,
  annotationColumns,
  annotationsOf,
  csvRecords,
  emptyRows,
  hasStrength,
  numberValue,
  type ColumnNames,
  type ParsedRows,
  type ParseOptions,
  type TagRecord,
} from './tagFormats.js'

// Raven Pro selection tables, as Raven writes and reads them (docs/decisions.md §10):
// tab-separated, one row per view of a selection (Spectrogram and Waveform rows repeat each other).
// A table of several recordings names each selection's file in `Begin File` (or `Begin Path`) and
// its place in that file in `File Offset (s)`; `Begin Time (s)` runs on across the files. Columns mas has no
// field for are kept as the tag's annotations (an empty cell says nothing) and written back as they came.

/** Columns that name the class, the first present is used unless --class-column says otherwise. */
export const CLASS_COLUMNS = ['Species', 'Annotation', 'Class', 'Label', 'Tag'] as const

/** The columns mas writes: Raven's own, the class, the strength, the tag's flags and ids for an exact round trip, and
 * what made each tag (its provenance as JSON text, empty for a tag made by hand). */
export const RAVEN_COLUMNS = [
  'Selection',
  'View',
  'Channel',
  'Begin Time (s)',
  'End Time (s)',
  'Low Freq (Hz)',
  'High Freq (Hz)',
  'Begin Path',
  'Begin File',
  'File Offset (s)',
  'Species',
  'Strength',
  'mas_machine_tagged',
  'mas_user_tagged',
  'mas_randomly_chosen',
  'mas_tag_id',
  'mas_media_file_id',
  'mas_tag_class_id',
  'mas_provenance',
] as const

/** Columns read besides the class column (lower case); `Tag Class` and `Media File` are what earlier
 * versions of mas wrote. */
const KNOWN = [
  'selection',
  'view',
  'channel',
  'begin time (s)',
  'end time (s)',
  'low freq (hz)',
  'high freq (hz)',
  'begin file',
  'begin path',
  'file offset (s)',
  'strength',
  'mas_machine_tagged',
  'mas_user_tagged',
  'mas_randomly_chosen',
  'mas_tag_id',
  'mas_media_file_id',
  'mas_tag_class_id',
  'mas_provenance',
  'tag class',
  'media file',
]

export function parseRaven(text: string, opts: ParseOptions = {}): ParsedRows {
  const records = csvRecords(text, '\t')
  const result = emptyRows()
  if (records.length === 0) {
    result.errors.push('line 1: the file is empty (expected a header row)')
    return result
  }
  const header = records[0].fields.map((h) => h.trim())
  const at = (name: string) => header.findIndex((h) => h.toLowerCase() === name.toLowerCase())
  const headerError = (message: string) => {
    result.errors.push(`line ${records[0].line}: ${message}`)
    return result
  }
  let classCol: number
  if (opts.classColumn !== undefined) {
    classCol = at(opts.classColumn)
    if (classCol < 0)
      return headerError(`no column "${opts.classColumn}" (--class-column); the columns are ${header.join(', ')}`)
  } else {
    classCol = [...CLASS_COLUMNS, 'Tag Class'].map(at).find((i) => i >= 0) ?? -1
  }
  const col = {
    view: at('view'),
    selection: at('selection'),
    begin: at('begin time (s)'),
    end: at('end time (s)'),
    low: at('low freq (hz)'),
    high: at('high freq (hz)'),
    offset: at('file offset (s)'),
    strength: at(opts.strengthColumn ?? 'strength'),
    file: [at('begin path'), at('begin file'), at('media file')].find((i) => i >= 0) ?? -1,
    fileId: at('mas_media_file_id'),
    classId: at('mas_tag_class_id'),
    provenance: at('mas_provenance'),
    machine: at('mas_machine_tagged'),
    user: at('mas_user_tagged'),
    random: at('mas_randomly_chosen'),
  }
  const missing = [
    col.begin < 0 && 'Begin Time (s)',
    col.end < 0 && 'End Time (s)',
    col.low < 0 && 'Low Freq (Hz)',
    col.high < 0 && 'High Freq (Hz)',
    classCol < 0 && col.classId < 0 && `a class column (${CLASS_COLUMNS.join(', ')}, or name one with --class-column)`,
    col.file < 0 &&
      col.fileId < 0 &&
      opts.mediaFile === undefined &&
      'Begin File or Begin Path (a table of one recording: give --media-file)',
  ].filter(Boolean)
  if (missing.length) return headerError(`bad header: missing ${missing.join(', ')}`)
  const body = records.slice(1)
  const get = (fields: string[], i: number) => (i >= 0 ? (fields[i] ?? '').trim() : '')
  const filesNamed = col.file >= 0 ? new Set(body.map((r) => get(r.fields, col.file))).size : 0
  // --media-file says which recording a table of one recording is, also when its Begin File names it by a bare
  // name that several sites' recordings share
  const oneRecording = opts.mediaFile !== undefined && filesNamed <= 1
  if (col.file >= 0 && col.offset < 0 && !opts.timesInFile && filesNamed > 1) {
    return headerError(
      `bad header: a table of several recordings (${header[col.file]}) needs the File Offset (s) column to place each selection ` +
        'in its file; when each Begin Time (s) is already within its file (tables of single recordings joined), give --times-in-file',
    )
  }
  // every other column (Notes, Call type, a verdict, Raven's measurements) is kept with the tag, as its annotations;
  // a `mas_annotation:NAME` column (mas's, where NAME is one of the columns above) as the annotation NAME
  const extra = annotationColumns(
    header,
    new Set(
      header.flatMap((h, i) => (i === classCol || i === col.strength || KNOWN.includes(h.toLowerCase()) ? [i] : [])),
    ),
  )

  // Each view of a selection has its row: keep the spectrogram rows (all rows when there are none).
  const isSpectrogram = (fields: string[]) => /^spectrogram/i.test(get(fields, col.view))
  const spectrogramOnly = col.view >= 0 && body.some((r) => isSpectrogram(r.fields))
  const named = (i: number) => (i >= 0 ? header[i].trim() : undefined)
  // a row placed by File Offset (s) has its times from it, so only Begin and End name them otherwise
  const columns: ColumnNames = {
    mediaFile: oneRecording ? undefined : named(col.file),
    tagClass: named(classCol),
    startTime: col.offset < 0 ? named(col.begin) : undefined,
    endTime: col.offset < 0 ? named(col.end) : undefined,
    minFrequency: named(col.low),
    maxFrequency: named(col.high),
    strength: named(col.strength),
  }
  const seen = new Set<string>()
  for (const rec of body) {
    const f = rec.fields
    if (spectrogramOnly && !isSpectrogram(f)) continue
    const selection = get(f, col.selection)
    if (selection !== '') {
      if (seen.has(selection)) continue
      seen.add(selection)
    }
    const offset = get(f, col.offset)
    const raw: Record<string, unknown> = {
      mediaFile: oneRecording ? opts.mediaFile : fileRef(get(f, col.fileId), get(f, col.file), opts.mediaFile),
      mediaFileHint: !oneRecording && get(f, col.file) !== '' ? idOnly(get(f, col.fileId)) : '',
      tagClass: get(f, classCol) !== '' ? get(f, classCol) : idOnly(get(f, col.classId)),
      startTime: offset !== '' ? offset : get(f, col.begin),
      endTime: offset !== '' ? endInFile(offset, get(f, col.begin), get(f, col.end)) : get(f, col.end),
      minFrequency: get(f, col.low),
      maxFrequency: get(f, col.high),
      strength: get(f, col.strength),
      machineTagged: get(f, col.machine),
      userTagged: get(f, col.user),
      randomlyChosen: get(f, col.random),
      // an empty cell says nothing: a table names every column for every row, the tags without a note too
      annotations: Object.fromEntries(extra.flatMap(([i, name]) => (get(f, i) !== '' ? [[name, get(f, i)]] : []))),
      provenance: get(f, col.provenance),
    }
    addRow(result, rec.line, raw, 'line', columns)
  }
  return result
}

/** The media file of a row: the Begin Path / Begin File (a path or a name; the id mas wrote beside it
 * is its hint), else the id mas wrote, else --media-file. */
function fileRef(id: string, file: string, fallback?: string): string {
  if (file !== '') return 'id' in parseRef(file) ? `name:${file}` : file // Begin File holds a name, even one of digits
  if (idOnly(id) !== '') return id
  return fallback ?? ''
}

/** A mas_..._id cell when it holds an id (digits), else nothing. */
const idOnly = (v: string) => (/^\d+$/.test(v) ? v : '')

/** The end of a selection in its file: its offset plus its length. Begin and End Time of a table of
 * several files run on across them, so the sum is rounded to the microsecond, well below one sample
 * at any rate recorders use, to give back the times that were written. */
function endInFile(offset: string, begin: string, end: string): string {
  const o = numberValue(offset)
  const b = numberValue(begin)
  const e = numberValue(end)
  if (typeof o !== 'number' || typeof b !== 'number' || typeof e !== 'number') return end
  if (o === b) return end
  return String(Math.round((o + (e - b)) * 1e6) / 1e6)
}

// ---- writing ----

/** A recording as a Raven table places it: its name, when it started, how long it lasts and the sensor
 * that recorded it (null: none). */
export interface RavenFile {
  id: number
  alias: string
  realStartTime?: string | null
  duration?: number
  sensor?: number | null
  sampleRate?: number
}

/** What a written table holds beyond the tags: `Begin Path`s as `pathPrefix` joined with each alias (a
 * folder on the user's disk; else the alias), and a Waveform row before each Spectrogram row (as Raven
 * writes it: the whole band, 0 to half the sample rate, where the rate is known). */
export interface RavenOptions {
  pathPrefix?: string
  waveformRows?: boolean
}

/** A media file as a Raven table places it: its duration and sample rate from its metadata. */
export function ravenFile(m: MediaFile): RavenFile {
  const number = (name: string) => {
    const value = m.mediafilemetadata_set?.find((d) => d.name === name)?.value
    return value !== undefined && value !== '' && Number.isFinite(Number(value)) ? Number(value) : undefined
  }
  return {
    id: m.id,
    alias: m.alias ?? String(m.id),
    realStartTime: m.realStartTime,
    duration: number('durationInSeconds'),
    sensor: m.sensor ?? null,
    sampleRate: number('sampleRate'),
  }
}

/** Recordings in the order Raven lists the files of a multi-file table: by start time, then alias. */
export function inRecordingOrder(files: readonly RavenFile[]): RavenFile[] {
  return [...files].sort((a, b) => {
    const x = a.realStartTime ?? ''
    const y = b.realStartTime ?? ''
    if (x !== y) return x === '' ? 1 : y === '' ? -1 : x < y ? -1 : 1
    return a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : a.id - b.id
  })
}

/** The recordings Raven opens together as one multi-file table: those of one sensor, or of one folder
 * where there is no sensor, in recording order (docs/decisions.md, "Raven round trips"). */
export interface RavenSequence {
  key: string
  name: string
  files: RavenFile[]
}

const folderOf = (alias: string) =>
  alias
    .split(/[\\/]+/)
    .slice(0, -1)
    .join('/')

/** The sequence a recording belongs to. */
const sequenceKey = (f: RavenFile): string => (f.sensor != null ? `sensor ${f.sensor}` : `folder ${folderOf(f.alias)}`)

/** The recordings as sequences, each in recording order, ordered by their first recording; `sensorName`
 * names a sensor's sequence (else `sensor-ID`), a folder's is its path (`top` for the top folder). */
export function sequencesOf(
  files: readonly RavenFile[],
  sensorName: (id: number) => string | undefined = () => undefined,
): RavenSequence[] {
  const byKey = new Map<string, RavenSequence>()
  for (const f of inRecordingOrder(files)) {
    const key = sequenceKey(f)
    let sequence = byKey.get(key)
    if (!sequence) {
      const name = f.sensor != null ? (sensorName(f.sensor) ?? `sensor-${f.sensor}`) : folderOf(f.alias) || 'top'
      byKey.set(key, (sequence = { key, name, files: [] }))
    }
    sequence.files.push(f)
  }
  return [...byKey.values()]
}

/** The recordings of unknown length that come before the last tagged one of their sequence: the Begin
 * Times after them leave them out. */
export function unknownLengths(sequences: readonly RavenSequence[], tagged: ReadonlySet<number>): RavenFile[] {
  return sequences.flatMap(({ files }) => {
    const last = files.map((f) => tagged.has(f.id)).lastIndexOf(true)
    return files.slice(0, Math.max(0, last)).filter((f) => f.duration === undefined)
  })
}

const baseName = (alias: string) => alias.split(/[\\/]/).pop() ?? alias

/** A recording's `Begin Path`: its alias, or the alias below `prefix`, written with the prefix's
 * separator (`D:\Field` gives `D:\Field\siteA\x.WAV`). */
export function beginPath(alias: string, prefix?: string): string {
  if (prefix === undefined || prefix === '') return alias
  const windows = /\\/.test(prefix) || /^[A-Za-z]:$/.test(prefix)
  const sep = windows ? '\\' : '/'
  const parts = alias.split(/[\\/]+/).filter((p) => p !== '')
  return prefix.replace(/[\\/]+$/, '') + sep + parts.join(sep)
}

/** The decimals a number is written with (its shortest form); undefined in exponent form. */
const decimalsOf = (n: number) => (/e/i.test(String(n)) ? undefined : (String(n).split('.')[1] ?? '').length)

/** a + b written with no more decimals than they were (146.587958, not 146.58795800000001). */
export function sumAsWritten(a: number, b: number): number {
  const da = decimalsOf(a)
  const db = decimalsOf(b)
  return da === undefined || db === undefined ? a + b : Number((a + b).toFixed(Math.max(da, db)))
}

/** Raven Pro writes its selection tables with Windows line ends on every system, and so does mas. */
const EOL = '\r\n'

/**
 * One selection table over `files`: within each sequence (sequencesOf) each file starts where the earlier
 * ones end (the sum of their durations), as in a Raven multi-file table of that sequence, and each
 * sequence starts at 0. Tags are numbered by sequence, file, then start time. `className` gives a class
 * id's name; `extra` adds columns of the caller's; the tags' annotations are written back as the columns
 * they came from, after every other.
 */
export function ravenTable(
  tags: readonly TagRecord[],
  files: readonly RavenFile[],
  className: (id: number) => string | undefined,
  extra?: { columns: readonly string[]; cells: (t: TagRecord) => unknown[] },
  options: RavenOptions = {},
): string {
  const place = new Map<number, { index: number; start: number; file: RavenFile }>()
  let index = 0
  for (const sequence of sequencesOf(files)) {
    let start = 0
    for (const file of sequence.files) {
      place.set(file.id, { index: index++, start, file })
      start += file.duration ?? 0
    }
  }
  const rows = tags
    .filter((t) => place.has(Number(t.mediaFile)))
    .sort(
      (a, b) =>
        place.get(Number(a.mediaFile))!.index - place.get(Number(b.mediaFile))!.index ||
        Number(a.startTime) - Number(b.startTime) ||
        Number(a.id) - Number(b.id),
    )
  const written = [...RAVEN_COLUMNS, ...(extra?.columns ?? [])]
  const taken = new Set([...written, 'Tag Class', 'Media File'].map((c) => c.toLowerCase()))
  // each annotation in the column it came from, in the order first met; one named like a column an import reads as
  // something else (Kaleidoscope's CHANNEL beside Raven's Channel) in the column `mas_annotation:NAME`
  const annotated = [...new Set(rows.flatMap((t) => Object.keys(annotationsOf(t))))]
  const columnOf = (c: string) => (taken.has(c.toLowerCase()) ? ANNOTATION_PREFIX + c : c)
  const cell = (v: unknown) => (v === undefined || v === null ? '' : String(v).replace(/[\t\r\n]+/g, ' '))
  let out = [...written, ...annotated.map(columnOf)].join('\t') + EOL
  rows.forEach((t, i) => {
    const p = place.get(Number(t.mediaFile))!
    const s = Number(t.startTime)
    const e = Number(t.endTime)
    const notes = annotationsOf(t)
    const after = [
      asName(className(Number(t.tagClass)) ?? ''),
      hasStrength(t) ? t.strength : '',
      t.machineTagged,
      t.userTagged,
      t.randomlyChosen,
      t.id,
      t.mediaFile,
      t.tagClass,
      t.provenance ? JSON.stringify(t.provenance) : '',
      ...(extra?.cells(t) ?? []),
      ...annotated.map((c) => notes[c]),
    ]
    const row = (view: string, low: unknown, high: unknown) =>
      [
        i + 1,
        view,
        1,
        sumAsWritten(p.start, s),
        sumAsWritten(p.start, e),
        low,
        high,
        beginPath(p.file.alias, options.pathPrefix),
        baseName(p.file.alias),
        s,
        ...after,
      ]
        .map(cell)
        .join('\t') + EOL
    if (options.waveformRows) {
      const rate = p.file.sampleRate
      out += rate === undefined ? row('Waveform 1', t.minFrequency, t.maxFrequency) : row('Waveform 1', 0, rate / 2)
    }
    out += row('Spectrogram 1', t.minFrequency, t.maxFrequency)
  })
  return out
}

/** A class name as a table holds it: one of digits only is written `name:12`, since digits are an id. */
const asName = (name: string) => ('id' in parseRef(name) && name !== '' ? `name:${name}` : name)

/** Where a sequence's table goes below the --per-sequence folder: its name as one file name
 * (`siteA/20260501` as `siteA_20260501.selections.txt`). */
export function perSequenceName(name: string): string {
  const safe = name
    .split(/[\\/]+/)
    .filter((p) => p !== '' && p !== '.' && p !== '..')
    .join('_')
    .replace(/[<>:"|?*\x00-\x1f]/g, '_')
  return `${safe || 'top'}.selections.txt`
}

/** Where a recording's own table goes below the --per-file folder: its alias's folders and name,
 * `.Table.1.selections.txt` for the extension, as Raven names a saved table (no way out of the folder). */
export function perFileName(alias: string): string {
  const parts = alias.split(/[\\/]+/).filter((p) => p !== '' && p !== '.' && p !== '..')
  const name = (parts.pop() ?? 'recording').replace(/\.[^.]*$/, '')
  return [...parts, `${name}.Table.1.selections.txt`].join('/')
}
