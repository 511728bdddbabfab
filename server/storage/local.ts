import { createReadStream, createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { dirname, join, resolve, sep } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  hashing,
  isStoredName,
  type ByteRange,
  type Pending,
  type ReadOptions,
  type Storage,
  type StoredFileInfo,
} from './storage.js'

// Storage in a local directory. Uploads are written under `.incoming/` in the
// same directory (so the final rename is atomic on one filesystem) and moved
// to their stored name on commit.

const INCOMING = '.incoming'
/** bytes of an upload queued for the disk while more arrive: writes overlap with receiving and hashing */
const WRITE_BUFFER_BYTES = 4 * 1024 * 1024

export class LocalStorage implements Storage {
  readonly root: string
  private ready: Promise<unknown> | undefined
  /** this process's uploads not yet committed or discarded: never swept, however long they wait for a lock */
  private readonly live = new Set<string>()

  constructor(root: string) {
    this.root = resolve(root)
  }

  /** The absolute path of a stored name; throws for anything that is not a stored name. */
  pathOf(name: string): string {
    if (!isStoredName(name)) throw new Error('not a stored name')
    const path = join(this.root, ...name.split('/'))
    if (!path.startsWith(this.root + sep)) throw new Error('not a stored name')
    return path
  }

  async receive(source: Readable | AsyncIterable<Buffer>): Promise<Pending> {
    this.ready ??= mkdir(join(this.root, INCOMING), { recursive: true })
    await this.ready
    const temp = join(this.root, INCOMING, `${randomBytes(12).toString('hex')}.part`)
    let md5 = ''
    let size = 0
    this.live.add(temp)
    const file = createWriteStream(temp, { flags: 'wx', highWaterMark: WRITE_BUFFER_BYTES })
    try {
      await pipeline(
        source,
        hashing((h, n) => {
          md5 = h
          size = n
        }),
        file,
      )
    } catch (e) {
      this.live.delete(temp)
      // a source that fails at once can fail before the file is open: unlinked then, it would be made after
      if (!file.closed) await once(file, 'close').catch(() => {})
      await unlink(temp).catch(() => {})
      throw e
    }
    return new LocalPending(this, temp, md5, size, () => this.live.delete(temp))
  }

  async stat(name: string): Promise<StoredFileInfo | null> {
    if (!isStoredName(name)) return null
    try {
      const s = await stat(this.pathOf(name))
      return s.isFile() ? { size: s.size, modified: s.mtime } : null
    } catch {
      return null
    }
  }

  read(name: string, range?: ByteRange, options: ReadOptions = {}): Readable {
    return createReadStream(this.pathOf(name), {
      ...range,
      ...(options.chunkBytes ? { highWaterMark: options.chunkBytes } : {}),
    })
  }

  async remove(name: string): Promise<void> {
    if (!isStoredName(name)) return
    await rm(this.pathOf(name), { force: true })
  }

  async list(folder: string): Promise<string[]> {
    if (!isStoredName(folder)) return []
    const entries = await readdir(this.pathOf(folder), { withFileTypes: true }).catch(() => [])
    return entries
      .filter((e) => e.isFile())
      .map((e) => `${folder}/${e.name}`)
      .filter(isStoredName)
  }

  async sweepIncoming(maxAgeMs: number): Promise<number> {
    const dir = join(this.root, INCOMING)
    const names = await readdir(dir).catch(() => [] as string[])
    let removed = 0
    for (const name of names) {
      if (!name.endsWith('.part')) continue
      const path = join(dir, name)
      if (this.live.has(path)) continue
      // an upload still arriving (here or on another server sharing the directory) keeps its file fresh
      const s = await stat(path).catch(() => null)
      if (s && Date.now() - s.mtimeMs > maxAgeMs) {
        await unlink(path).catch(() => {})
        removed++
      }
    }
    return removed
  }
}

class LocalPending implements Pending {
  private done = false

  constructor(
    private readonly storage: LocalStorage,
    readonly localPath: string,
    readonly md5: string,
    readonly size: number,
    private readonly settled: () => void,
  ) {}

  read(): Readable {
    return createReadStream(this.localPath)
  }

  async commit(name: string): Promise<void> {
    if (this.done) throw new Error('upload already committed or discarded')
    const target = this.storage.pathOf(name)
    await mkdir(dirname(target), { recursive: true })
    await rename(this.localPath, target)
    this.done = true
    this.settled()
  }

  async discard(): Promise<void> {
    if (this.done) return
    this.done = true
    this.settled()
    await unlink(this.localPath).catch(() => {})
  }
}
