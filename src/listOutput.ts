import * as Flags from '@oclif/core/flags'
import type { Column } from './output.js'
import { usageError } from './exits.js'
import { textTable } from './textTable.js'

// The one implementation of list output, used by every list command: which records (--sort,
// --limit), which columns (--columns), and how (a table, src/textTable.ts; --csv, --no-header;
// --json is the command's result). On a terminal a screenful is shown, and a line says how to see more.

/** records shown on a terminal when --limit is not given */
export const SCREENFUL = 50

export const listFlags = {
  columns: Flags.string({ description: 'columns to show, comma-separated (e.g. id,name)', helpGroup: 'LIST' }),
  sort: Flags.string({ description: 'column to sort by; -column sorts descending (e.g. -created)', helpGroup: 'LIST' }),
  limit: Flags.integer({
    description: `show at most N records, 0 for all (default: all on a pipe or with --json, ${SCREENFUL} on a terminal)`,
    min: 0,
    helpGroup: 'LIST',
  }),
  csv: Flags.boolean({ description: 'CSV instead of a table', helpGroup: 'LIST' }),
  'no-header': Flags.boolean({ description: 'leave out the header row', helpGroup: 'LIST' }),
}

export interface ListFlags {
  columns?: string
  sort?: string
  limit?: number
  csv?: boolean
  'no-header'?: boolean
}

export interface ListOutput {
  /** how many records the output shows when they come in the server's order (no --sort): the first pages are
   * enough; undefined when every record is needed */
  wanted: number | undefined
  /** the records to print (and, under --json, to return) */
  records<R>(rows: readonly R[], columns: readonly Column<R>[]): R[]
  /** the table or CSV text for those records, and the line (for stderr) saying what was left out */
  text<R>(rows: readonly R[], columns: readonly Column<R>[], all: number): { text: string; more?: string }
}

export function listOutput(flags: ListFlags, json: boolean, terminal = Boolean(process.stdout.isTTY)): ListOutput {
  const limit = flags.limit ?? (json || !terminal || flags.csv ? 0 : SCREENFUL)
  return {
    wanted: limit > 0 && !flags.sort ? limit : undefined,
    records(rows, columns) {
      const sorted = flags.sort ? sortBy(rows, columns, flags.sort) : [...rows]
      return limit > 0 ? sorted.slice(0, limit) : sorted
    },
    text(rows, columns, all) {
      const shown = chosen(columns, flags.columns)
      const cells = rows.map((r) => shown.map((c) => cell(c.get(r))))
      const headers = shown.map((c) => c.header.toUpperCase())
      const more =
        rows.length < all
          ? `${rows.length} of ${all} shown: --limit ${Math.min(all, rows.length * 2)} or --limit 0 for all, --json or a pipe for every record`
          : undefined
      if (flags.csv)
        return {
          text: [...(flags['no-header'] ? [] : [headers]), ...cells].map((r) => r.map(csvField).join(',')).join('\n'),
          more,
        }
      const lines = textTable(flags['no-header'] ? null : headers, cells, terminal ? terminalWidth() : undefined)
      return { text: lines.join('\n'), more }
    },
  }
}

/** the terminal's width in cells (80 when it does not say) */
const terminalWidth = () => process.stdout.columns || 80

function chosen<R>(columns: readonly Column<R>[], wanted: string | undefined): Column<R>[] {
  if (!wanted) return [...columns]
  return wanted
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean)
    .map(
      (name) =>
        columns.find((c) => c.header.toLowerCase() === name) ??
        usageError(`--columns: no column "${name}"; the columns are ${columns.map((c) => c.header).join(', ')}`),
    )
}

function sortBy<R>(rows: readonly R[], columns: readonly Column<R>[], spec: string): R[] {
  const descending = spec.startsWith('-')
  const name = spec.replace(/^[-+]/, '').toLowerCase()
  const column =
    columns.find((c) => c.header.toLowerCase() === name) ??
    usageError(`--sort: no column "${name}"; the columns are ${columns.map((c) => c.header).join(', ')}`)
  const key = (r: R) => column.get(r)
  return [...rows].sort((a, b) => {
    const x = key(a)
    const y = key(b)
    const order =
      x === y
        ? 0
        : x === null || x === undefined
          ? 1
          : y === null || y === undefined
            ? -1
            : typeof x === 'number' && typeof y === 'number'
              ? x - y
              : String(x).localeCompare(String(y), 'en', { numeric: true })
    return descending ? -order : order
  })
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return ''
  if (Array.isArray(v)) return v.join(',')
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v).replace(/[\r\n\t]+/g, ' ')
}

function csvField(v: string): string {
  return /[",\n\r]/.test(v) || /^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v
}
