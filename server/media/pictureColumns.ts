// The columns of a spectrogram picture, folded from its frames as they are computed, so that a stretch of
// any length is drawn in memory that depends on the picture's size alone (docs/decisions.md, "Overview
// pictures"): column x of C covers frames [⌊x·F/C⌋, ⌊(x+1)·F/C⌋) of F, and holds, band by band, the
// largest of their values (`max`) or their mean (`mean`).

export const STATISTICS = ['max', 'mean'] as const
export type Statistic = (typeof STATISTICS)[number]

/** What a fold holds, as plain arrays (to send between threads). */
export interface FoldState {
  values: Float64Array
  counts: Float64Array
}

export class ColumnFold {
  private readonly values: Float64Array
  private readonly counts: Float64Array

  /** `frames`: the stretch's frames (a frame past them goes to the last column) */
  constructor(
    private readonly frames: number,
    readonly columns: number,
    readonly bands: number,
    readonly statistic: Statistic = 'max',
  ) {
    this.values = new Float64Array(columns * bands).fill(statistic === 'max' ? -Infinity : 0)
    this.counts = new Float64Array(columns)
  }

  /** The column of frame f. */
  columnOf(f: number): number {
    return Math.min(this.columns - 1, Math.floor(((f + 1) * this.columns - 1) / Math.max(1, this.frames)))
  }

  /** Frames first, first + 1, … as rows of `bands` values. */
  add(first: number, rows: ArrayLike<number>): void {
    const { bands, values } = this
    const max = this.statistic === 'max'
    for (let i = 0, n = rows.length / bands; i < n; i++) {
      const x = this.columnOf(first + i)
      this.counts[x]++
      const at = x * bands,
        row = i * bands
      if (max)
        for (let b = 0; b < bands; b++) {
          const v = rows[row + b]
          if (v > values[at + b]) values[at + b] = v
        }
      else for (let b = 0; b < bands; b++) values[at + b] += rows[row + b]
    }
  }

  get state(): FoldState {
    return { values: this.values, counts: this.counts }
  }

  /** What another fold of the same stretch and columns holds (other frames of it), folded into this one. */
  merge(other: FoldState): void {
    const max = this.statistic === 'max'
    for (let i = 0; i < this.values.length; i++) {
      this.values[i] = max ? Math.max(this.values[i], other.values[i]) : this.values[i] + other.values[i]
    }
    for (let x = 0; x < this.columns; x++) this.counts[x] += other.counts[x]
  }

  /** Columns × bands, each value passed through `scale`; -Infinity in a column no frame fell in. */
  result(scale: (v: number) => number = (v) => v): Float32Array {
    const { bands, values, counts } = this
    const out = new Float32Array(values.length)
    for (let x = 0; x < this.columns; x++) {
      for (let b = 0; b < bands; b++) {
        const v = values[x * bands + b]
        out[x * bands + b] = counts[x] === 0 ? -Infinity : scale(this.statistic === 'max' ? v : v / counts[x])
      }
    }
    return out
  }
}
