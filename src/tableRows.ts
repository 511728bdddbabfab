import { aoefRows } from './aoef.js'
import {
  AudacityReader,
  birdnetReader,
  FORMAT_NAMES,
  kaleidoscopeReader,
  STREAMED,
  type RawRow,
  type ReaderContext,
  type RowReader,
  type TableFormat,
} from './detectorFormats.js'
import { lineBatches, readText, recordBatches } from './tableReader.js'
import { addRow, csvReader, emptyRows, type ColumnNames, type ParsedRows, type TagRow } from './tagFormats.js'
import { parseTags } from './tagTables.js'

// The rows of one table file, in any format mas reads, as one stream of checked rows and errors
// (docs/decisions.md §32): the formats of one row a line are read a chunk at a time, the others (JSON
// documents, Raven tables) whole. `mas tag import` reads each file twice through this: once to check every
// row, once to send them.

/** One table to import: how it is named to people, where it is, its format, and the media file of rows that name none. */
export interface TableSource {
  name: string
  file: string
  format: TableFormat
  mediaFile?: string
  /** found below a folder: passed over when its header is none its format reader takes (not a table after all) */
  belowFolder?: boolean
  /** passed over (set by the first reading) */
  passedOver?: string
}

/** A row that passed its checks (the tag, with names not yet looked up), with its line (or item) and a new class's display name. */
export interface CheckedRow {
  line: number
  row: TagRow
  displayName?: string
}
export type TableItem = CheckedRow | { error: string }

export interface RowOptions {
  classColumn?: string
  /** a Raven table's Begin Time is within each row's file (ParseOptions) */
  timesInFile?: boolean
  /** what each tag gets as its provenance when its row says nothing of it (the tool, from the format or --source) */
  provenance?: Record<string, unknown>
}

/** The provenance a table's tags get: the tool of its format, with what --source adds (a name, a version). */
export function provenanceOf(
  format: TableFormat,
  source?: { source?: string; version?: string },
): Record<string, unknown> | undefined {
  const tool = source?.source ?? FORMAT_NAMES[format].source
  if (tool === undefined) return undefined
  return { source: tool, ...(source?.version !== undefined ? { version: source.version } : {}), format }
}

/** The checked rows of a parse (a whole file's), with the display names the raw rows gave. */
function* fromParsed(parsed: ParsedRows, names?: Map<number, string>): Generator<TableItem> {
  // in the order of their lines, errors among the rows, so that what is said of a table comes in the file's order
  const items: Array<{ at: number; item: TableItem }> = parsed.errors.map((error) => ({
    at: Number(/^(?:line|item) (\d+):/.exec(error)?.[1] ?? 0),
    item: { error },
  }))
  for (let i = 0; i < parsed.rows.length; i++)
    items.push({
      at: parsed.lines[i],
      item: { line: parsed.lines[i], row: parsed.rows[i], displayName: names?.get(parsed.lines[i]) },
    })
  items.sort((a, b) => a.at - b.at)
  for (const { item } of items) yield item
}

/** The items of a table, a chunk at a time. */
export async function* tableRows(source: TableSource, opts: RowOptions = {}): AsyncGenerator<TableItem[]> {
  const ctx: ReaderContext = { mediaFile: source.mediaFile, provenance: opts.provenance ?? {} }
  if (!STREAMED.has(source.format)) {
    yield [...wholeRows(await readText(source.file), source, opts, ctx)]
    return
  }
  if (source.format === 'ndjson') {
    let line = 0
    for await (const lines of lineBatches(source.file)) {
      const parsed = emptyRows()
      for (const text of lines) {
        line++
        if (text.trim() === '') continue
        let obj: unknown
        try {
          obj = JSON.parse(text)
        } catch (err) {
          parsed.errors.push(`line ${line}: not valid JSON (${(err as Error).message})`)
          continue
        }
        if (!obj || typeof obj !== 'object' || Array.isArray(obj))
          parsed.errors.push(`line ${line}: expected a JSON object`)
        else addRow(parsed, line, obj as Record<string, unknown>)
      }
      yield [...fromParsed(parsed)]
    }
    return
  }
  if (source.format === 'audacity') {
    const reader = new AudacityReader(ctx)
    let at = 0
    const items: TableItem[] = []
    const take = (line: number, got: RawRow | { error: string } | undefined) => {
      if (got === undefined) return
      if ('error' in got) items.push({ error: `line ${line}: ${got.error}` })
      else items.push(...checked(line, got))
    }
    for await (const records of recordBatches(source.file, '\t')) {
      for (const r of records) {
        const got = reader.line(r.fields)
        if (r.fields[0] !== '\\') {
          take(at, got)
          at = r.line
        } else take(r.line, got)
      }
      yield items.splice(0)
    }
    take(at, reader.end())
    yield items.splice(0)
    return
  }
  let read: ((line: number, fields: string[]) => TableItem[]) | undefined
  for await (const records of recordBatches(source.file, ',')) {
    const items: TableItem[] = []
    let from = 0
    if (!read) {
      const header = records[0]
      const made = lineReader(source, header.fields, ctx)
      if ('error' in made) {
        yield [{ error: `line ${header.line}: ${made.error}` }]
        return
      }
      read = made
      from = 1
    }
    for (let i = from; i < records.length; i++) items.push(...read(records[i].line, records[i].fields))
    yield items
  }
  if (!read) yield [{ error: 'line 1: the file is empty (expected a header row)' }]
}

/** How the rows of a CSV are read after its header: BirdNET's, Kaleidoscope's or mas's. */
function lineReader(
  source: TableSource,
  header: string[],
  ctx: ReaderContext,
): ((line: number, fields: string[]) => TableItem[]) | { error: string } {
  if (source.format === 'csv') {
    const mas = csvReader(header, source.mediaFile)
    if ('error' in mas) return mas
    return (line, fields) => {
      const parsed = emptyRows()
      mas.row(parsed, line, fields)
      return [...fromParsed(parsed)]
    }
  }
  const reader: RowReader | { error: string } =
    source.format === 'birdnet' ? birdnetReader(header, ctx) : kaleidoscopeReader(header, ctx)
  if ('error' in reader) return reader
  return (line, fields) => {
    const got = reader.row(fields)
    if (got === undefined) return []
    return 'error' in got ? [{ error: `line ${line}: ${got.error}` }] : checked(line, got, reader.columns)
  }
}

/** A raw row checked (addRow), as an item; its errors name the table's `columns`. */
function checked(line: number, got: RawRow, columns?: ColumnNames): TableItem[] {
  const parsed = emptyRows()
  addRow(parsed, line, got.raw, 'line', columns)
  return parsed.errors.length
    ? [{ error: parsed.errors[0] }]
    : [{ line, row: parsed.rows[0], displayName: got.displayName }]
}

/** The items of a format read whole: mas's JSON, Raven tables (BirdNET's: class Common Name, strength Confidence, machine
 * tags of BirdNET), AOEF. */
function* wholeRows(text: string, source: TableSource, opts: RowOptions, ctx: ReaderContext): Generator<TableItem> {
  if (source.format === 'aoef') {
    const { rows, errors } = aoefRows(text, ctx.provenance)
    for (const error of errors) yield { error }
    for (const r of rows) {
      const parsed = emptyRows('item')
      addRow(parsed, r.item, r.raw, 'item')
      yield* fromParsed(parsed)
    }
    return
  }
  const birdnet = source.format === 'birdnet-raven'
  const parsed = parseTags(text, {
    format: birdnet
      ? 'raven'
      : (source.format as Exclude<TableFormat, 'birdnet' | 'birdnet-raven' | 'kaleidoscope' | 'audacity' | 'aoef'>),
    mediaFile: source.mediaFile,
    classColumn: opts.classColumn ?? (birdnet ? 'Common Name' : undefined),
    strengthColumn: birdnet ? 'Confidence' : undefined,
    timesInFile: opts.timesInFile,
  })
  if (birdnet) {
    for (const row of parsed.rows) {
      row.machineTagged = true
      if (!row.provenance) row.provenance = ctx.provenance
    }
  }
  yield* fromParsed(parsed)
}
