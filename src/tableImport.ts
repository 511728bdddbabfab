import { EXTENT_FACTS, extentOfFacts, outOfBounds, type Extent } from '../server/media/extent.js'
import type { Directory } from './lookup.js'
import type { MediaFile, TagClass } from './records.js'
import { resolveRow } from './lookup.js'
import type { RowFilter } from './importFilters.js'
import { provenanceOf, tableRows, type TableSource } from './tableRows.js'
import type { ParsedTags } from './tagFormats.js'

// The two readings of `mas tag import` (docs/decisions.md §32). The first checks every row of every table and
// looks its names up, keeping only counts, the first errors, the names of missing classes and what the filters
// need (a byte a row); the second reads the tables again and hands the tags on in chunks, so memory holds one
// chunk whatever the tables' length, and nothing is sent when any row of any table is bad.

/** The library's media files and classes, fetched when a row first names one. */
export interface Lookups {
  media(): Promise<Directory<MediaFile>>
  classes(): Promise<Directory<TagClass>>
  /** does the server refuse tags past their recording's end or above half its sample rate (mas does,
   * docs/decisions.md §18; the original service does not) */
  keepsTagsInRecordings(): Promise<boolean>
  /** the record of media file `id` (with its facts), as the caller reads it; undefined when it cannot */
  mediaRecord(id: number): Promise<MediaFile | undefined>
}

export interface ReadOptions {
  classColumn?: string
  timesInFile?: boolean
  source?: { source?: string; version?: string }
}

/** What the first reading found in one table. */
export interface TableCheck {
  source: TableSource
  rows: number
  matched: number
  mediaFiles: number
  errors: number
  /** the table could not be read past its header (a column missing, an empty file): its rows were never counted */
  unreadable?: string
}

export interface Checked {
  tables: TableCheck[]
  /** errors of the rows themselves (bad numbers, bad headers) and of their names (no such media file) */
  rowErrors: string[]
  lookupErrors: string[]
  /** both kinds, as the tables and their lines come (what a dry run shows) */
  errorsInOrder: string[]
  errorCount: number
  /** class names no class has, each with the display name a table gave it (BirdNET's common name) */
  missingClasses: Map<string, string | undefined>
  /** rows that are good but for a missing class: the rows the second reading numbers */
  rows: number
}

/** Errors kept to show (the rest are counted). */
const SHOWN = 50

const prefixOf = (sources: readonly TableSource[], source: TableSource) =>
  sources.length > 1 ? `${source.name}: ` : ''

export async function checkTables(
  sources: readonly TableSource[],
  lookups: Lookups,
  filter: RowFilter,
  opts: ReadOptions,
): Promise<Checked> {
  const result: Checked = {
    tables: [],
    rowErrors: [],
    lookupErrors: [],
    errorsInOrder: [],
    errorCount: 0,
    missingClasses: new Map(),
    rows: 0,
  }
  let media: Directory<MediaFile> | undefined
  let classes: Directory<TagClass> | undefined
  // the server's rule for a tag's region, applied here so that a table it would refuse part-way is refused before
  // anything is sent, and a dry run says so
  let bounded: boolean | undefined
  const extents = new Map<number, Extent | undefined>()
  const regionsOutside = async (row: { endTime?: number; maxFrequency?: number }, mediaFile: number) => {
    if (row.endTime === undefined && row.maxFrequency === undefined) return []
    bounded ??= await lookups.keepsTagsInRecordings()
    if (!bounded) return []
    if (!extents.has(mediaFile)) {
      const record = await lookups.mediaRecord(mediaFile)
      extents.set(mediaFile, record && extentOfRecord(record))
    }
    // a media file the caller cannot read, or outside the tag set's library: the server says what is wrong with that
    const extent = extents.get(mediaFile)
    if (!extent) return []
    // the server's message names its field already ("endTime 48.0 is past the end of …")
    return Object.entries(outOfBounds(mediaFile, extent, row)).map(([field, [why]]) =>
      why.startsWith(`${field} `) ? why : `${field}: ${why}`,
    )
  }
  const keep = (list: string[], error: string) => {
    result.errorCount++
    if (list.length < SHOWN) list.push(error)
    if (result.errorsInOrder.length < SHOWN) result.errorsInOrder.push(error)
  }
  for (const source of sources) {
    const check: TableCheck = { source, rows: 0, matched: 0, mediaFiles: 0, errors: 0 }
    const files = new Set<number>()
    const prefix = prefixOf(sources, source)
    let first = true
    for await (const items of tableRows(source, {
      classColumn: opts.classColumn,
      timesInFile: opts.timesInFile,
      provenance: provenanceOf(source.format, opts.source),
    })) {
      for (const item of items) {
        if (first && 'error' in item && /^line \d+: (bad header|the file is empty)/.test(item.error)) {
          const why = item.error.replace(/^line \d+: /, '')
          if (source.belowFolder) source.passedOver = why
          else {
            check.unreadable = why
            keep(result.rowErrors, prefix + item.error)
          }
          break
        }
        first = false
        if ('error' in item) {
          check.errors++
          keep(result.rowErrors, prefix + item.error)
          continue
        }
        check.rows++
        if (!media && 'name' in item.row.mediaFile) media = await lookups.media()
        if (!classes && 'name' in item.row.tagClass) classes = await lookups.classes()
        const found = resolveRow(item.row, media, classes)
        if (found.missing !== undefined && !result.missingClasses.has(found.missing))
          result.missingClasses.set(found.missing, item.displayName)
        if (found.problems.length) {
          check.errors++
          keep(
            result.lookupErrors,
            `${prefix}${unitOf(source)} ${item.line}: ${found.problems.join('; ')}${hintOf(source, found.mediaFile)}`,
          )
          continue
        }
        const outside = await regionsOutside(item.row, found.mediaFile!)
        if (outside.length) {
          check.errors++
          keep(result.lookupErrors, `${prefix}${unitOf(source)} ${item.line}: ${outside.join('; ')}`)
          continue
        }
        check.matched++
        files.add(found.mediaFile!)
        filter.see(result.rows++, found.mediaFile!, item.row.startTime, item.row.strength)
      }
      if (source.passedOver !== undefined || check.unreadable !== undefined) break
    }
    check.mediaFiles = files.size
    if (source.passedOver === undefined) result.tables.push(check)
  }
  filter.finish(result.rows)
  return result
}

const unitOf = (source: TableSource) => (source.format === 'aoef' || source.format === 'json' ? 'item' : 'line')

/** What an error of a row whose media file was not found adds for an Audacity label file, which names its recording
 * by its own name only (README, "Tag files"). */
const hintOf = (source: TableSource, mediaFile: number | undefined) =>
  source.format === 'audacity' && mediaFile === undefined
    ? ' (a label file is named after its recording, e.g. siteA/20250601_050000.WAV.txt below the folder imported; else give --media-file)'
    : ''

/** A media file's extent from its record: the facts its import stored, as the server reads them. */
function extentOfRecord(record: MediaFile): Extent {
  const facts = (record.mediafilemetadata_set ?? []).filter(
    (m) => m.userEditable === false && (EXTENT_FACTS as readonly string[]).includes(m.name),
  )
  return extentOfFacts({ file: record.file ?? '', alias: record.alias }, facts)
}

/** The second reading: the tags the filter keeps, `chunk` at a time, to `send`; the classes looked up afresh (some
 * may have been created). The next chunk is read while the one before is being sent, and handed over when that
 * send is done: one send at a time, in order, and the reading no longer waits for the server. */
export async function readTags(
  sources: readonly TableSource[],
  lookups: Lookups,
  filter: RowFilter,
  opts: ReadOptions & { chunk: number },
  send: (tags: ParsedTags) => Promise<void>,
): Promise<void> {
  let media: Directory<MediaFile> | undefined
  let classes: Directory<TagClass> | undefined
  let n = 0
  let chunk: ParsedTags = { tags: [], lines: [], errors: [] }
  let sending: Promise<void> = Promise.resolve()
  const handOver = async (tags: ParsedTags) => {
    await sending
    sending = send(tags)
    // a failed send is met by the next handOver or the last await; until then it is not an unhandled rejection
    sending.catch(() => {})
  }
  for (const source of sources) {
    if (source.passedOver !== undefined) continue
    for await (const items of tableRows(source, {
      classColumn: opts.classColumn,
      timesInFile: opts.timesInFile,
      provenance: provenanceOf(source.format, opts.source),
    })) {
      for (const item of items) {
        if ('error' in item) continue
        if (!media && 'name' in item.row.mediaFile) media = await lookups.media()
        if (!classes && 'name' in item.row.tagClass) classes = await lookups.classes()
        const found = resolveRow(item.row, media, classes)
        if (found.problems.length) continue
        const kept = filter.keeps(n++)
        if (!found.tag || !kept) continue
        chunk.tags.push(found.tag)
        chunk.lines.push(item.line)
        if (chunk.tags.length >= opts.chunk) {
          await handOver(chunk)
          chunk = { tags: [], lines: [], errors: [] }
        }
      }
    }
  }
  if (chunk.tags.length) await handOver(chunk)
  await sending
}
