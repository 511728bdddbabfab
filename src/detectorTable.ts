import { StringDecoder } from 'node:string_decoder'
import { withRoom } from '../server/typedArrays.js'
import { Spool } from './spool.js'
import { ANNOTATION_PREFIX, annotationsOf, csvField, provenanceCells, type TagRecord } from './tagFormats.js'

// A detector's CSV (BirdNET-Analyzer's, Kaleidoscope's: docs/decisions.md §32) written as its tags come: the format's
// columns, then every annotation the tags have that is not one of them, then mas's columns (what the format has no
// room for, such as the tag's flags), mas_review and mas_provenance. The header names every annotation of every tag,
// so each row is made when its tag comes, with the annotation columns seen by then, and kept on disk (src/spool.ts)
// until the last tag is seen; then the header is written and the rows copied. A column first seen on a later tag is a
// gap in the rows made before it: those rows are read back as text and given its empty cell where it belongs, in
// front of their mas columns, by the lengths kept of each row.

/** A column of the format: its name and its cell, or (undefined, or a cell of null) the tag's annotation of that name. */
export type CsvColumns = ReadonlyArray<[string, ((t: TagRecord) => unknown) | undefined]>

/** mas's own columns, after every annotation and mas's columns of the format */
const OWN = ['mas_review', 'mas_provenance']

/** What a table has beyond the format's columns: mas's columns of what the format has no room for (written after the
 * annotations, before mas_review), and the annotations whose `mas_annotation:` column every table has (the format's
 * column of that name holds something else where the tag has no such annotation: BirdNET's `Common name`). */
export interface TableOptions {
  masColumns?: CsvColumns
  annotationColumns?: readonly string[]
}

export class DetectorTable {
  private readonly spool = Spool.open()
  /** the format's columns and mas's, which an annotation of the same name does not fill but for those given as undefined */
  private readonly taken: Set<string>
  /** the annotation columns after the format's, in the order first seen: the annotation, and the column's name */
  private readonly extra: Array<[string, string]> = []
  private readonly known = new Set<string>()
  private readonly masColumns: CsvColumns
  private readonly provenanceCell = provenanceCells()
  private rows = 0
  /** of each row: the length of its text before its first mas cell's comma, and of its whole text (UTF-16 units) */
  private lengths = new Uint32Array(2 * 1024)
  /** where the rows made with each number of annotation columns begin: [row, byte] when the count became k+1 */
  private readonly widened: Array<{ row: number; byte: number }> = []

  constructor(
    private readonly columns: CsvColumns,
    private readonly review: (tag: number) => string | undefined,
    options: TableOptions = {},
  ) {
    this.masColumns = options.masColumns ?? []
    // a column of the format filled from the annotation of its name (Kaleidoscope's INDIR) takes that annotation
    this.taken = new Set([
      ...columns.filter(([, cell]) => cell !== undefined).map(([c]) => c),
      ...this.masColumns.map(([c]) => c),
      ...OWN,
    ])
    for (const k of options.annotationColumns ?? []) this.see(k)
  }

  /** An annotation first met: its column, after those before (a column of its own; one named like a column the table
   * fills otherwise in a `mas_annotation:` column); an annotation of a column filled from it has that column. */
  private see(k: string): void {
    this.known.add(k)
    if (!this.taken.has(k) && this.columns.some(([c]) => c === k)) return
    this.extra.push([k, this.taken.has(k) ? ANNOTATION_PREFIX + k : k])
    this.widened.push({ row: this.rows, byte: this.spool.length })
  }

  /** Makes the rows of `tags`, after those before, and keeps them. */
  add(tags: readonly TagRecord[]): void {
    for (const t of tags) {
      const notes = annotationsOf(t)
      for (const k in notes) if (!this.known.has(k)) this.see(k)
      let row = ''
      for (let i = 0; i < this.columns.length; i++) {
        const [name, cell] = this.columns[i]
        row += (i ? ',' : '') + csvField(cell?.(t) ?? notes[name])
      }
      for (const [k] of this.extra) row += `,${csvField(notes[k])}`
      const before = row.length
      for (const [, cell] of this.masColumns) row += `,${csvField(cell?.(t))}`
      row += `,${csvField(this.review(Number(t.id)))},${this.provenanceCell(t.provenance)}\r\n`
      this.remember(before, row.length)
      this.spool.append(row)
    }
  }

  /** The header, then every row, to `out`. */
  async write(out: (text: string | Uint8Array) => Promise<void>): Promise<void> {
    const header = [
      ...this.columns.map(([c]) => c),
      ...this.extra.map(([, c]) => c),
      ...this.masColumns.map(([c]) => c),
      ...OWN,
    ]
    await out(header.map(csvField).join(',') + '\r\n')
    const last = this.widened.at(-1) ?? { row: 0, byte: 0 }
    if (last.row > 0) await this.writeNarrower(last.byte, out)
    for await (const chunk of this.spool.bytes(last.byte)) await out(chunk)
  }

  close(): void {
    this.spool.close()
  }

  /** The rows made before the last column was first seen, the cells of the columns each lacks put in. */
  private async writeNarrower(end: number, write: (text: string) => Promise<void>): Promise<void> {
    const decoder = new StringDecoder('utf8')
    const all = this.extra.length
    let row = 0
    let width = 0 // annotation columns of the row at hand
    let text = ''
    for await (const chunk of this.spool.bytes(0, end)) {
      text += decoder.write(chunk)
      let at = 0
      let out = ''
      while (row < this.widened[all - 1].row) {
        const before = this.lengths[2 * row]
        const length = this.lengths[2 * row + 1]
        if (at + length > text.length) break
        while (width < all && this.widened[width].row <= row) width++
        out += text.slice(at, at + before) + ','.repeat(all - width) + text.slice(at + before, at + length)
        at += length
        row++
      }
      text = text.slice(at)
      await write(out)
    }
  }

  private remember(before: number, length: number): void {
    this.lengths = withRoom(this.lengths, 2 * (this.rows + 1))
    this.lengths[2 * this.rows] = before
    this.lengths[2 * this.rows + 1] = length
    this.rows++
  }
}
