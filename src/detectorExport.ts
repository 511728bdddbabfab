import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { ApiClient } from './api.js'
import { AoefWriter } from './aoefWriter.js'
import { usageError } from './exits.js'
import { mediaFiles, tagClasses, type FoundTagSet } from './lookup.js'
import { stderr } from './output.js'
import type { Write } from './outputFile.js'
import { ravenFile } from './raven.js'
import type { Review } from './records.js'
import { DetectorTable, type CsvColumns, type TableOptions } from './detectorTable.js'
import { annotationsOf, CSV_COLUMNS, FLAGS, hasStrength, type TagRecord } from './tagFormats.js'
import { tagSetReviews } from './tagSetStream.js'
import { tagSetNamed } from '../server/named.js'
import { withRoom } from '../server/typedArrays.js'

// `mas tag export` in the detectors' and labelling tools' formats (docs/decisions.md §32), read back by `mas tag
// import`: BirdNET-Analyzer's CSV and Kaleidoscope's CSV (their columns, the tags' annotations in the columns they
// came from, then mas's columns of what the format has no room for, so that an import gives back the same tags:
// the band, the strength, the flags; then mas_review, the reviewers' decisions, and mas_provenance), Audacity label
// tracks (a file per recording, its alias with .txt; no room for more than the class and the band) and AOEF JSON
// (src/aoef.ts).

export const EXPORT_DETECTOR_FORMATS = ['birdnet', 'kaleidoscope', 'audacity', 'aoef'] as const
export type ExportDetectorFormat = (typeof EXPORT_DETECTOR_FORMATS)[number]
export const isDetectorExport = (format: string): format is ExportDetectorFormat =>
  (EXPORT_DETECTOR_FORMATS as readonly string[]).includes(format)

/** What a table says of a tag beyond the tag: its file's alias, its class's name and display name, the decisions on it. */
export interface ExportContext {
  alias: (mediaFile: number) => string
  className: (tagClass: number) => string
  displayName: (tagClass: number) => string | undefined
  review: (tag: number) => string | undefined
}

/** The tag's flags, which no detector's table has: true or false. */
const FLAG_COLUMNS: CsvColumns = [
  ['mas_machine_tagged', (t) => t.machineTagged],
  ['mas_user_tagged', (t) => t.userTagged],
  ['mas_randomly_chosen', (t) => t.randomlyChosen],
]

/** BirdNET-Analyzer's CSV: the class's name as the scientific name, the common name the tag came with (else the class's
 * display name), the strength as Confidence, the alias as File. */
const birdnetColumns = (ctx: ExportContext): CsvColumns => [
  ['Start (s)', (t) => t.startTime],
  ['End (s)', (t) => t.endTime],
  ['Scientific name', (t) => ctx.className(Number(t.tagClass))],
  ['Common name', (t) => annotationsOf(t)['Common name'] ?? ctx.displayName(Number(t.tagClass))],
  ['Confidence', (t) => t.strength],
  ['File', (t) => ctx.alias(Number(t.mediaFile))],
]

/** What BirdNET's CSV has no room for: the band (BirdNET's is the whole spectrum), the flags, and whether `Common name`
 * is the tag's own annotation (`mas_annotation:Common name`, empty where the cell is the class's display name). */
const BIRDNET_MAS: TableOptions = {
  masColumns: [
    ['mas_min_frequency', (t) => t.minFrequency],
    ['mas_max_frequency', (t) => t.maxFrequency],
    ...FLAG_COLUMNS,
  ],
  annotationColumns: ['Common name'],
}

const folderOf = (alias: string) => alias.replace(/\\/g, '/').split('/').slice(0, -1).join('/')
const nameOf = (alias: string) => alias.replace(/\\/g, '/').split('/').pop() ?? alias

/** Kaleidoscope's CSV: FOLDER and IN FILE from the alias, OFFSET and DURATION, FMIN and FMAX, the class as TOP1MATCH. */
const kaleidoscopeColumns = (ctx: ExportContext): CsvColumns => [
  ['INDIR', undefined],
  ['FOLDER', (t) => folderOf(ctx.alias(Number(t.mediaFile)))],
  ['IN FILE', (t) => nameOf(ctx.alias(Number(t.mediaFile)))],
  ['OFFSET', (t) => t.startTime],
  ['DURATION', (t) => Math.round((Number(t.endTime) - Number(t.startTime)) * 1e6) / 1e6],
  ['FMIN', (t) => t.minFrequency],
  ['FMAX', (t) => t.maxFrequency],
  ['TOP1MATCH', (t) => ctx.className(Number(t.tagClass))],
  ['TOP1DIST', undefined],
]

/** What Kaleidoscope's CSV has no room for: the strength (TOP1DIST is a distance, left as it came), and the flags. */
const KALEIDOSCOPE_MAS: TableOptions = {
  masColumns: [['mas_strength', (t) => (hasStrength(t) ? t.strength : undefined)], ...FLAG_COLUMNS],
}

/** An export in a detector's format: the tags are handed to `add` as they are downloaded (awaited when it writes
 * them), and the rest written by `finish`; `close` lets go of what the export kept on disk. */
export interface DetectorExport {
  add(tags: readonly TagRecord[]): void | Promise<void>
  finish(): Promise<void>
  close(): void
  /** the only fields of a tag record it reads (undefined: whole records) */
  fields?: readonly string[]
}

/** What an AOEF document reads of a tag: its place, class and strength, its flags (features), its annotations (tags of
 * their own), id (its uuids, the decisions) and provenance. */
const AOEF_FIELDS = ['id', ...CSV_COLUMNS, ...FLAGS, 'annotations', 'provenance'] as const

/** What a detector's table reads of a tag: what its columns name, its annotations (columns of their own), its
 * provenance, and its id where there are decisions to look up. Each field left out is one the server need not write
 * nor the command parse, for every tag (BENCHMARKS.md). */
const tableFields = (tagged: readonly (typeof CSV_COLUMNS)[number][], decided: boolean): string[] => [
  ...(decided ? ['id'] : []),
  ...tagged,
  ...FLAGS,
  'annotations',
  'provenance',
]

/** A detector's CSV (src/detectorTable.ts): its rows made as the tags come, kept on disk until the header is known. */
function csvExport(
  columns: CsvColumns,
  options: TableOptions,
  ctx: ExportContext,
  fields: readonly string[],
  write: Write,
): DetectorExport {
  const table = new DetectorTable(columns, ctx.review, options)
  return {
    add: (tags) => table.add(tags),
    finish: () => table.write(write),
    close: () => table.close(),
    fields,
  }
}

/** An AOEF document (src/aoefWriter.ts), its annotations written as the tags come, its events kept on disk until
 * every tag is seen. */
function aoefExport(writer: AoefWriter): DetectorExport {
  return {
    add: (tags) => writer.add(tags),
    finish: () => writer.finish(),
    close: () => writer.close(),
    fields: AOEF_FIELDS,
  }
}

/** What a label track says of a tag. */
interface Label {
  id: number
  startTime: number
  endTime: number
  minFrequency: number
  maxFrequency: number
  tagClass: number
}

/** An Audacity label track of one recording's tags, in time order: a frequency line after each label with a band. */
export function audacityLabels(labels: readonly Label[], ctx: ExportContext): string {
  const sorted = [...labels].sort((a, b) => a.startTime - b.startTime || a.id - b.id)
  let out = ''
  for (const t of sorted) {
    out += `${t.startTime.toFixed(6)}\t${t.endTime.toFixed(6)}\t${ctx.className(t.tagClass).replace(/[\t\r\n]+/g, ' ')}\n`
    if (t.maxFrequency > 0) out += `\\\t${t.minFrequency.toFixed(6)}\t${t.maxFrequency.toFixed(6)}\n`
  }
  return out
}

/** The labels of an export's tags, held as numbers (44 bytes a tag, where an object each took about 150 and the
 * collector's time): what a track says of each, in the order they came. */
class LabelStore {
  private size = 0
  private ints = new Int32Array(3 * 1024) // id, mediaFile, tagClass
  private floats = new Float64Array(4 * 1024) // startTime, endTime, minFrequency, maxFrequency

  add(t: TagRecord): void {
    this.ints = withRoom(this.ints, 3 * (this.size + 1))
    this.floats = withRoom(this.floats, 4 * (this.size + 1))
    const i = this.size++
    const { ints, floats } = this
    ints[3 * i] = Number(t.id)
    ints[3 * i + 1] = Number(t.mediaFile)
    ints[3 * i + 2] = Number(t.tagClass)
    floats[4 * i] = Number(t.startTime)
    floats[4 * i + 1] = Number(t.endTime)
    floats[4 * i + 2] = Number(t.minFrequency)
    floats[4 * i + 3] = Number(t.maxFrequency)
  }

  /** Each recording's labels (their places in the store), the recordings in the order their first tag came. */
  byFile(): Map<number, number[]> {
    const files = new Map<number, number[]>()
    for (let i = 0; i < this.size; i++) {
      const file = this.ints[3 * i + 1]
      const own = files.get(file)
      if (own) own.push(i)
      else files.set(file, [i])
    }
    return files
  }

  /** The labels at these places. */
  labels(places: readonly number[]): Label[] {
    return places.map((i) => this.label(i))
  }

  clear(): void {
    this.size = 0
    this.ints = new Int32Array(0)
    this.floats = new Float64Array(0)
  }

  private label(i: number): Label {
    const { ints, floats } = this
    return {
      id: ints[3 * i],
      tagClass: ints[3 * i + 2],
      startTime: floats[4 * i],
      endTime: floats[4 * i + 1],
      minFrequency: floats[4 * i + 2],
      maxFrequency: floats[4 * i + 3],
    }
  }
}

/** Audacity label tracks: the labels kept in memory (LabelStore), written to stdout for one recording, or a file each
 * below `perFile` (the alias with .txt, as an import of that folder reads them back). */
function audacityExport(ctx: ExportContext, perFile: string | undefined, write: Write): DetectorExport {
  const labels = new LabelStore()
  return {
    add(tags) {
      for (const t of tags) labels.add(t)
    },
    async finish() {
      const files = labels.byFile()
      if (perFile === undefined) {
        if (files.size > 1)
          usageError(
            `the tags lie on ${files.size} recordings, and an Audacity label track is of one: give --per-file DIR (a track each)`,
          )
        for (const own of files.values()) await write(audacityLabels(labels.labels(own), ctx))
        return
      }
      // written one after another, each at once: the command has nothing else to do meanwhile, and a write handed to
      // the thread pool and awaited cost a track about a millisecond of waiting (BENCHMARKS.md)
      const made = new Set<string>()
      for (const [id, own] of files) {
        const path = join(
          perFile,
          ...`${ctx.alias(id)}.txt`
            .replace(/\\/g, '/')
            .split('/')
            .filter((p) => p !== '' && p !== '.' && p !== '..'),
        )
        const folder = dirname(path)
        if (!made.has(folder)) mkdirSync(folder, { recursive: true })
        made.add(folder)
        writeFileSync(path, audacityLabels(labels.labels(own), ctx))
      }
      stderr(`Wrote ${files.size} label track${files.size === 1 ? '' : 's'} below ${perFile}`)
    },
    close: () => labels.clear(),
    fields: ['id', 'mediaFile', 'tagClass', 'startTime', 'endTime', 'minFrequency', 'maxFrequency'],
  }
}

/** The export of a tag set's tags in `format` (to stdout, or for Audacity's tracks of several recordings, below
 * `perFile`), with what it names fetched: the library's media files and classes, and the decisions on the tags. */
export async function detectorExport(
  api: ApiClient,
  tagSet: FoundTagSet,
  format: ExportDetectorFormat,
  perFile: string | undefined,
  write: Write,
): Promise<DetectorExport> {
  if (!tagSet.library)
    usageError(`${tagSetNamed(tagSet)} belongs to no library: a ${format} table names each tag's recording and class`)
  const [media, classes, reviews] = await Promise.all([
    mediaFiles(api, tagSet.library),
    tagClasses(api, tagSet.library),
    tagSetReviews(api, tagSet.id).catch(() => [] as Review[]),
  ])
  const decisions = new Map<number, string[]>()
  for (const r of [...reviews].sort((a, b) => (a.creationDate < b.creationDate ? -1 : 1))) {
    const list = decisions.get(r.tag) ?? []
    if (!list.includes(r.decision)) list.push(r.decision)
    decisions.set(r.tag, list)
  }
  const ctx: ExportContext = {
    alias: (id) => media.byId(id)?.alias ?? String(id),
    className: (id) => classes.byId(id)?.className ?? String(id),
    displayName: (id) => classes.byId(id)?.displayName || undefined,
    review: (id) => decisions.get(id)?.join(';'),
  }
  const decided = decisions.size > 0
  if (format === 'birdnet')
    return csvExport(
      birdnetColumns(ctx),
      BIRDNET_MAS,
      ctx,
      tableFields(
        ['mediaFile', 'tagClass', 'startTime', 'endTime', 'minFrequency', 'maxFrequency', 'strength'],
        decided,
      ),
      write,
    )
  if (format === 'kaleidoscope')
    return csvExport(
      kaleidoscopeColumns(ctx),
      KALEIDOSCOPE_MAS,
      ctx,
      tableFields(
        ['mediaFile', 'tagClass', 'startTime', 'endTime', 'minFrequency', 'maxFrequency', 'strength'],
        decided,
      ),
      write,
    )
  if (format === 'aoef') {
    const files = new Map(media.records.map((m) => [m.id, ravenFile(m)]))
    return aoefExport(
      new AoefWriter(
        {
          ...ctx,
          duration: (id) => files.get(id)?.duration,
          sampleRate: (id) => files.get(id)?.sampleRate,
          now: new Date().toISOString(),
        },
        write,
      ),
    )
  }
  return audacityExport(ctx, perFile, write)
}
