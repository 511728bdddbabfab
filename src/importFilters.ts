// The filters of `mas tag import` (docs/decisions.md §32): --min-score keeps the rows whose strength reaches it (a
// row without one does not), --top N --per DURATION the N strongest rows of each media file in each interval of
// that length from the file's start (ties: the earlier row). The first reading of the files sees every row and
// keeps, per file and interval, the N best so far; `keeps` then answers, on the second reading, by the row's number.

/** A duration as written (`1h`, `30min`, `10m`, `90s`, `1d`, or seconds), in seconds; undefined when not one. */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|d)?\s*$/i.exec(text)
  if (!m) return undefined
  const unit = (m[2] ?? 's').toLowerCase()
  const seconds = Number(m[1]) * (unit === 'd' ? 86_400 : unit === 'h' ? 3600 : unit === 'm' || unit === 'min' ? 60 : 1)
  return seconds > 0 ? seconds : undefined
}

export interface FilterOptions {
  minScore?: number
  top?: number
  per?: number
}

export class RowFilter {
  /** per media file and interval, the best rows so far, strongest first: [strength, row number] */
  private readonly best = new Map<string, Array<[number, number]>>()
  private kept?: Uint8Array
  /** rows below --min-score (or without a strength when it is given) */
  belowScore = 0

  constructor(readonly options: FilterOptions) {}

  get active(): boolean {
    return this.options.minScore !== undefined || this.options.top !== undefined
  }

  /** Sees row `n` (numbered from 0 in reading order) on the first reading. */
  see(n: number, mediaFile: number, startTime: number, strength: number | undefined): void {
    const { minScore, top, per } = this.options
    if (minScore !== undefined && (strength === undefined || strength < minScore)) {
      this.belowScore++
      return
    }
    if (top === undefined) {
      this.mark(n)
      return
    }
    const key = `${mediaFile}:${per ? Math.floor(startTime / per) : 0}`
    const score = strength ?? -Infinity
    const list = this.best.get(key) ?? []
    if (list.length >= top && score <= list[list.length - 1][0]) return
    let i = list.length
    while (i > 0 && list[i - 1][0] < score) i--
    list.splice(i, 0, [score, n])
    if (list.length > top) list.pop()
    this.best.set(key, list)
  }

  /** Ends the first reading of `rows` rows. */
  finish(rows: number): void {
    const marked = this.kept
    this.kept = new Uint8Array(rows)
    if (this.options.top === undefined) {
      if (marked) this.kept.set(marked.subarray(0, rows))
      return
    }
    for (const list of this.best.values()) for (const [, n] of list) this.kept[n] = 1
    this.best.clear()
  }

  /** Is row `n` kept (after finish)? */
  keeps(n: number): boolean {
    return !this.active || this.kept?.[n] === 1
  }

  /** How many rows are kept (after finish). */
  keptCount(): number {
    if (!this.kept) return 0
    let c = 0
    for (const k of this.kept) c += k
    return c
  }

  private mark(n: number): void {
    if (!this.kept || this.kept.length <= n) {
      const grown = new Uint8Array(Math.max(1024, (n + 1) * 2))
      if (this.kept) grown.set(this.kept)
      this.kept = grown
    }
    this.kept[n] = 1
  }
}
