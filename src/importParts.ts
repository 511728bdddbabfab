import type { FoundFile } from './mediaFiles.js'

// What `mas media import` sends with each file besides its bytes (README, "Importing a field season"):
// its alias (the path below the import's root, or the file name), its sensor (one for all, or one per
// recorder folder), and how the server finds its recording start time. And what the CLI reads from the
// server's answer: warnings about damaged files, and an alias the library already holds.

export const ALIAS_SOURCES = ['path', 'name'] as const
export const START_TIME_SOURCES = ['metadata', 'name', 'none'] as const

export interface PartOptions {
  aliasFrom: (typeof ALIAS_SOURCES)[number]
  /** one sensor for every file */
  sensor?: number
  /** a sensor per recorder folder (the first folder below the root) */
  folderSensors?: Map<string, number>
  startTimeFrom: (typeof START_TIME_SOURCES)[number]
  timeOffset?: string
  strict: boolean
}

/** The alias of a found file: its path below the import's root, or its name alone. */
export function aliasOf(f: FoundFile, from: PartOptions['aliasFrom']): string {
  return from === 'path' ? f.relative : f.relative.split('/').pop()!
}

/** The recorder folder of a file: the first folder of its path below the root (none for a file at the root). */
export function recorderFolder(f: FoundFile): string | null {
  const at = f.relative.indexOf('/')
  return at > 0 ? f.relative.slice(0, at) : null
}

export function importParts(f: FoundFile, o: PartOptions): Record<string, string> {
  const parts: Record<string, string> = { alias: aliasOf(f, o.aliasFrom), startTimeFrom: o.startTimeFrom }
  const folder = recorderFolder(f)
  const sensor = (folder !== null ? o.folderSensors?.get(folder) : undefined) ?? o.sensor
  if (sensor !== undefined) parts.sensor = String(sensor)
  if (o.timeOffset) parts.timeOffset = o.timeOffset
  if (o.strict) parts.strict = 'true'
  return parts
}

/** `+02:00`, `-0530` or `Z`: an offset the server accepts (checked before anything is uploaded). */
export function isTimeOffset(text: string): boolean {
  const m = /^\s*(?:Z|[+-](\d{2}):?(\d{2}))\s*$/i.exec(text)
  return !!m && (m[1] === undefined || (+m[1] <= 23 && +m[2] <= 59))
}

interface MetaDataRow {
  name?: unknown
  value?: unknown
}

/** The `warning` metadata rows of an imported media file (the server's word on a damaged file). */
export function importWarnings(record: unknown): string[] {
  const rows = (record as { mediafilemetadata_set?: MetaDataRow[] } | null)?.mediafilemetadata_set
  return Array.isArray(rows)
    ? rows.filter((r) => r.name === 'warning' && typeof r.value === 'string').map((r) => r.value as string)
    : []
}

/** The server's reason when it refused a file because the library holds its alias with other bytes; null otherwise. */
export function aliasTaken(body: unknown): string | null {
  const alias = (body as { alias?: unknown } | null)?.alias
  return Array.isArray(alias) && typeof alias[0] === 'string' ? `alias taken: ${alias[0]}` : null
}
