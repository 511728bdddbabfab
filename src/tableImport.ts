import type { Directory, MediaFile, TagClass } from './lookup.js'
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
}

export interface Checked {
  tables: TableCheck[]
  /** errors of the rows themselves (bad numbers, bad headers) and of their names (no such media file) */
  rowErrors: string[]
  lookupErrors: string[]
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
    errorCount: 0,
    missingClasses: new Map(),
    rows: 0,
  }
  let media: Directory<MediaFile> | undefined
  let classes: Directory<TagClass> | undefined
  const keep = (list: string[], error: string) => {
    result.errorCount++
    if (list.length < SHOWN) list.push(error)
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
        if (
          first &&
          'error' in item &&
          source.belowFolder &&
          /^line \d+: (bad header|the file is empty)/.test(item.error)
        ) {
          source.passedOver = item.error.replace(/^line \d+: /, '')
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
            `${prefix}${source.format === 'aoef' || source.format === 'json' ? 'item' : 'line'} ${item.line}: ${found.problems.join('; ')}`,
          )
          continue
        }
        check.matched++
        files.add(found.mediaFile!)
        filter.see(result.rows++, found.mediaFile!, item.row.startTime, item.row.strength)
      }
      if (source.passedOver !== undefined) break
    }
    check.mediaFiles = files.size
    if (source.passedOver === undefined) result.tables.push(check)
  }
  filter.finish(result.rows)
  return result
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
