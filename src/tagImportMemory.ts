import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { readEntries, writeEntries } from './stateFile.js'

// What an interrupted `mas tag import` created: per input (the tag records, in order) and tag set,
// the id of each row already created, so a re-run creates only the rest. Kept in oclif's data dir
// beside the media import cache (src/importCache.ts); an entry goes once its import finished.
// Written synchronously (src/stateFile.ts), because the last write happens in the signal handler of an interrupt.

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
    writeEntries(this.file, this.entries)
  }

  private load(): void {
    if (this.loaded) return
    this.loaded = true
    this.entries = readEntries<Created>(this.file)
  }
}
