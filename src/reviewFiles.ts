import type { Review, Tag } from './records.js'
import { kaleidoscopeEnd, kaleidoscopeFile } from './detectorFormats.js'
import { csvRecords } from './tagFormats.js'

// Decisions on tags as files (README, "Reviewing machine tags"): `mas review export` writes them as CSV, or as a
// Raven table with a Review column; `mas review import` reads either back, or any Raven table or CSV with a
// verdict column (the mas_review column of mas's BirdNET and Kaleidoscope tables too), finding each row's tag by
// mas_tag_id, else by its file, times and class (in Raven's, BirdNET-Analyzer's or Kaleidoscope's columns).

export const DECISIONS = ['yes', 'no', 'unsure', 'skip'] as const
export type Decision = (typeof DECISIONS)[number]

/** What a review file tells of a decision's tag. */
export type ReviewTag = Pick<
  Tag,
  'id' | 'mediaFile' | 'tagClass' | 'startTime' | 'endTime' | 'minFrequency' | 'maxFrequency' | 'strength'
>

/** A decision with what a person reading the file needs: names beside the ids. */
export interface ExportRow {
  review: Review
  tag: ReviewTag
  mediaFile: string
  tagClass: string
  reviewer: string
  namedClass: string
}

export const REVIEW_CSV_COLUMNS = [
  'mas_tag_id',
  'mediaFile',
  'mas_media_file_id',
  'startTime',
  'endTime',
  'minFrequency',
  'maxFrequency',
  'tagClass',
  'mas_tag_class_id',
  'strength',
  'reviewer',
  'mas_user_id',
  'decision',
  'namedClass',
  'mas_named_class_id',
  'note',
  'creationDate',
] as const

function csvField(v: unknown): string {
  if (v === undefined || v === null) return ''
  const s = String(v)
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function reviewCsv(rows: readonly ExportRow[]): string {
  const lines = rows.map(({ review: r, tag: t, mediaFile, tagClass, reviewer, namedClass }) =>
    [
      t.id,
      mediaFile,
      t.mediaFile,
      t.startTime,
      t.endTime,
      t.minFrequency,
      t.maxFrequency,
      tagClass,
      t.tagClass,
      t.strength,
      reviewer,
      r.user,
      r.decision,
      namedClass,
      r.tagClass ?? '',
      r.note,
      r.creationDate,
    ]
      .map(csvField)
      .join(','),
  )
  return [REVIEW_CSV_COLUMNS.join(','), ...lines].join('\n') + '\n'
}

/** What a verdict cell says: the decisions and the words Raven users write for them. */
const VERDICTS: Record<string, Decision> = {
  yes: 'yes',
  y: 'yes',
  true: 'yes',
  '1': 'yes',
  correct: 'yes',
  positive: 'yes',
  tp: 'yes',
  no: 'no',
  n: 'no',
  false: 'no',
  '0': 'no',
  incorrect: 'no',
  wrong: 'no',
  negative: 'no',
  fp: 'no',
  unsure: 'unsure',
  u: 'unsure',
  '?': 'unsure',
  maybe: 'unsure',
  unknown: 'unsure',
  skip: 'skip',
  s: 'skip',
  skipped: 'skip',
}

/** The columns a verdict may be in, first found wins. */
export const VERDICT_COLUMNS = [
  'decision',
  'Review',
  'Verdict',
  'Validation',
  'Decision',
  'review',
  'verdict',
  'mas_review',
] as const
const CLASS_COLUMNS = ['tagClass', 'Species', 'Annotation', 'Class', 'Label', 'Tag', 'Scientific name', 'TOP1MATCH']

/** One row of a file to import: its tag, or what finds it, and the decision. */
export interface ImportRow {
  line: number
  tagId?: number
  mediaFile?: string
  mediaFileId?: number
  startTime?: number
  endTime?: number
  tagClass?: string
  decision: Decision
  /** with `no`: the class named instead (name or id) */
  namedClass?: string
  note: string
}

export interface ParsedReviews {
  rows: ImportRow[]
  errors: string[]
  blank: number
}

const num = (s: string | undefined) =>
  s === undefined || s.trim() === '' || !Number.isFinite(Number(s)) ? undefined : Number(s)
const text = (s: string | undefined) => (s === undefined || s.trim() === '' ? undefined : s.trim())

/** A CSV (comma) or Raven selection table (tab) with a verdict column. Rows without a verdict are counted, not read. */
export function parseReviews(input: string, verdictColumn?: string): ParsedReviews {
  const firstLine = input.slice(0, input.indexOf('\n') >>> 0)
  const records = csvRecords(input, firstLine.includes('\t') ? '\t' : ',')
  const out: ParsedReviews = { rows: [], errors: [], blank: 0 }
  if (!records.length) return { ...out, errors: ['the file is empty'] }
  const header = records[0].fields.map((h) => h.trim())
  const at = (names: readonly string[]) => names.map((n) => header.indexOf(n)).find((i) => i >= 0) ?? -1
  const verdict = verdictColumn !== undefined ? header.indexOf(verdictColumn) : at(VERDICT_COLUMNS)
  if (verdict < 0) {
    return {
      ...out,
      errors: [
        verdictColumn !== undefined
          ? `no column ${JSON.stringify(verdictColumn)} in the header`
          : `no verdict column: the header needs one of ${VERDICT_COLUMNS.join(', ')} (or give --verdict-column)`,
      ],
    }
  }
  const col = {
    tag: at(['mas_tag_id']),
    file: at(['mediaFile', 'Begin Path', 'Begin File', 'File', 'IN FILE']),
    // Kaleidoscope's: the file's folder below its input folder
    folder: at(['FOLDER']),
    fileId: at(['mas_media_file_id']),
    start: at(['startTime', 'Start (s)', 'OFFSET']),
    end: at(['endTime', 'End (s)']),
    duration: at(['DURATION']),
    offset: at(['File Offset (s)']),
    begin: at(['Begin Time (s)']),
    stop: at(['End Time (s)']),
    view: at(['View']),
    cls: at(CLASS_COLUMNS),
    named: at(['namedClass']),
    namedId: at(['mas_named_class_id']),
    note: at(['note', 'Note', 'Notes']),
  }
  for (const { line, fields } of records.slice(1)) {
    const cell = (i: number) => (i >= 0 ? fields[i] : undefined)
    // Raven writes a row per view of a selection; the spectrogram's is the one
    if (col.view >= 0 && /^waveform/i.test(cell(col.view) ?? '')) continue
    const said = text(cell(verdict))
    if (said === undefined) {
      out.blank++
      continue
    }
    const decision = VERDICTS[said.toLowerCase()]
    if (!decision && said.includes(';')) {
      // mas's detector tables list every reviewer's decision in mas_review
      out.errors.push(
        `line ${line}: ${JSON.stringify(said)} holds several reviewers' decisions: keep the one to record`,
      )
      continue
    }
    if (!decision) {
      out.errors.push(`line ${line}: ${JSON.stringify(said)} is no verdict (yes, no, unsure or skip)`)
      continue
    }
    let startTime = num(cell(col.start))
    const duration = num(cell(col.duration))
    let endTime =
      num(cell(col.end)) ??
      (startTime !== undefined && duration !== undefined ? kaleidoscopeEnd(startTime, duration) : undefined)
    if (startTime === undefined && col.begin >= 0) {
      // a Raven table: the place in the file, where the table gives it (multi-file tables), else its times
      const begin = num(cell(col.begin))
      const stop = num(cell(col.stop))
      const offset = num(cell(col.offset))
      startTime = offset ?? begin
      endTime = stop !== undefined && begin !== undefined ? (offset ?? begin) + (stop - begin) : undefined
    }
    // below its folder where the table gives one (Kaleidoscope's FOLDER and IN FILE)
    const file = text(cell(col.file))
    const row: ImportRow = {
      line,
      decision,
      tagId: num(cell(col.tag)),
      mediaFile: file === undefined ? undefined : kaleidoscopeFile(text(cell(col.folder)) ?? '', file),
      mediaFileId: num(cell(col.fileId)),
      startTime,
      endTime,
      tagClass: text(cell(col.cls)),
      note: cell(col.note) ?? '',
      namedClass: decision === 'no' ? (text(cell(col.namedId)) ?? text(cell(col.named))) : undefined,
    }
    if (
      row.tagId === undefined &&
      ((row.mediaFile === undefined && row.mediaFileId === undefined) ||
        row.startTime === undefined ||
        row.endTime === undefined)
    ) {
      out.errors.push(`line ${line}: no mas_tag_id, and no media file with start and end times to find the tag by`)
      continue
    }
    out.rows.push(row)
  }
  return out
}

/** Finds tags by media file, times (to the millisecond) and class. */
export class TagFinder {
  private readonly byFile = new Map<number, ReviewTag[]>()

  constructor(tags: readonly ReviewTag[]) {
    for (const t of tags) {
      const list = this.byFile.get(t.mediaFile)
      if (list) list.push(t)
      else this.byFile.set(t.mediaFile, [t])
    }
  }

  find(mediaFile: number, startTime: number, endTime: number, tagClass: number | undefined): ReviewTag[] {
    const close = (a: number, b: number) => Math.abs(a - b) < 0.0005
    return (this.byFile.get(mediaFile) ?? []).filter(
      (t) =>
        close(t.startTime, startTime) &&
        close(t.endTime, endTime) &&
        (tagClass === undefined || t.tagClass === tagClass),
    )
  }
}
