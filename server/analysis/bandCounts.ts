import { sql } from 'kysely'
import { crowded, foldCrowded, foldKept, type KeptDeltas } from '../db/keptDeltas.js'
import type { Db } from '../db/schema.js'

// The number of a tag set's tags per class and strength band, from the rows the tags' triggers keep (migration
// 2026_11_28_3401): a sum over a few rows instead of a count over every tag of the set. A set's rows are folded
// into one per class and band when they have gathered many (server/db/keptDeltas.ts).

/** the rows kept per tag set, folded into one per class and band (a class and band with none left out) */
const BAND_COUNTS: KeptDeltas = {
  table: 'tag_band_counts',
  scope: ['tag_set_id'],
  keys: ['tag_class_id', 'band'],
  deltas: ['delta'],
  dropZero: true,
  // no foreign key to the tag set or the class (migrations 2026_12_01_4201, 4202)
  parents: { tag_set_id: 'tag_sets', tag_class_id: 'tag_classes' },
}

export interface BandRow {
  tag_class_id: number
  band: number
  tags: number
}

/** The tags of a tag set by class and band (those with none left out). */
export async function tagsByBand(db: Db, tagSetId: number): Promise<BandRow[]> {
  const rows = await db
    .selectFrom('tag_band_counts')
    .where('tag_set_id', '=', tagSetId)
    .select([
      'tag_class_id',
      'band',
      sql<number>`sum(delta)::integer`.as('tags'),
      sql<number>`count(*)::integer`.as('rows'),
    ])
    .groupBy(['tag_class_id', 'band'])
    .execute()
  if (
    crowded(
      rows.reduce((n, r) => n + r.rows, 0),
      rows.length,
    )
  )
    await foldKept(db, BAND_COUNTS, [tagSetId])
  return rows.filter((r) => r.tags !== 0).map(({ tag_class_id, band, tags }) => ({ tag_class_id, band, tags }))
}

/** Fold the rows of every tag set that has gathered more than FOLD_AFTER_ROWS beyond one per class and band;
 * answers how many sets were folded. Reading a summary folds its own set; this keeps sets written to but not
 * summarised from growing the table. */
export const foldCrowdedBandCounts = (db: Db): Promise<number> => foldCrowded(db, BAND_COUNTS)
