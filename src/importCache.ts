import { join } from 'node:path'
import { readEntries, writeEntries } from './stateFile.js'

// The import cache: each file's md5 keyed by its absolute path, size and mtime, so a
// re-run of `mas media import` does not hash unchanged files again. Kept in oclif's
// data dir; losing it only costs re-hashing.

interface Entry {
  size: number
  mtimeMs: number
  md5: string
}

export class ImportCache {
  private entries: Record<string, Entry> = {}
  private dirty = false

  constructor(readonly file: string) {}

  static at(dataDir: string): ImportCache {
    return new ImportCache(join(dataDir, 'import-cache.json'))
  }

  async load(): Promise<this> {
    this.entries = readEntries<Entry>(this.file)
    return this
  }

  /** The cached md5 of a file, if its size and mtime are unchanged. */
  get(path: string, size: number, mtimeMs: number): string | undefined {
    const e = this.entries[path]
    return e && e.size === size && e.mtimeMs === mtimeMs ? e.md5 : undefined
  }

  set(path: string, size: number, mtimeMs: number, md5: string): void {
    this.entries[path] = { size, mtimeMs, md5 }
    this.dirty = true
  }

  get size(): number {
    return Object.keys(this.entries).length
  }

  async save(): Promise<void> {
    if (!this.dirty) return
    writeEntries(this.file, this.entries)
    this.dirty = false
  }
}
