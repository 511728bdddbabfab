import { basename } from 'node:path'
import FormData from 'form-data'
import { ApiError, ConnectionError, describeError, mapLimit, type ApiClient } from './api.js'
import { failure } from './exits.js'
import type { ImportCache } from './importCache.js'
import { EMPTY_FILE, fileBody, md5File, ReadAhead, SMALL_FILE_BYTES, type FoundFile } from './mediaFiles.js'
import { aliasTaken, importWarnings } from './importParts.js'
import { libraryText } from './lookup.js'
import { Progress, stderr } from './output.js'
import { offersExtensions } from './serverOffers.js'
import { Wakeup } from './wakeup.js'

// `mas media import`: hash (through the cache), ask the server which bytes it already
// holds, upload the rest with bounded concurrency. Re-running finishes what was left.

export type Outcome = 'imported' | 'duplicate' | 'failed' | 'skipped' | 'alias-taken' | 'would-import'
export interface ImportRecord {
  path: string
  outcome: Outcome
  id: number | null
  reason: string | null
  /** what the server found wrong with an imported file (e.g. truncated) */
  warnings?: string[]
}

export interface ImportOptions {
  library: { id: number; name: string }
  /** the text parts sent with a file (alias, sensor, start time options: src/importParts.ts) */
  partsOf: (f: FoundFile) => Record<string, string>
  concurrency: number
  dryRun: boolean
  quiet: boolean
}

export const CHECK_BATCH = 1000

interface Hashed extends FoundFile {
  md5: string
}

export class ServerCannotImport extends Error {}

export async function importMedia(
  api: ApiClient,
  cache: ImportCache,
  files: FoundFile[],
  opts: ImportOptions,
): Promise<ImportRecord[]> {
  // the original service imports nothing: said before any file is read
  if (!(await offersExtensions(api))) throw cannotImport(api)
  const records = new Map<string, ImportRecord>()
  const firstOfMd5 = new Map<string, Hashed>()
  const sameAs = new Map<string, Hashed>() // a later file with bytes already being uploaded -> that file
  const uploads = new UploadQueue()
  const readAhead = new ReadAhead(READ_AHEAD_BYTES)
  let present = 0
  let uploading: Promise<unknown> = Promise.resolve()
  let interrupted = false
  // one bar for every file: it moves as each file's outcome is known (already there, or uploaded)
  const progress = new Progress(files.length, {
    unit: 'files',
    totalBytes: files.reduce((s, f) => s + f.size, 0),
    quiet: opts.quiet,
    // no upload starts any more; those under way are waited for, so the count says what the server stored
    settle: async () => {
      interrupted = true
      uploads.stop()
      await uploading
    },
    interrupted: (done, total) => `interrupted: ${done} of ${total} files done, re-run the same command to finish`,
  })

  // Hashing and the pre-check go batch by batch, and uploads start after the first batch: the files
  // of one batch are read while those of the batch before are being sent (nothing is sent unchecked).
  const produce = async () => {
    const unhashed = (f: FoundFile) => cache.get(f.path, f.size, f.mtimeMs) === undefined
    const missing = files.filter(unhashed).length
    if (missing && !progress.interactive && !opts.quiet) stderr(`hashing ${missing} file(s)`)
    try {
      for (const batch of checkBatches(files, unhashed)) {
        // hash no further ahead of the uploads than the kept bytes allow: each file is read once,
        // and hashing is spread over the import instead of taking the CPU from its first uploads
        const keeps = batch.reduce((n, f) => n + (unhashed(f) && f.size <= SMALL_FILE_BYTES ? f.size : 0), 0)
        await Promise.race([readAhead.until(READ_AHEAD_BYTES - keeps), uploads.halted])
        if (uploads.stopped) return
        const hashed = await hashAll(batch, cache, opts, records, readAhead)
        const existing = await checkExisting(api, opts.library.id, hashed)
        const read = new Set(hashed.map((f) => f.path))
        const unreadable = batch.filter((f) => !read.has(f.path))
        progress.skip(
          unreadable.length,
          unreadable.reduce((n, f) => n + f.size, 0),
        )
        hashed.forEach((f, i) => {
          if (existing[i] !== null) {
            present++
            records.set(f.path, { path: f.path, outcome: 'duplicate', id: existing[i], reason: null })
          } else if (firstOfMd5.has(f.md5)) {
            sameAs.set(f.path, firstOfMd5.get(f.md5)!)
          } else {
            firstOfMd5.set(f.md5, f)
            if (!opts.dryRun) return uploads.push(f)
            records.set(f.path, { path: f.path, outcome: 'would-import', id: null, reason: null })
          }
          readAhead.take(f.path) // not uploaded: its kept bytes go
          progress.skip(1, f.size)
        })
      }
    } finally {
      await cache.save().catch((err: Error) => stderr(`Warning: the import cache was not saved: ${err.message}`))
      uploads.end()
    }
    if (present > 0) progress.note(`${present} file(s) already in ${libraryText(opts.library)}`)
  }
  uploading = uploadAll(api, uploads, opts, records, progress, readAhead)
  const [produced, uploaded] = await Promise.allSettled([
    produce().catch((err) => {
      uploads.stop()
      throw err
    }),
    uploading,
  ])
  progress.stop()
  // interrupted: Progress says what was done and ends the process
  if (interrupted) return new Promise<never>(() => {})
  if (produced.status === 'rejected') {
    throw produced.reason instanceof ConnectionError
      ? unreachableServer(produced.reason, 'the check of what it holds failed', records)
      : produced.reason
  }
  if (uploaded.status === 'rejected') throw uploaded.reason

  for (const [path, first] of sameAs) {
    const r = records.get(first.path)!
    records.set(
      path,
      opts.dryRun
        ? { path, outcome: 'duplicate', id: null, reason: `same bytes as ${first.path}` }
        : r.outcome === 'failed'
          ? { path, outcome: 'failed', id: null, reason: r.reason }
          : { path, outcome: 'duplicate', id: r.id, reason: `same bytes as ${first.path}` },
    )
  }
  return files.map((f) => records.get(f.path)!)
}

/** small files' bytes kept from hashing for their upload, at most */
const READ_AHEAD_BYTES = 32 * 1024 * 1024

/** Files in batches for hashing and the pre-check: small at first so uploads start soon, then growing to
 * CHECK_BATCH (a re-run over 10,000 files costs about 15 checks); a batch also ends past BATCH_BYTES, or
 * past HASH_BATCH_BYTES of files to hash (a re-run hashes nothing, and goes by CHECK_BATCH). */
const FIRST_BATCH = 16
const BATCH_BYTES = 256 * 1024 * 1024
const HASH_BATCH_BYTES = 16 * 1024 * 1024

function* checkBatches(files: FoundFile[], unhashed: (f: FoundFile) => boolean): Generator<FoundFile[]> {
  let limit = FIRST_BATCH
  let batch: FoundFile[] = []
  let bytes = 0
  let toHash = 0
  for (const f of files) {
    batch.push(f)
    bytes += f.size
    if (unhashed(f)) toHash += f.size
    if (batch.length >= limit || bytes >= BATCH_BYTES || toHash >= HASH_BATCH_BYTES) {
      yield batch
      batch = []
      bytes = 0
      toHash = 0
      limit = Math.min(limit * 2, CHECK_BATCH)
    }
  }
  if (batch.length) yield batch
}

async function hashAll(
  files: FoundFile[],
  cache: ImportCache,
  opts: ImportOptions,
  records: Map<string, ImportRecord>,
  readAhead: ReadAhead,
): Promise<Hashed[]> {
  const missing = files.filter((f) => cache.get(f.path, f.size, f.mtimeMs) === undefined)
  await mapLimit(missing, opts.concurrency, async (f) => {
    try {
      cache.set(f.path, f.size, f.mtimeMs, await md5File(f.path, f.size, (bytes) => readAhead.keep(f.path, bytes)))
    } catch (err) {
      records.set(f.path, {
        path: f.path,
        outcome: 'failed',
        id: null,
        reason: `cannot read: ${(err as Error).message}`,
      })
    }
  })
  return files.flatMap((f) => {
    const md5 = cache.get(f.path, f.size, f.mtimeMs)
    return md5 && !records.has(f.path) ? [{ ...f, md5 }] : []
  })
}

/** The id already holding each file's bytes, or null, from the server's batched pre-check. */
async function checkExisting(api: ApiClient, library: number, files: Hashed[]): Promise<(number | null)[]> {
  const out: (number | null)[] = []
  for (let i = 0; i < files.length; i += CHECK_BATCH) {
    const batch = files.slice(i, i + CHECK_BATCH)
    const path = `library/${library}/mediaFiles/check/`
    const answer = await api.request<(number | null)[]>('POST', path, {
      json: batch.map((f) => ({ md5: f.md5, size: f.size })),
      retry: true,
    })
    if (answer.status === 404 || answer.status === 405) throw cannotImport(api)
    if (answer.status >= 400) throw new ApiError(answer.status, answer.data, 'POST', api.url(path))
    if (!Array.isArray(answer.data) || answer.data.length !== batch.length)
      failure(`The server answered the pre-check of ${path} with something unexpected`)
    out.push(...answer.data.map((v) => (typeof v === 'number' ? v : null)))
  }
  return out
}

/** Files checked and waiting to be uploaded, taken by the upload workers as they come. */
class UploadQueue {
  private readonly files: Hashed[] = []
  private readonly changed = new Wakeup()
  private ended = false
  /** no more uploads may start (a fatal answer, or the pre-check failed) */
  stopped = false
  private halt!: () => void
  /** settles when the queue is stopped */
  readonly halted = new Promise<void>((resolve) => {
    this.halt = resolve
  })
  push(f: Hashed): void {
    this.files.push(f)
    this.changed.wake()
  }

  end(): void {
    this.ended = true
    this.changed.wake()
  }
  stop(): void {
    this.stopped = true
    this.halt()
    this.end()
  }

  /** the next file, or null when there will be no more */
  async next(): Promise<Hashed | null> {
    for (;;) {
      if (this.stopped) return null
      if (this.files.length) return this.files.shift()!
      if (this.ended) return null
      await this.changed.next()
    }
  }
}

/** Uploads in a row that could not reach the server (each after its own retries) before the import gives up. */
export const UNREACHABLE_AFTER = 5

async function uploadAll(
  api: ApiClient,
  queue: UploadQueue,
  opts: ImportOptions,
  records: Map<string, ImportRecord>,
  progress: Progress,
  readAhead: ReadAhead,
): Promise<void> {
  let started = false
  let fatal: Error | undefined
  let unreachable = 0
  const path = `library/${opts.library.id}/mediaFiles/import/`
  const worker = async () => {
    for (;;) {
      const f = await queue.next()
      if (!f) return
      if (!started && !progress.interactive && !opts.quiet) stderr('uploading the files the library does not hold yet')
      started = true
      let record: ImportRecord
      // a large file's bytes as they are read into the request, on the bar before the file is done (from zero again on a retry)
      let sent = 0
      const resend = () => {
        progress.moving(-sent)
        sent = 0
      }
      try {
        // Safe to re-send: the server answers the same bytes with the record it already holds.
        const kept = readAhead.take(f.path)
        const answer = await api.upload<{ id?: number } | null>(
          path,
          async () => {
            resend()
            const form = new FormData()
            for (const [name, value] of Object.entries(opts.partsOf(f))) form.append(name, value)
            form.append('md5', f.md5)
            const bytes = kept ?? (await fileBody(f.path, f.size))
            if (!Buffer.isBuffer(bytes))
              bytes.on('data', (chunk: Buffer) => {
                sent += chunk.length
                progress.moving(chunk.length)
              })
            form.append('file', bytes, {
              filename: basename(f.path),
              knownLength: Buffer.isBuffer(bytes) ? bytes.length : f.size,
            })
            return form
          },
          { retry: true },
        )
        if (answer.status === 404 || answer.status === 405) {
          fatal = cannotImport(api)
          queue.stop()
          return
        }
        if (answer.status === 401 || answer.status === 403) {
          fatal = new ApiError(answer.status, answer.data, 'POST', api.url(path))
          queue.stop()
          return
        }
        record =
          answer.status === 201
            ? {
                path: f.path,
                outcome: 'imported',
                id: answer.data?.id ?? null,
                reason: null,
                warnings: importWarnings(answer.data),
              }
            : answer.status === 200
              ? { path: f.path, outcome: 'duplicate', id: answer.data?.id ?? null, reason: null }
              : answer.status === 400 && aliasTaken(answer.data)
                ? { path: f.path, outcome: 'alias-taken', id: null, reason: aliasTaken(answer.data) }
                : { path: f.path, outcome: 'failed', id: null, reason: describeError(answer.status, answer.data) }
        unreachable = 0
      } catch (err) {
        record = {
          path: f.path,
          outcome: 'failed',
          id: null,
          reason: err instanceof Error ? err.message : String(err),
        }
        if (err instanceof ConnectionError && ++unreachable >= UNREACHABLE_AFTER && !fatal) {
          fatal = unreachableServer(
            err,
            `gave up after ${UNREACHABLE_AFTER} uploads in a row could not reach it`,
            records,
          )
          queue.stop()
        }
      }
      records.set(f.path, record)
      resend()
      progress.tick(
        1,
        f.size,
        `${record.outcome} ${f.path}${record.id ? ` (id ${record.id})` : ''}${record.reason ? `: ${record.reason}` : ''}`,
      )
    }
  }
  await Promise.all(Array.from({ length: opts.concurrency }, worker))
  if (fatal) throw fatal
}

/** The server stopped answering: one line saying so, what is stored, and that a re-run finishes the import. */
function unreachableServer(err: ConnectionError, what: string, records: Map<string, ImportRecord>): ConnectionError {
  const stored = [...records.values()].filter((r) => r.outcome === 'imported' || r.outcome === 'duplicate').length
  return new ConnectionError(
    err.url,
    err.code,
    `${err.message}; ${what}, with ${stored} file(s) stored. ` +
      'Run the same command again to finish: what the server holds is skipped',
  )
}

function cannotImport(api: ApiClient): Error {
  return new ServerCannotImport(
    `The server at ${api.server} cannot import media files (it has no library/{id}/mediaFiles/check/ ` +
      'and import/ endpoints, like the original service); nothing was uploaded',
  )
}

export function summary(records: ImportRecord[], dryRun: boolean): string[] {
  const count = (o: Outcome) => records.filter((r) => r.outcome === o).length
  const skippedFor = (test: (reason: string) => boolean) =>
    records.filter((r) => r.outcome === 'skipped' && test(r.reason ?? '')).length
  const empty = skippedFor((reason) => reason === EMPTY_FILE)
  const excluded = skippedFor((reason) => /^(excluded by --exclude|matched by no --include)/.test(reason))
  const notMedia = count('skipped') - empty - excluded
  const lines = [
    dryRun
      ? `Dry run: would import ${count('would-import')}, already present ${count('duplicate')}, skipped ${count('skipped')}, failed ${count('failed')}`
      : `Imported ${count('imported')}, skipped ${count('duplicate')} already present, skipped ${notMedia} not media, ` +
        `${empty ? `skipped ${empty} empty, ` : ''}${excluded ? `left out ${excluded} by --include/--exclude, ` : ''}` +
        `${count('alias-taken') ? `skipped ${count('alias-taken')} whose alias the library holds with other bytes, ` : ''}failed ${count('failed')}` +
        (records.some((r) => r.warnings?.length)
          ? `, ${records.filter((r) => r.warnings?.length).length} imported with warnings`
          : ''),
  ]
  for (const r of records) if (r.outcome === 'failed') lines.push(`  failed ${r.path}: ${r.reason}`)
  for (const r of records)
    if (r.outcome === 'skipped' && r.reason === EMPTY_FILE) lines.push(`  skipped ${r.path}: ${r.reason}`)
  for (const r of records) if (r.outcome === 'alias-taken') lines.push(`  skipped ${r.path}: ${r.reason}`)
  for (const r of records) for (const w of r.warnings ?? []) lines.push(`  warning ${r.path}: ${w}`)
  if (dryRun) for (const r of records) if (r.outcome === 'would-import') lines.push(`  would import ${r.path}`)
  return lines
}
