import type { Kysely } from 'kysely'
import type { DB } from '../../server/db/schema.js'

// An import's batch as the tests of bulk creates make one: machine tags with a score, a table's other columns as
// annotations (with a quote and a backslash, which a text array must escape) and the tool that made them.

export const IMPORT_PROVENANCE = { source: 'BirdNET-Analyzer', version: '2.4', parameters: { overlap: 0 } }

/** The places an import's rows go: a tag set, a class and two recordings (odd start times in the first). */
export interface ImportPlaces {
  tagSet: number
  tagClass: number
  files: readonly [number, number]
}

/** A row of an import starting at `startTime`, with `o`'s fields over its own. */
export const importRow =
  (at: () => ImportPlaces) =>
  (startTime: number, o: Record<string, unknown> = {}): Record<string, unknown> & { startTime: number } => {
    const { tagSet, tagClass, files } = at()
    return {
      tagSet,
      mediaFile: startTime % 2 ? files[0] : files[1],
      tagClass,
      startTime,
      endTime: startTime + 3,
      minFrequency: 0,
      maxFrequency: 12000,
      machineTagged: true,
      strength: Math.round(startTime * 7) / 1000,
      annotations: { 'Common name': `bird "${startTime}" \\ ${startTime % 3}` },
      provenance: IMPORT_PROVENANCE,
      ...o,
    }
  }

/** `n` start times from `from`, 3 s apart. */
export const starts = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + 3 * i)

/** The stored tags of tag set `set` starting from `from` up to `to`, in id order. */
export const storedTags = (db: Kysely<DB>, set: number, from: number, to: number) =>
  db
    .selectFrom('tags')
    .selectAll()
    .where('tag_set_id', '=', set)
    .where('start_time', '>=', from)
    .where('start_time', '<', to)
    .orderBy('id')
    .execute()
