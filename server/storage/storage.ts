import { createHash, randomBytes } from 'node:crypto'
import type { Readable } from 'node:stream'

// Where media and result files live. One interface, so a server can keep its
// files in a local directory (a shared volume for several servers) today and
// an object store later. Bytes arrive under a temporary name and only appear
// under their stored name on commit(), which the caller does after the
// database row that names them has committed; a broken upload is discarded
// and leaves nothing behind.

/** The storage itself failed (the bucket refused or is unreachable): the server's trouble, never the client's. */
export class StorageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StorageError'
  }
}

export interface StoredFileInfo {
  size: number
  modified: Date
}

/** Received bytes waiting to be committed under a stored name or discarded. */
export interface Pending {
  readonly size: number
  /** lower-case hex md5 of the bytes */
  readonly md5: string
  /** a local file holding the bytes, when the backend has one (parsers seek in it instead of reading it all) */
  readonly localPath?: string
  /** the received bytes, from the start */
  read(): Readable
  /** the received bytes of an inclusive range, when the backend reads ranges cheaply and has no local file (a bucket) */
  readRange?(range: ByteRange): Readable
  /** make the bytes visible under `name` (from newStoredName) */
  commit(name: string): Promise<void>
  /** forget the bytes; safe to call more than once, and after a failed commit */
  discard(): Promise<void>
}

export interface ByteRange {
  start: number
  end: number
}

export interface ReadOptions {
  /**
   * Bytes read at a time, where the storage reads in chunks (a local file): a reader that takes every byte of
   * the range asks for large ones; by default chunks are small, so a reader that stops early has read little past
   * where it stopped.
   */
  chunkBytes?: number
}

export interface Storage {
  /** Consume `source` into a temporary place while hashing it; rejects (leaving nothing) if the stream fails. */
  receive(source: Readable | AsyncIterable<Buffer>): Promise<Pending>
  /** size and time of a stored file; null when there is none */
  stat(name: string): Promise<StoredFileInfo | null>
  /** the bytes of a stored file, or the inclusive range of them */
  read(name: string, range?: ByteRange, options?: ReadOptions): Readable
  /** delete a stored file; a missing one is not an error */
  remove(name: string): Promise<void>
  /** the stored names of the files directly in `folder` (none when it does not exist) */
  list(folder: string): Promise<string[]>
  /** delete received bytes never committed nor discarded (a server died mid-upload) older than `maxAgeMs`; answers how many */
  sweepIncoming(maxAgeMs: number): Promise<number>
}

/** Stored names: folders and a file name of letters, digits, '_', '-', '.', never starting with '.'. */
const STORED_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/

export function isStoredName(name: string): boolean {
  return name.length <= 1024 && STORED_NAME.test(name)
}

/** A file name part made safe: letters, digits, '_' and '-' only, at most `max` characters. */
export function safeStem(text: string, max = 60): string {
  return text
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^[_-]+|_+$/g, '')
    .slice(0, max)
}

/** A file name extension made safe (lower-case letters and digits), or '' when there is none usable. */
export function safeExtension(ext: string): string {
  const e = ext.toLowerCase().replace(/^\./, '')
  return /^[a-z0-9]{1,10}$/.test(e) ? e : ''
}

/**
 * A new stored name, chosen by the server: `folder/[stem_]<random>[.ext]`.
 * Client-supplied names only ever contribute a sanitised stem, never a path.
 */
export function newStoredName(folder: string, opts: { stem?: string; ext?: string } = {}): string {
  const random = randomBytes(12).toString('hex')
  const stem = opts.stem ? safeStem(opts.stem) : ''
  const ext = opts.ext ? safeExtension(opts.ext) : ''
  const name = `${folder}/${stem ? `${stem}_` : ''}${random}${ext ? `.${ext}` : ''}`
  if (!isStoredName(name)) throw new Error(`bad stored name ${name}`)
  return name
}

/** Pass bytes through while counting and hashing them. */
export function hashing(onDone: (md5: string, size: number) => void) {
  return async function* (source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    const hash = createHash('md5')
    let size = 0
    for await (const chunk of source) {
      hash.update(chunk)
      size += chunk.length
      yield chunk
    }
    onDone(hash.digest('hex'), size)
  }
}

/** The whole of a stored file, read into memory (for small files: a model, a list of labels). */
export async function readWhole(storage: Pick<Storage, 'read'>, name: string): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of storage.read(name)) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}
