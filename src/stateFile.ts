import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

// The CLI's own state files in oclif's data dir (the media import cache, the tag import memory):
// `{"version": 1, "entries": {...}}`, readable by the user only, replaced whole or not at all. Written
// synchronously, so the last write can happen in the signal handler of an interrupt.

/** The entries of a state file; empty when it is missing, unreadable or of another version. */
export function readEntries<T>(file: string): Record<string, T> {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown; entries?: unknown } | null
    if (data && data.version === 1 && data.entries && typeof data.entries === 'object')
      return data.entries as Record<string, T>
  } catch {
    /* missing or unreadable: start empty */
  }
  return {}
}

/** Replace the state file with these entries: a temporary file of mode 0600, renamed over it. */
export function writeEntries(file: string, entries: Record<string, unknown>): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  try {
    writeFileSync(temp, JSON.stringify({ version: 1, entries }), { mode: 0o600 })
    renameSync(temp, file)
  } catch (err) {
    rmSync(temp, { force: true })
    throw err
  }
}
