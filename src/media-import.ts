import { createReadStream } from 'node:fs'
import FormData from 'form-data'
import { ApiError, ConnectionError, describeError, mapLimit, type ApiClient } from './api.js'
import { failure } from './base-command.js'
import type { ImportCache } from './import-cache.js'
import { aliasOf, md5File, type FoundFile } from './media-files.js'
import { formatBytes, Progress, stderr } from './output.js'

// `mas media import`: hash (through the cache), ask the server which bytes it already
// holds, upload the rest with bounded concurrency. Re-running finishes what was left.

export type Outcome = 'imported' | 'duplicate' | 'failed' | 'skipped' | 'would-import'
export interface ImportRecord { path: string; outcome: Outcome; id: number | null; reason: string | null }

export interface ImportOptions {
  library: number
  sensor?: number
  concurrency: number
  dryRun: boolean
  quiet: boolean
}

export const CHECK_BATCH = 1000

interface Hashed extends FoundFile { md5: string }

export class ServerCannotImport extends Error {}

export async function importMedia(api: ApiClient, cache: ImportCache, files: FoundFile[], opts: ImportOptions): Promise<ImportRecord[]> {
  const records = new Map<string, ImportRecord>()
  const hashed = await hashAll(files, cache, opts, records)
  await cache.save().catch((err) => stderr(`Warning: the import cache was not saved: ${err.message}`))

  const existing = await checkExisting(api, opts.library, hashed)
  const toUpload: Hashed[] = []
  const firstOfMd5 = new Map<string, Hashed>()
  const sameAs = new Map<string, Hashed>() // a later file with bytes already being uploaded -> that file
  hashed.forEach((f, i) => {
    if (existing[i] !== null) {
      records.set(f.path, { path: f.path, outcome: 'duplicate', id: existing[i], reason: null })
      return
    }
    const first = firstOfMd5.get(f.md5)
    if (first) { sameAs.set(f.path, first); return }
    firstOfMd5.set(f.md5, f)
    toUpload.push(f)
  })
  if (!opts.quiet && hashed.length - toUpload.length - sameAs.size > 0) {
    stderr(`${hashed.length - toUpload.length - sameAs.size} file(s) already in library ${opts.library}`)
  }

  if (opts.dryRun) {
    for (const f of toUpload) records.set(f.path, { path: f.path, outcome: 'would-import', id: null, reason: null })
    for (const [path, first] of sameAs) records.set(path, { path, outcome: 'duplicate', id: null, reason: `same bytes as ${first.path}` })
  } else {
    await uploadAll(api, toUpload, opts, records)
    for (const [path, first] of sameAs) {
      const r = records.get(first.path)!
      records.set(path, r.outcome === 'failed'
        ? { path, outcome: 'failed', id: null, reason: r.reason }
        : { path, outcome: 'duplicate', id: r.id, reason: `same bytes as ${first.path}` })
    }
  }
  return files.map((f) => records.get(f.path)!)
}

async function hashAll(files: FoundFile[], cache: ImportCache, opts: ImportOptions, records: Map<string, ImportRecord>): Promise<Hashed[]> {
  const missing = files.filter((f) => cache.get(f.path, f.size, f.mtimeMs) === undefined)
  const progress = missing.length
    ? new Progress(missing.length, { unit: 'hashed', totalBytes: missing.reduce((s, f) => s + f.size, 0), quiet: opts.quiet })
    : undefined
  if (progress && !progress.interactive && !opts.quiet) stderr(`hashing ${missing.length} file(s)`)
  await mapLimit(missing, opts.concurrency, async (f) => {
    try {
      cache.set(f.path, f.size, f.mtimeMs, await md5File(f.path))
    } catch (err: any) {
      records.set(f.path, { path: f.path, outcome: 'failed', id: null, reason: `cannot read: ${err.message}` })
    }
    progress?.tick(1, f.size)
  })
  progress?.stop()
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
    const answer = await api.request<(number | null)[]>('POST', path, { json: batch.map((f) => ({ md5: f.md5, size: f.size })), retry: true })
    if (answer.status === 404 || answer.status === 405) throw cannotImport(api)
    if (answer.status >= 400) throw new ApiError(answer.status, answer.data, 'POST', api.url(path))
    if (!Array.isArray(answer.data) || answer.data.length !== batch.length) failure(`The server answered the pre-check of ${path} with something unexpected`)
    out.push(...answer.data.map((v) => (typeof v === 'number' ? v : null)))
  }
  return out
}

async function uploadAll(api: ApiClient, files: Hashed[], opts: ImportOptions, records: Map<string, ImportRecord>): Promise<void> {
  if (!files.length) return
  const totalBytes = files.reduce((s, f) => s + f.size, 0)
  const progress = new Progress(files.length, { unit: 'files', totalBytes, quiet: opts.quiet })
  if (!progress.interactive && !opts.quiet) stderr(`uploading ${files.length} file(s), ${formatBytes(totalBytes)}`)
  let fatal: Error | undefined
  const path = `library/${opts.library}/mediaFiles/import/`
  try {
    await mapLimit(files, opts.concurrency, async (f) => {
      if (fatal) return
      let record: ImportRecord
      try {
        // Safe to re-send: the server answers the same bytes with the record it already holds.
        const answer = await api.upload<any>(path, () => {
          const form = new FormData()
          form.append('alias', aliasOf(f.path))
          if (opts.sensor !== undefined) form.append('sensor', String(opts.sensor))
          form.append('md5', f.md5)
          form.append('file', createReadStream(f.path), { filename: aliasOf(f.path), knownLength: f.size })
          return form
        }, { retry: true })
        if (answer.status === 404 || answer.status === 405) { fatal = cannotImport(api); return }
        if (answer.status === 401 || answer.status === 403) { fatal = new ApiError(answer.status, answer.data, 'POST', api.url(path)); return }
        record = answer.status === 201 ? { path: f.path, outcome: 'imported', id: answer.data?.id ?? null, reason: null }
          : answer.status === 200 ? { path: f.path, outcome: 'duplicate', id: answer.data?.id ?? null, reason: null }
            : { path: f.path, outcome: 'failed', id: null, reason: describeError(answer.status, answer.data) }
      } catch (err: any) {
        record = { path: f.path, outcome: 'failed', id: null, reason: err instanceof ConnectionError ? err.message : String(err?.message ?? err) }
      }
      records.set(f.path, record)
      progress.tick(1, f.size, `${record.outcome} ${f.path}${record.id ? ` (id ${record.id})` : ''}${record.reason ? `: ${record.reason}` : ''}`)
    })
  } finally {
    progress.stop()
  }
  if (fatal) throw fatal
}

function cannotImport(api: ApiClient): Error {
  return new ServerCannotImport(`The server at ${api.server} cannot import media files (it has no library/{id}/mediaFiles/check/ ` +
    'and import/ endpoints, like the original service); nothing was uploaded')
}

export function summary(records: ImportRecord[], dryRun: boolean): string[] {
  const count = (o: Outcome) => records.filter((r) => r.outcome === o).length
  const lines = [dryRun
    ? `Dry run: would import ${count('would-import')}, already present ${count('duplicate')}, skipped ${count('skipped')}, failed ${count('failed')}`
    : `Imported ${count('imported')}, skipped ${count('duplicate')} already present, skipped ${count('skipped')} not media, failed ${count('failed')}`]
  for (const r of records) if (r.outcome === 'failed') lines.push(`  failed ${r.path}: ${r.reason}`)
  if (dryRun) for (const r of records) if (r.outcome === 'would-import') lines.push(`  would import ${r.path}`)
  return lines
}
