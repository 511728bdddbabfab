import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, extname, join, resolve } from 'node:path'
import { minimatch } from 'minimatch'
import type { Readable } from 'node:stream'
import { mapLimit } from './api.js'
import { pipeline } from 'node:stream/promises'
import { Wakeup } from './wakeup.js'

// Finding the media files named on the command line, and hashing them.

export const MEDIA_EXTENSIONS = new Set([
  'wav',
  'wave',
  'bwf',
  'flac',
  'mp3',
  'ogg',
  'oga',
  'opus',
  'm4a',
  'aac',
  'aif',
  'aiff',
  'aifc',
  'w64',
  'wv',
  'caf',
  'au',
  'snd',
  'wma',
  'amr',
  'ape',
  'spx',
  'rf64',
])

export function isMediaFile(path: string): boolean {
  return MEDIA_EXTENSIONS.has(extname(path).slice(1).toLowerCase())
}

export interface FoundFile {
  path: string
  size: number
  mtimeMs: number
  /** the path below the argument it was found under, `/`-separated (`siteA/2026-05-01/x.WAV`; a file named
   * on the command line: its name) */
  relative: string
}
/** A path left out: `failed` makes the import fail; `chosen`: left out by --include/--exclude, as asked. */
export interface SkippedPath {
  path: string
  reason: string
  failed?: boolean
  chosen?: boolean
}

/** Which files to leave out: globs over the path below the import's root (a glob without a `/` matches the
 * file name at any depth), and whether an empty file is an error (--strict) rather than skipped. */
export interface FileFilter {
  include?: string[]
  exclude?: string[]
  strictEmpty?: boolean
}

export const EMPTY_FILE = 'empty file (0 bytes)'

const globMatches = (relative: string, glob: string) =>
  minimatch(relative, glob, { dot: true, matchBase: !glob.includes('/') })

/** Why a file is left out by the filter's globs, or undefined when it is kept. */
function leftOutByGlobs(relative: string, filter: FileFilter): string | undefined {
  const excluded = filter.exclude?.find((g) => globMatches(relative, g))
  if (excluded !== undefined) return `excluded by --exclude ${excluded}`
  if (filter.include?.length && !filter.include.some((g) => globMatches(relative, g))) return 'matched by no --include'
  return undefined
}

/**
 * Files under the given paths: a file stands for itself, a folder for the files in it
 * (and in its subfolders with `recursive`). Non-media files, hidden entries (`.DS_Store`, `._x.WAV`),
 * empty files and those the filter's globs leave out are skipped.
 * Each file appears once, in a stable (sorted) order.
 */
export async function findMediaFiles(
  paths: string[],
  recursive: boolean,
  filter: FileFilter = {},
): Promise<{ files: FoundFile[]; skipped: SkippedPath[] }> {
  // entries in the order they are listed; the stats of a folder's entries run side by side
  type Found = { file: FoundFile } | { skipped: SkippedPath }
  const visit = async (path: string, top: boolean, relative: string): Promise<Found[]> => {
    let info
    try {
      info = await stat(path)
    } catch (e) {
      const err = e as NodeJS.ErrnoException
      return [
        { skipped: { path, reason: err.code === 'ENOENT' ? 'no such file or folder' : err.message, failed: true } },
      ]
    }
    if (info.isDirectory()) {
      if (!top && !recursive) return [{ skipped: { path, reason: 'a folder inside a folder (use --recursive)' } }]
      const entries = (await readdir(path)).filter((e) => !e.startsWith('.')).sort()
      return (
        await mapLimit(entries, STATS_AT_ONCE, (e) => visit(join(path, e), false, top ? e : `${relative}/${e}`))
      ).flat()
    }
    if (!info.isFile()) return [{ skipped: { path, reason: 'not a regular file' } }]
    const below = top ? basename(path) : relative
    const leftOut = leftOutByGlobs(below, filter)
    if (leftOut) return [{ skipped: { path, reason: leftOut, chosen: true } }]
    if (!isMediaFile(path)) return [{ skipped: { path, reason: 'not a media file' } }]
    if (info.size === 0) return [{ skipped: { path, reason: EMPTY_FILE, failed: filter.strictEmpty } }]
    return [{ file: { path: resolve(path), size: info.size, mtimeMs: info.mtimeMs, relative: below } }]
  }
  const files: FoundFile[] = []
  const skipped: SkippedPath[] = []
  const seen = new Set<string>()
  for (const p of paths) {
    for (const found of await visit(p, true, '')) {
      if ('skipped' in found) skipped.push(found.skipped)
      else if (!seen.has(found.file.path)) {
        seen.add(found.file.path)
        files.push(found.file)
      }
    }
  }
  return { files, skipped }
}

const STATS_AT_ONCE = 32

/** Files up to this size are read whole, in one call: per-file costs (stream set-up, buffers of
 * the stream's size, extra reads) dominate their hashing and uploading. */
export const SMALL_FILE_BYTES = 1 << 20

/** The md5 of a file, read whole when it is small (`read` gets those bytes), as a stream otherwise. */
export async function md5File(path: string, size = Infinity, read?: (bytes: Buffer) => void): Promise<string> {
  const hash = createHash('md5')
  if (size <= SMALL_FILE_BYTES) {
    const bytes = await readFile(path)
    read?.(bytes)
    return hash.update(bytes).digest('hex')
  }
  await pipeline(createReadStream(path, { highWaterMark: 1 << 20 }), hash)
  return hash.digest('hex')
}

/** A file's bytes for an upload: in memory when it is small, a stream otherwise. */
export async function fileBody(path: string, size: number): Promise<Buffer | Readable> {
  return size <= SMALL_FILE_BYTES ? readFile(path) : createReadStream(path)
}

/** Small files' bytes read for hashing, kept up to a budget until their upload, so that each is read
 * once; the upload then sends exactly the bytes that were hashed. */
export class ReadAhead {
  private readonly kept = new Map<string, Buffer>()
  private bytes = 0
  private readonly taken = new Wakeup()

  constructor(private readonly budget: number) {}

  keep(path: string, bytes: Buffer): void {
    if (this.kept.has(path) || this.bytes + bytes.length > this.budget) return
    this.kept.set(path, bytes)
    this.bytes += bytes.length
  }

  /** The kept bytes of `path`, given up by the cache (undefined when they were not kept). */
  take(path: string): Buffer | undefined {
    const bytes = this.kept.get(path)
    if (bytes) {
      this.kept.delete(path)
      this.bytes -= bytes.length
      this.taken.wake()
    }
    return bytes
  }

  /** Settles once at most `bytes` are kept (as kept bytes are taken). */
  async until(bytes: number): Promise<void> {
    while (this.bytes > Math.max(0, bytes)) await this.taken.next()
  }
}
