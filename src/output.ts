import cliProgress from 'cli-progress'

// Human output: tables on stdout; progress, warnings and summaries on stderr.

export interface Column<T> { header: string; get: (row: T) => unknown }

/** A plain text table: a header row, then one line per record, columns padded to fit. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((r) => columns.map((c) => cell(c.get(r))))
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i].length)))
  const line = (values: string[]) => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]))).join('  ').trimEnd()
  return [line(columns.map((c) => c.header.toUpperCase())), ...cells.map(line)].join('\n')
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return ''
  if (Array.isArray(v)) return v.join(',')
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v).replace(/[\r\n\t]+/g, ' ')
}

/** Key/value lines for one record. */
export function record(obj: Record<string, unknown>): string {
  const width = Math.max(0, ...Object.keys(obj).map((k) => k.length))
  return Object.entries(obj).map(([k, v]) => `${k.padEnd(width)}  ${cell(v)}`).join('\n')
}

export function stderr(line: string): void {
  process.stderr.write(line.endsWith('\n') ? line : line + '\n')
}

export function warn(message: string): void {
  stderr(`Warning: ${message}`)
}

export function formatBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  let i = 0
  let v = n
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++ }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`
}

/**
 * Progress of long work: a bar on a terminal (stderr), plain lines otherwise.
 * `note` lines go above the bar on a terminal and are printed as they come otherwise.
 */
export class Progress {
  private bar?: cliProgress.SingleBar
  private done = 0
  private bytes = 0
  private readonly started = Date.now()

  constructor(private readonly total: number, private readonly opts: { unit: string; totalBytes?: number; quiet?: boolean } ) {
    if (!opts.quiet && process.stderr.isTTY && total > 0) {
      this.bar = new cliProgress.SingleBar({
        stream: process.stderr,
        format: opts.totalBytes !== undefined
          ? `{bar} {value}/{total} ${opts.unit} | {doneBytes}/{totalBytes} | {rate}/s | ETA {eta_formatted}`
          : `{bar} {value}/{total} ${opts.unit} | {rate} ${opts.unit}/s | ETA {eta_formatted}`,
        hideCursor: true,
        etaBuffer: 50,
        fps: 10,
      }, cliProgress.Presets.shades_classic)
      this.bar.start(total, 0, this.payload())
    }
  }

  get interactive(): boolean { return this.bar !== undefined }

  /** `n` more units done, `bytes` more bytes; `line` is printed when not on a terminal. */
  tick(n: number, bytes = 0, line?: string): void {
    this.done += n
    this.bytes += bytes
    if (this.bar) this.bar.update(this.done, this.payload())
    else if (line && !this.opts.quiet) stderr(line)
  }

  note(line: string): void {
    if (this.opts.quiet) return
    if (this.bar) {
      process.stderr.write(`\r\x1b[K${line}\n`)
      this.bar.update(this.done, this.payload())
    } else stderr(line)
  }

  stop(): void {
    this.bar?.stop()
  }

  private payload() {
    const seconds = Math.max((Date.now() - this.started) / 1000, 0.001)
    return this.opts.totalBytes !== undefined
      ? { doneBytes: formatBytes(this.bytes), totalBytes: formatBytes(this.opts.totalBytes), rate: formatBytes(this.bytes / seconds) }
      : { rate: (this.done / seconds).toFixed(0) }
  }
}
