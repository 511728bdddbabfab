import type { Kysely, Transaction } from 'kysely'
import type { DB } from '../db/schema.js'
import { mediaFileNamed } from '../named.js'
import { pythonFloat, secondsText } from './numberText.js'

// How long a media file lasts and up to what frequency it holds sound, from the facts its import
// stored as metadata (durationInSeconds, sampleRate; a `warning` for a damaged file), and the limits
// a time or frequency region on it must keep (docs/decisions.md §18). A duration read from an MP3's
// frames or a damaged file's header is an estimate, allowed a tolerance; where a fact is unknown,
// times are held to a month.

type Db = Kysely<DB> | Transaction<DB>

export interface Extent {
  /** seconds, when known */
  duration?: number
  /** Hz, when known */
  sampleRate?: number
  /** the duration is an estimate (MP3, a damaged file) */
  estimate: boolean
  /** the file's alias, for messages */
  alias?: string
}

/** the longest a media file of unknown duration is taken to last */
export const UNKNOWN_DURATION_LIMIT = 31 * 24 * 3600

/** The extent of each of these media files (a file without facts: nothing known). */
export async function extentsOf(db: Db, mediaFiles: number[]): Promise<Map<number, Extent>> {
  const ids = [...new Set(mediaFiles)]
  const out = new Map<number, Extent>()
  if (!ids.length) return out
  const files = await db.selectFrom('media_files').select(['id', 'file', 'alias']).where('id', 'in', ids).execute()
  const facts = await db
    .selectFrom('media_file_metadata')
    .select(['media_file_id', 'name', 'value'])
    .where('media_file_id', 'in', ids)
    .where('user_editable', '=', false)
    .where('name', 'in', [...EXTENT_FACTS])
    .orderBy('id')
    .execute()
  const factsOf = new Map<number, Fact[]>()
  for (const d of facts) {
    const list = factsOf.get(d.media_file_id)
    if (list) list.push(d)
    else factsOf.set(d.media_file_id, [d])
  }
  for (const f of files) out.set(f.id, extentOfFacts(f, factsOf.get(f.id) ?? []))
  return out
}

/** The metadata an extent is read from (the import's, not a user's). */
export const EXTENT_FACTS = ['durationInSeconds', 'sampleRate', 'warning'] as const

export interface Fact {
  name: string
  value: string
}

/** The extent of a media file (its stored name and alias) from its import's facts, in the order they were stored:
 * the first duration and sample rate that are positive numbers count. The command line reads the same facts from a
 * media file's record (mediafilemetadata_set) to check a table before it sends it. */
export function extentOfFacts(file: { file: string; alias: string | null }, facts: readonly Fact[]): Extent {
  const e: Extent = { estimate: /\.mp3$/i.test(file.file), alias: file.alias ?? undefined }
  for (const d of facts) {
    const n = Number(d.value)
    if (d.name === 'warning') e.estimate = true
    else if (d.name === 'durationInSeconds' && e.duration === undefined && Number.isFinite(n) && n > 0) e.duration = n
    else if (d.name === 'sampleRate' && e.sampleRate === undefined && Number.isFinite(n) && n > 0) e.sampleRate = n
  }
  return e
}

/** The latest time a region on the file may end at: its duration (with the tolerance of an estimate: 1 s or
 * 1%, whichever is more; a millisecond otherwise, as durations are stored rounded), or a month. */
export function latestEnd(e: Extent | undefined): number {
  if (e?.duration === undefined) return UNKNOWN_DURATION_LIMIT
  return e.duration + (e.estimate ? Math.max(1, e.duration * 0.01) : 0.001)
}

/** What is wrong with a region ending at `endTime` up to `maxFrequency` on media file `id`, per field. */
export function outOfBounds(
  id: number,
  e: Extent | undefined,
  region: { endTime?: number; maxFrequency?: number },
  names: { endTime: string; maxFrequency: string } = { endTime: 'endTime', maxFrequency: 'maxFrequency' },
): Record<string, string[]> {
  const errors: Record<string, string[]> = {}
  const { endTime, maxFrequency } = region
  if (endTime !== undefined && endTime > latestEnd(e)) {
    errors[names.endTime] = [
      e?.duration === undefined
        ? `${names.endTime} ${pythonFloat(endTime)} is more than 31 days (${UNKNOWN_DURATION_LIMIT} s), the longest a media file of unknown duration is taken to last.`
        : `${names.endTime} ${pythonFloat(endTime)} is past the end of ${mediaFileNamed({ id, alias: e.alias })}, at ${secondsText(e.duration)} s${e.estimate ? ' by an estimate that allows 1 s or 1% more' : ''}.`,
    ]
  }
  if (maxFrequency !== undefined && e?.sampleRate !== undefined && maxFrequency > e.sampleRate / 2) {
    errors[names.maxFrequency] = [
      `${names.maxFrequency} ${pythonFloat(maxFrequency)} is above half the sample rate of ${mediaFileNamed({ id, alias: e.alias })}, ${pythonFloat(e.sampleRate / 2)} Hz.`,
    ]
  }
  return errors
}
