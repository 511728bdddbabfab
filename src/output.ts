import { createRequire } from 'node:module'
import type CliProgress from 'cli-progress'

// cli-progress (about 20 modules) is loaded only when a bar is drawn, on a terminal (docs/decisions.md, "Fast per command")
const require = createRequire(import.meta.url)

// Human output: tables on stdout; progress, warnings and summaries on stderr.

export interface Column<T> {
  header: string
  get: (row: T) => unknown
}

/** A plain text table: a header row, then one line per record, columns padded to fit. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((r) => columns.map((c) => cell(c.get(r))))
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i].length)))
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd()
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
  return Object.entries(obj)
    .map(([k, v]) => `${k.padEnd(width)}  ${cell(v)}`)
    .join('\n')
}

/** A number for people, in tables and messages: seconds to the millisecond, strengths to three decimals
 * (docs/decisions.md §10); --json keeps the stored values. */
export const thousandths = (n: number): number => Math.round(n * 1000) / 1000

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
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`
}

/** What a Progress shows on a terminal (and says when interrupted). */
export interface ProgressOptions {
  /** what is counted: 'files', 'tags' ...; 'bytes' counts bytes (shown as KB/MB/GB) */
  unit: string
  /** for units other than bytes: the bytes of all of them, shown beside the count */
  totalBytes?: number
  /** nothing on stderr (--json) */
  quiet?: boolean
  /** a percentage and this text instead of counts, rate and ETA (work whose pace is not ours, e.g. a job) */
  status?: string
  /** the line printed when Ctrl-C (SIGINT) or SIGTERM ends the command: what was done and how to finish */
  interrupted?: (done: number, total: number) => string
  /** on Ctrl-C or SIGTERM, before that line: lets the work under way end (sends no more), at most SETTLE_MS */
  settle?: () => Promise<void>
}

/** How long an interrupted command waits for the requests it has under way (ProgressOptions.settle). */
const SETTLE_MS = 5000

/** The exit status of a command ended by Ctrl-C or SIGTERM (the shell's 128 + SIGINT). */
export const INTERRUPTED_EXIT = 130

/**
 * Progress of long work: a bar on a terminal (stderr), plain lines otherwise. Drawn by cli-progress:
 * `note` lines are its log lines above the bar, and its `stop` shows the cursor again. While the work
 * runs, Ctrl-C or SIGTERM stops the bar, prints what was done and how to finish, and exits 130.
 */
export class Progress {
  private readonly bars?: CliProgress.MultiBar
  private readonly bar?: CliProgress.SingleBar
  private done = 0
  private bytes = 0
  /** bytes of the units done by the work itself (`tick`), not found done already (`skip`): what the rate is of */
  private worked = 0
  /** bytes of units under way, not yet done (an upload's bytes sent so far) */
  private underWay = 0
  private statusText: string
  private readonly started = Date.now()
  private readonly onSignal = () => {
    void this.interrupt()
  }

  constructor(
    private readonly total: number,
    private readonly opts: ProgressOptions,
  ) {
    this.statusText = opts.status ?? ''
    if (!opts.quiet && process.stderr.isTTY && total > 0) {
      const cliProgress = require('cli-progress') as typeof CliProgress
      this.bars = new cliProgress.MultiBar(
        {
          stream: process.stderr,
          format: formatOf(opts),
          formatTime: (t, options, round) =>
            typeof t === 'number' && Number.isFinite(t) ? cliProgress.Format.TimeFormat(t, options, round) : '-',
          hideCursor: true,
          etaBuffer: 50,
          fps: 10,
        },
        cliProgress.Presets.shades_classic,
      )
      // units with bytes fill the bar by bytes (the last file may be most of the work), and count the units beside it
      this.bar = this.bars.create(this.byBytes ? Math.max(opts.totalBytes!, 1) : total, 0, this.payload())
    }
    process.on('SIGINT', this.onSignal)
    process.on('SIGTERM', this.onSignal)
  }

  get interactive(): boolean {
    return this.bar !== undefined
  }

  private get byBytes(): boolean {
    return this.opts.totalBytes !== undefined && this.opts.status === undefined && this.opts.unit !== 'bytes'
  }

  /** where the bar stands: the units done, or, for units with bytes, their bytes done and under way */
  private get barValue(): number {
    return this.byBytes ? Math.min(this.bytes + this.underWay, Math.max(this.opts.totalBytes!, 1)) : this.done
  }

  /** `n` more units done, `bytes` more bytes; `line` is printed when not on a terminal. */
  tick(n: number, bytes = 0, line?: string): void {
    this.worked += bytes
    this.skip(n, bytes, line)
  }

  /** `bytes` more (or, negative, fewer: an upload begun again) of the units under way: shown, and in the rate, before they are done. */
  moving(bytes: number): void {
    this.underWay += bytes
    if (this.bar) this.bar.update(this.barValue, this.payload())
  }

  /** `n` more units found done without work (already there, unreadable): counted, but not in the rate the ETA follows. */
  skip(n: number, bytes = 0, line?: string): void {
    this.done += n
    this.bytes += bytes
    if (this.bar) this.bar.update(this.barValue, this.payload())
    else if (line && !this.opts.quiet) stderr(line)
  }

  /** The work is `done` of the total now (and in this state); `line` is printed when not on a terminal. */
  set(done: number, status?: string, line?: string): void {
    if (status !== undefined) this.statusText = status
    this.tick(done - this.done, 0, line)
  }

  /** A line above the bar on a terminal, as it comes otherwise. */
  note(line: string): void {
    if (this.opts.quiet) return
    if (this.bars) this.bars.log(`${line}\n`)
    else stderr(line)
  }

  /** Draws the last state (and the notes not shown yet) and shows the cursor again. */
  stop(): void {
    process.off('SIGINT', this.onSignal)
    process.off('SIGTERM', this.onSignal)
    if (this.bars?.isActive) {
      this.bars.update()
      this.bars.stop()
    }
  }

  private async interrupt(): Promise<void> {
    this.stop()
    if (this.opts.settle) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        this.opts.settle().catch(() => {}),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, SETTLE_MS)
        }),
      ])
      clearTimeout(timer)
    }
    const message =
      this.opts.interrupted?.(this.done, this.total) ??
      `interrupted: ${this.done} of ${this.total} ${this.opts.unit} done`
    process.stderr.write(`${message}\n`, () => process.exit(INTERRUPTED_EXIT))
  }

  private payload() {
    const seconds = Math.max((Date.now() - this.started) / 1000, 0.001)
    if (this.opts.status !== undefined) return { status: this.statusText }
    if (this.opts.unit === 'bytes')
      return {
        doneBytes: formatBytes(this.done),
        totalBytes: formatBytes(this.total),
        rate: formatBytes(this.done / seconds),
      }
    if (this.opts.totalBytes === undefined) return { rate: (this.done / seconds).toFixed(0) }
    const worked = this.worked + this.underWay
    const eta = bytesEta({
      totalBytes: this.opts.totalBytes,
      doneBytes: this.bytes + this.underWay,
      workedBytes: worked,
      seconds,
    })
    return {
      units: this.done,
      totalUnits: this.total,
      doneBytes: formatBytes(this.bytes + this.underWay),
      totalBytes: formatBytes(this.opts.totalBytes),
      rate: formatBytes(worked / seconds),
      bytesEta: Number.isFinite(eta) ? formatEta(eta) : '-',
    }
  }
}

function formatOf(opts: ProgressOptions): string {
  if (opts.status !== undefined) return '{bar} {percentage}% | {status}'
  if (opts.unit === 'bytes') return '{bar} {doneBytes}/{totalBytes} | {rate}/s | ETA {eta_formatted}'
  // the ETA of units with bytes follows the bytes: the last file may be most of the work
  if (opts.totalBytes !== undefined)
    return `{bar} {units}/{totalUnits} ${opts.unit} | {doneBytes}/{totalBytes} | {rate}/s | ETA {bytesEta}`
  return `{bar} {value}/{total} ${opts.unit} | {rate} ${opts.unit}/s | ETA {eta_formatted}`
}

/**
 * Seconds until the bytes still to go are done at the rate of those the work did so far (bytes found done already, by
 * `skip`, took no time and are left out of the rate); 0 when nothing is left, NaN before any work gives a rate.
 */
export function bytesEta(o: { totalBytes: number; doneBytes: number; workedBytes: number; seconds: number }): number {
  const left = o.totalBytes - o.doneBytes
  if (left <= 0) return 0
  if (o.workedBytes <= 0 || o.seconds <= 0) return NaN
  return left / (o.workedBytes / o.seconds)
}

/** Seconds as the bar's ETA shows them (cli-progress's form: 45s, 3m20s, 2h5m). */
function formatEta(seconds: number): string {
  const cliProgress = require('cli-progress') as typeof CliProgress
  return cliProgress.Format.TimeFormat(Math.round(seconds), { autopaddingChar: '' } as CliProgress.Options, 5)
}

/** Writes `text` to stdout, resolved once it is handed on (so a pipe's back-pressure paces the writer). */
export function writeStdout(text: string | Uint8Array): Promise<void> {
  if (!text.length) return Promise.resolve()
  return new Promise((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve())))
}
