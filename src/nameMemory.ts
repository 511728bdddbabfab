import { createHash, randomBytes } from 'node:crypto'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

// Names remembered between commands (docs/decisions.md, "Fast per command"): the ids that names looked up
// by a command resolved to, kept for a few minutes in a file of their own per server, profile and
// credential (the file's name is a digest of the three), so one person's names never answer another's
// lookups, and a new login starts afresh. Each answer is trusted only at the names version the server
// gave it (src/api.ts sends the version; a server that gives none has nothing remembered): once a
// record known by name is renamed or deleted anywhere, the server refuses the version and the command
// looks its names up again.

/** How long a looked-up name is used without asking the server again. */
export const REMEMBER_MS = 10 * 60_000

/** The header the version travels in, both ways. */
export const NAMES_VERSION_HEADER = 'mas-names-version'

interface Entry {
  value: unknown
  learned: number
}
interface Stored {
  version: string
  entries: Record<string, Entry>
}

export class NameMemory {
  /** did this command use a remembered name (then its requests carry the version it was learned at)? */
  private used = false
  /** the lowest version answered to this command's lookups: what it learned is valid at that version */
  private seen?: string
  private learned = new Map<string, unknown>()

  private constructor(
    private readonly file: string,
    private stored: Stored | undefined,
    private readonly now = Date.now(),
  ) {}

  /** The memory of `profile` on `server` with this credential (empty when there is no file or it is unreadable). */
  static async open(cacheDir: string, server: string, profile: string, token: string): Promise<NameMemory> {
    const digest = createHash('sha256').update(`${server}\0${profile}\0${token}`).digest('hex').slice(0, 32)
    const file = join(cacheDir, 'names', `${digest}.json`)
    let stored: Stored | undefined
    try {
      const data = JSON.parse(await readFile(file, 'utf8')) as Stored
      if (typeof data?.version === 'string' && data.entries && typeof data.entries === 'object') stored = data
    } catch {
      /* nothing remembered */
    }
    return new NameMemory(file, stored)
  }

  /** The header value for the next request: the version of the names it relies on, or `*` (tell me). */
  get header(): string {
    return this.used && this.stored ? this.stored.version : '*'
  }

  /** What `key` resolved to, when remembered, recent, and not contradicted by a newer version seen. */
  recall<T>(key: string): T | undefined {
    const stored = this.stored
    if (!stored || (this.seen !== undefined && this.seen !== stored.version)) return undefined
    const entry = stored.entries[key]
    if (!entry || this.now - entry.learned > REMEMBER_MS || entry.learned > this.now) return undefined
    this.used = true
    return entry.value as T
  }

  /** A lookup's result, remembered when the command succeeds. */
  learn(key: string, value: unknown): void {
    this.learned.set(key, value)
  }

  /** The version an answer carried. */
  observe(version: string | string[] | undefined): void {
    if (typeof version !== 'string' || !/^\d+$/.test(version)) return
    if (this.seen === undefined || BigInt(version) < BigInt(this.seen)) this.seen = version
  }

  /** The server refused the version: everything remembered goes, and the command starts again looking up. */
  forget(): void {
    this.stored = undefined
    this.used = false
    this.seen = undefined
    this.learned.clear()
  }

  /** Writes what was learned, at the version the answers gave (nothing when the server gave none). */
  async save(): Promise<void> {
    if (this.seen === undefined || !this.learned.size) return
    const kept = this.stored?.version === this.seen ? this.stored.entries : {}
    const entries: Record<string, Entry> = {}
    for (const [key, entry] of Object.entries(kept)) if (this.now - entry.learned <= REMEMBER_MS) entries[key] = entry
    for (const [key, value] of this.learned) entries[key] = { value, learned: this.now }
    const dir = join(this.file, '..')
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 })
      await writeFile(temp, JSON.stringify({ version: this.seen, entries }), { mode: 0o600, flag: 'wx' })
      await rename(temp, this.file)
    } catch {
      await rm(temp, { force: true }) // a memory that cannot be written is only a slower next command
    }
  }
}
