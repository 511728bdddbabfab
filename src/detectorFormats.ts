import { annotationColumns, detectFormat, type ColumnNames, type TagFormat } from './tagFormats.js'

// The tables detectors and labelling tools write, as `mas tag import` reads them (docs/decisions.md §32):
// BirdNET-Analyzer's CSV (and its R-table, the same columns in other words), Kaleidoscope's CSV (and the
// Kaleidoscope-style CSV BirdNET writes), Audacity label tracks and AOEF (soundevent's JSON, Whombat's
// export). BirdNET's Raven-style selection tables are Raven tables (src/raven.ts) whose class is `Common Name`
// and whose strength is `Confidence`. Each row becomes the raw record src/tagFormats.ts's addRow checks.

export type DetectorFormat = 'birdnet' | 'birdnet-raven' | 'kaleidoscope' | 'audacity' | 'aoef'
export const DETECTOR_FORMATS = [
  'birdnet',
  'birdnet-raven',
  'kaleidoscope',
  'audacity',
  'aoef',
] as const satisfies readonly DetectorFormat[]
export type TableFormat = TagFormat | DetectorFormat
export const TABLE_FORMATS: readonly TableFormat[] = ['csv', 'json', 'ndjson', 'raven', ...DETECTOR_FORMATS]

/** How each format is named to people, and the tool its rows come from (the provenance's `source`). */
export const FORMAT_NAMES: Record<TableFormat, { title: string; source?: string }> = {
  csv: { title: 'mas CSV' },
  json: { title: 'mas JSON' },
  ndjson: { title: 'mas NDJSON' },
  raven: { title: 'Raven Pro selection table' },
  birdnet: { title: 'BirdNET-Analyzer CSV', source: 'BirdNET-Analyzer' },
  'birdnet-raven': { title: 'BirdNET-Analyzer selection table', source: 'BirdNET-Analyzer' },
  kaleidoscope: { title: 'Kaleidoscope CSV', source: 'Kaleidoscope' },
  audacity: { title: 'Audacity label track', source: 'Audacity' },
  aoef: { title: 'AOEF (soundevent) JSON', source: 'soundevent AOEF' },
}

/** The formats read a row at a time (the others are whole JSON documents or Raven tables, read whole). */
export const STREAMED: ReadonlySet<TableFormat> = new Set<TableFormat>([
  'csv',
  'ndjson',
  'birdnet',
  'kaleidoscope',
  'audacity',
])

const NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/

/** The columns of a CSV header line, lower case and trimmed (quotes dropped: enough to recognise a header). */
const headerColumns = (line: string, separator: string) =>
  line.split(separator).map((c) => c.trim().replace(/^"|"$/g, '').trim().toLowerCase())

/** Which format a file holds, from its beginning (a few kilobytes are enough): JSON by its first character, a
 * Raven table by its tab-separated `Selection` column, BirdNET's and Kaleidoscope's CSVs by their columns, an
 * Audacity label track by its first line (two numbers and a label, tab-separated); else mas's CSV. */
export function detectTable(head: string): TableFormat {
  const text = head.replace(/^\uFEFF/, '')
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? ''
  const start = first.trimStart()
  if (start.startsWith('{') && /"collection_type"|"sound_event/.test(text) && /"data"\s*:/.test(text)) return 'aoef'
  if (start.startsWith('{') || start.startsWith('[')) return detectFormat(text)
  if (first.includes('\t')) {
    const cells = first.split('\t')
    if (cells.length >= 2 && NUMBER.test(cells[0]) && NUMBER.test(cells[1])) return 'audacity'
    const columns = headerColumns(first, '\t')
    if (columns.includes('selection')) {
      return columns.includes('common name') && columns.includes('confidence') ? 'birdnet-raven' : 'raven'
    }
  }
  const columns = headerColumns(first, ',')
  if (columns.includes('in file') && columns.includes('offset') && columns.includes('duration')) return 'kaleidoscope'
  if (
    (columns.includes('start (s)') && columns.includes('scientific name')) ||
    (columns.includes('scientific_name') && columns.includes('filepath'))
  )
    return 'birdnet'
  return detectFormat(text)
}

/** One row of a table as the command reads it: the record addRow checks, and the class's common name where the
 * format gives one (a new class's display name). */
export interface RawRow {
  raw: Record<string, unknown>
  displayName?: string
}

/** Reads the rows of one table after its header; `row` answers the raw record of a line's fields, or an error. */
export interface RowReader {
  row(fields: string[]): RawRow | { error: string } | undefined
  /** the header's names of the columns the fields come from, for a row's errors */
  columns?: ColumnNames
}

/** The header's name of each field's column (`undefined` where the field has none). */
const columnNames = (header: string[], at: Partial<Record<keyof ColumnNames, number | undefined>>): ColumnNames =>
  Object.fromEntries(
    Object.entries(at).flatMap(([f, i]) => (i === undefined || header[i] === undefined ? [] : [[f, header[i].trim()]])),
  )

/** What a reader needs beyond the fields: the media file of rows without one, and the provenance to give each tag. */
export interface ReaderContext {
  mediaFile?: string
  provenance: Record<string, unknown>
}

/** A name as a reference (never an id, even when it is digits only); empty stays empty, so the row says it is missing. */
export const nameRef = (v: string | undefined) => (v === undefined || v.trim() === '' ? '' : `name:${v.trim()}`)

/** A header's column positions by lower-case name: the first of each name. */
function columnsOf(header: string[]): Map<string, number> {
  const at = new Map<string, number>()
  header.forEach((h, i) => {
    const k = h.trim().toLowerCase()
    if (!at.has(k)) at.set(k, i)
  })
  return at
}

const cellOf = (fields: string[], i: number | undefined) => (i === undefined ? '' : (fields[i] ?? '').trim())

/** BirdNET-Analyzer's settings columns of its R-table and Kaleidoscope-style CSV, kept as the provenance's parameters. */
const BIRDNET_SETTINGS = ['lat', 'lon', 'week', 'overlap', 'sensitivity', 'min_conf', 'species_list', 'model']

/** A row's cells in the columns its format's fields are not made of, as the tag's annotations (an empty cell says
 * nothing, and is left out). */
function annotationsOf(columns: ReadonlyArray<[number, string]>, fields: string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [i, name] of columns) {
    const v = (fields[i] ?? '').trim()
    if (v !== '') out[name] = v
  }
  return out
}

function withParameters(
  base: Record<string, unknown>,
  header: string[],
  fields: string[],
  settings: number[],
): Record<string, unknown> {
  if (!settings.length) return base
  const parameters: Record<string, unknown> = { ...(base.parameters as Record<string, unknown> | undefined) }
  for (const i of settings) {
    const v = (fields[i] ?? '').trim()
    if (v !== '') parameters[header[i].trim()] = NUMBER.test(v) ? Number(v) : v
  }
  return { ...base, parameters }
}

/** BirdNET-Analyzer's CSV (`Start (s),End (s),Scientific name,Common name,Confidence,File`; `File` since 2.x) or its
 * R-table (`filepath,start,end,scientific_name,common_name,confidence,lat,…`): the class is the scientific name,
 * the strength the confidence; BirdNET gives no band, so a tag spans 0 to 0 Hz. */
export function birdnetReader(header: string[], ctx: ReaderContext): RowReader | { error: string } {
  const at = columnsOf(header)
  const pick = (...names: string[]) => names.map((n) => at.get(n)).find((i) => i !== undefined)
  const col = {
    start: pick('start (s)', 'start'),
    end: pick('end (s)', 'end'),
    scientific: pick('scientific name', 'scientific_name'),
    common: pick('common name', 'common_name'),
    confidence: pick('confidence'),
    file: pick('file', 'filepath'),
  }
  const missing = [
    col.start === undefined && 'Start (s)',
    col.end === undefined && 'End (s)',
    col.scientific === undefined && 'Scientific name',
    col.confidence === undefined && 'Confidence',
    col.file === undefined && ctx.mediaFile === undefined && 'File (a table of one recording: give --media-file)',
  ].filter(Boolean)
  if (missing.length) return { error: `bad header: missing ${missing.join(', ')}` }
  const settings = BIRDNET_SETTINGS.map((n) => at.get(n)).filter((i): i is number => i !== undefined)
  const own = masColumns(at)
  const used = new Set(
    [col.start, col.end, col.scientific, col.confidence, col.file, ...settings, ...own.used].filter(
      (i): i is number => i !== undefined,
    ),
  )
  const notes = annotationColumns(header, used)
  return {
    columns: columnNames(header, {
      mediaFile: col.file,
      tagClass: col.scientific,
      startTime: col.start,
      endTime: col.end,
      minFrequency: own.minFrequency,
      maxFrequency: own.maxFrequency,
      strength: col.confidence,
    }),
    row(fields) {
      const common = cellOf(fields, col.common)
      const file = cellOf(fields, col.file)
      return {
        raw: {
          mediaFile: file !== '' ? nameRef(file) : (ctx.mediaFile ?? ''),
          tagClass: nameRef(cellOf(fields, col.scientific)),
          startTime: cellOf(fields, col.start),
          endTime: cellOf(fields, col.end),
          minFrequency: cellOf(fields, own.minFrequency) || 0,
          maxFrequency: cellOf(fields, own.maxFrequency) || 0,
          strength: cellOf(fields, col.confidence),
          ...own.flags(fields),
          annotations: annotationsOf(notes, fields),
          provenance: own.provenanceOf(fields, () => withParameters(ctx.provenance, header, fields, settings)),
        },
        displayName: common || undefined,
      }
    },
  }
}

/** The columns a mas export adds to a detector's table: what the format has no room for (the band of BirdNET's, the
 * strength of Kaleidoscope's, the flags), read back as the tag's; the reviewers' decisions (not read back: a decision
 * is a reviewer's, not the tag's) and the tag's provenance (read back as it; an empty cell is a tag made by hand). A
 * table without them (the tool's own) gives machine tags made by the tool, as a detector's rows are. */
function masColumns(at: Map<string, number>) {
  const machine = at.get('mas_machine_tagged')
  const user = at.get('mas_user_tagged')
  const random = at.get('mas_randomly_chosen')
  const own = {
    minFrequency: at.get('mas_min_frequency'),
    maxFrequency: at.get('mas_max_frequency'),
    strength: at.get('mas_strength'),
    provenance: at.get('mas_provenance'),
  }
  return {
    ...own,
    used: [...Object.values(own), machine, user, random, at.get('mas_review')],
    /** what made the tag: a mas export's cell (empty: a tag made by hand), else the tool's */
    provenanceOf(fields: string[], tool: () => Record<string, unknown>): string | Record<string, unknown> {
      return own.provenance === undefined ? tool() : cellOf(fields, own.provenance)
    },
    /** the tag's flags: a mas export's, else a detector's machine tag */
    flags(fields: string[]): { machineTagged: string | boolean; userTagged?: string; randomlyChosen?: string } {
      const machineTagged = cellOf(fields, machine)
      const userTagged = cellOf(fields, user)
      const randomlyChosen = cellOf(fields, random)
      return {
        machineTagged: machineTagged || true,
        ...(userTagged !== '' ? { userTagged } : {}),
        ...(randomlyChosen !== '' ? { randomlyChosen } : {}),
      }
    },
  }
}

/** A Kaleidoscope row's recording: IN FILE below FOLDER (its trailing separator dropped), or IN FILE alone. */
export function kaleidoscopeFile(folder: string, file: string): string {
  const below = folder.replace(/[\\/]+$/, '')
  return below !== '' ? `${below}/${file}` : file
}

/** A Kaleidoscope row's end, OFFSET + DURATION, to the microsecond (the sum of two decimals is not always one). */
export const kaleidoscopeEnd = (offset: number, duration: number) => Math.round((offset + duration) * 1e6) / 1e6

/** Kaleidoscope's CSV (`INDIR,FOLDER,IN FILE,…,OFFSET,DURATION,…,TOP1MATCH,TOP1DIST,…`): the file is FOLDER/IN FILE
 * below the input folder, the class TOP1MATCH (else AUTO ID*, the bat classifier's), the band FMIN to FMAX where
 * written. TOP1DIST is a distance, not a score: no strength. BirdNET's Kaleidoscope-style CSV has the same file
 * columns and `scientific_name`, `common_name`, `confidence`: its class and strength. */
export function kaleidoscopeReader(header: string[], ctx: ReaderContext): RowReader | { error: string } {
  const at = columnsOf(header)
  const col = {
    folder: at.get('folder'),
    file: at.get('in file'),
    offset: at.get('offset'),
    duration: at.get('duration'),
    low: at.get('fmin'),
    high: at.get('fmax'),
    confidence: at.get('confidence'),
    common: at.get('common_name'),
    class: ['top1match', 'scientific_name', 'auto id*'].map((n) => at.get(n)).find((i) => i !== undefined),
  }
  const missing = [
    col.file === undefined && 'IN FILE',
    col.offset === undefined && 'OFFSET',
    col.duration === undefined && 'DURATION',
    col.class === undefined && 'a class column (TOP1MATCH, AUTO ID* or scientific_name)',
  ].filter(Boolean)
  if (missing.length) return { error: `bad header: missing ${missing.join(', ')}` }
  const birdnet = col.confidence !== undefined
  const provenance = birdnet
    ? {
        ...ctx.provenance,
        source: ctx.provenance.source === 'Kaleidoscope' ? 'BirdNET-Analyzer' : ctx.provenance.source,
      }
    : ctx.provenance
  const settings = birdnet ? BIRDNET_SETTINGS.map((n) => at.get(n)).filter((i): i is number => i !== undefined) : []
  const own = masColumns(at)
  const used = new Set(
    [
      col.folder,
      col.file,
      col.offset,
      col.duration,
      col.low,
      col.high,
      col.confidence,
      col.class,
      ...settings,
      ...own.used,
    ].filter((i): i is number => i !== undefined),
  )
  const notes = annotationColumns(header, used)
  return {
    columns: columnNames(header, {
      mediaFile: col.file,
      tagClass: col.class,
      startTime: col.offset,
      // the end is the offset and the duration, so a duration that is not a number is what an end's error is about
      endTime: col.duration,
      minFrequency: col.low,
      maxFrequency: col.high,
      strength: birdnet ? col.confidence : own.strength,
    }),
    row(fields) {
      const offset = cellOf(fields, col.offset)
      const duration = cellOf(fields, col.duration)
      const end =
        NUMBER.test(offset) && NUMBER.test(duration)
          ? String(kaleidoscopeEnd(Number(offset), Number(duration)))
          : duration
      const file = cellOf(fields, col.file)
      const low = cellOf(fields, col.low)
      const high = cellOf(fields, col.high)
      return {
        raw: {
          mediaFile: file === '' ? (ctx.mediaFile ?? '') : nameRef(kaleidoscopeFile(cellOf(fields, col.folder), file)),
          tagClass: nameRef(cellOf(fields, col.class)),
          startTime: offset,
          endTime: end,
          minFrequency: low !== '' ? low : 0,
          maxFrequency: high !== '' ? high : 0,
          strength: birdnet ? cellOf(fields, col.confidence) : cellOf(fields, own.strength),
          ...own.flags(fields),
          annotations: annotationsOf(notes, fields),
          provenance: own.provenanceOf(fields, () => withParameters(provenance, header, fields, settings)),
        },
        displayName: cellOf(fields, col.common) || undefined,
      }
    },
  }
}

/** An Audacity label track: `start\tend\tlabel` lines, each optionally followed by `\\\tlow\thigh`, its band (a
 * spectral selection). Labels are people's: the tags are user tags. The row is given when its frequency line (or
 * the next label) shows it complete: `row` answers the label before the line it reads, `end` the last. */
export class AudacityReader {
  private pending?: { fields: string[]; low?: string; high?: string }

  constructor(private readonly ctx: ReaderContext) {}

  /** The label completed by this line (the one before it), if any; a frequency line completes none. */
  line(fields: string[]): RawRow | { error: string } | undefined {
    if (fields[0] === '\\') {
      if (!this.pending) return { error: 'a frequency line (\\ low high) with no label before it' }
      this.pending.low = fields[1]
      this.pending.high = fields[2]
      return undefined
    }
    const done = this.flush()
    this.pending = { fields }
    return done
  }

  /** The last label. */
  end(): RawRow | undefined {
    return this.flush()
  }

  private flush(): RawRow | undefined {
    const p = this.pending
    this.pending = undefined
    if (!p) return undefined
    const [start, end, ...label] = p.fields
    // Audacity writes -1 for a bound left undefined: no low bound is 0 Hz; without a high bound there is no band
    const undefinedBound = (v: string | undefined) => v === undefined || Number(v) === -1
    const band = undefinedBound(p.high)
      ? { low: 0, high: 0 }
      : { low: undefinedBound(p.low) ? 0 : p.low!, high: p.high! }
    return {
      raw: {
        mediaFile: this.ctx.mediaFile ?? '',
        tagClass: nameRef(label.join('\t')),
        startTime: start ?? '',
        endTime: end ?? '',
        minFrequency: band.low,
        maxFrequency: band.high,
        userTagged: true,
        provenance: this.ctx.provenance,
      },
    }
  }
}

/** The media file an Audacity label file names: its path below the imported folder without `.txt`
 * (`siteA/20250601_050000.WAV.txt` is `siteA/20250601_050000.WAV`). */
export const audacityMediaName = (relativePath: string) => relativePath.replace(/\\/g, '/').replace(/\.txt$/i, '')
