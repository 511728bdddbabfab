import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

// What an interrupted `mas tag import` created: per input (the tag records, in order) and tag set,
// the id of each row already created, so a re-run creates only the rest. Kept in oclif's data dir
// beside the media import cache (src/importCache.ts); an entry goes once its import finished.
// Written synchronously, because the last write happens in the signal handler of an interrupt.

type Created = Record<string, number>

export class TagImportMemory {
  private entries: Record<string, Created> = {}
  private loaded = false

  constructor(readonly file: string) {}

  static at(dataDir: string): TagImportMemory {
    return new TagImportMemory(join(dataDir, 'tag-import-memory.json'))
  }

  /** The key of an input: its records and the tag set they go to. */
  static keyOf(tags: readonly unknown[], tagSet: number): string {
    return `${tagSet}:${createHash('sha256').update(JSON.stringify(tags)).digest('hex')}`
  }

  /** Row index to id of the rows of this input created before. */
  created(key: string): Map<number, number> {
    this.load()
    return new Map(Object.entries(this.entries[key] ?? {}).map(([i, id]) => [Number(i), id]))
  }

  /** Stores what is created so far of this input (empty: the input is done, forget it). */
  save(key: string, created: ReadonlyMap<number, number>): void {
    this.load()
    if (created.size) this.entries[key] = Object.fromEntries(created)
    else if (key in this.entries) delete this.entries[key]
    else return
    mkdirSync(join(this.file, '..'), { recursive: true, mode: 0o700 })
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    try {
      writeFileSync(temp, JSON.stringify({ version: 1, entries: this.entries }), { mode: 0o600 })
      renameSync(temp, this.file)
    } catch (err) {
      rmSync(temp, { force: true })
      throw err
    }
  }

  private load(): void {
    if (this.loaded) return
    this.loaded = true
    try {
      const data = JSON.parse(readFileSync(this.file, 'utf8'))
      if (data && data.version === 1 && data.entries && typeof data.entries === 'object') this.entries = data.entries
    } catch { /* missing or unreadable: nothing remembered */ }
  }
}
