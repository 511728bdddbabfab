import stringWidth from 'string-width'

// The table of a list command (src/listOutput.ts): plain columns, as gh and heroku print them, the header row first,
// each column as wide as its widest cell (in terminal cells: wide characters count two), three spaces between
// columns, no trailing blanks. Fitted to `maxWidth` when given (a terminal), by narrowing the widest columns first and
// cutting what no longer fits with an ellipsis; on a pipe every cell is whole (docs/decisions.md §22, "Fast per
// command": why not a table library).

const GAP = '   '
const ELLIPSIS = '…'
/** a column is never narrowed below this (a cut cell keeps at least one character and its ellipsis) */
const NARROWEST = 2

export function textTable(header: string[] | null, rows: string[][], maxWidth?: number): string[] {
  const lines = header ? [header, ...rows] : rows
  if (!lines.length) return []
  const widths = lines[0].map((_, i) => Math.max(...lines.map((r) => stringWidth(r[i]))))
  if (maxWidth !== undefined) narrow(widths, maxWidth - GAP.length * (widths.length - 1))
  return lines.map((r) =>
    r
      .map((text, i) => {
        const cell = fit(text, widths[i])
        return i === r.length - 1 ? cell : cell + ' '.repeat(widths[i] - stringWidth(cell))
      })
      .join(GAP)
      .trimEnd(),
  )
}

/** Narrow the widest columns, one cell at a time, until they fit `room` (or none can be narrowed further). */
function narrow(widths: number[], room: number): void {
  let total = widths.reduce((a, b) => a + b, 0)
  while (total > room) {
    const widest = Math.max(...widths)
    if (widest <= NARROWEST) return
    widths[widths.indexOf(widest)]--
    total--
  }
}

/** `text` within `width` terminal cells: whole when it fits, else cut with an ellipsis. */
function fit(text: string, width: number): string {
  if (stringWidth(text) <= width) return text
  let cut = ''
  for (const ch of text) {
    if (stringWidth(cut + ch) > width - 1) break
    cut += ch
  }
  return cut.trimEnd() + ELLIPSIS
}
