import { sql, type Expression } from 'kysely'
import { extentsOf, outOfBounds } from '../media/extent.js'
import type { Db } from './resource.js'

// A tag (or tag example) ends within its media file and below half its sample rate (docs/decisions.md §18).
// Checked when a write sets the media file, the end time or the highest frequency to something other than
// what is stored, so tags stored before the check came are left as they are until one of those changes.

type Row = Record<string, unknown>

export async function checkBounds(
  db: Db,
  items: Record<string, unknown>[],
  existing: Row | null,
): Promise<Record<string, string[]>[]> {
  const changed = (v: Record<string, unknown>, name: string, column: string) =>
    name in v && (existing === null || v[name] !== existing[column])
  const asked = items.map((v) => {
    const mediaFile = (v.mediaFile ?? existing?.media_file_id) as number | undefined
    const moved = changed(v, 'mediaFile', 'media_file_id')
    const pick = (name: string, column: string) =>
      (moved || changed(v, name, column) ? (name in v ? v[name] : existing?.[column]) : undefined) as number | undefined
    return { mediaFile, endTime: pick('endTime', 'end_time'), maxFrequency: pick('maxFrequency', 'max_frequency') }
  })
  const checked = asked.filter(
    (a) => typeof a.mediaFile === 'number' && (a.endTime !== undefined || a.maxFrequency !== undefined),
  )
  const extents = await extentsOf(
    db,
    checked.map((a) => a.mediaFile!),
  )
  return asked.map((a) =>
    typeof a.mediaFile === 'number' ? outOfBounds(a.mediaFile, extents.get(a.mediaFile), a) : {},
  )
}

/** checkBounds of a new tag in SQL: the database's twin of extentsOf and outOfBounds (migration
 * 2026_11_29_4201), which a single create makes in its one statement (fast/create.ts). */
export const regionFits = (
  column: (name: 'media_file_id' | 'end_time' | 'max_frequency') => Expression<unknown>,
): Expression<boolean> =>
  sql<boolean>`tag_region_fits(${column('media_file_id')}, ${column('end_time')}, ${column('max_frequency')})`
