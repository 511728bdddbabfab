import { sql } from 'kysely'
import type { Db } from '../db/schema.js'

// The number of a tag set's tags per class and strength band, from the rows the tags' triggers keep (migration
// 2026_11_28_3401): a sum over a few rows instead of a count over every tag of the set. A set's rows are folded
// into one per class and band when they have gathered many (exact under concurrent writers, as the tag set
// counts are: rows committed meanwhile are neither deleted nor summed).

/** a set's rows beyond one per class and band that are folded */
const FOLD_AFTER_ROWS = 64

export interface BandRow { tag_class_id: number; band: number; tags: number }

/** The tags of a tag set by class and band (those with none left out). */
export async function tagsByBand(db: Db, tagSetId: number): Promise<BandRow[]> {
  const rows = await db.selectFrom('tag_band_counts').where('tag_set_id', '=', tagSetId)
    .select(['tag_class_id', 'band', sql<number>`sum(delta)::integer`.as('tags'), sql<number>`count(*)::integer`.as('rows')])
    .groupBy(['tag_class_id', 'band']).execute()
  const stored = rows.reduce((n, r) => n + r.rows, 0)
  if (stored - rows.length > FOLD_AFTER_ROWS) await fold(db, tagSetId)
  return rows.filter((r) => r.tags !== 0).map(({ tag_class_id, band, tags }) => ({ tag_class_id, band, tags }))
}

async function fold(db: Db, tagSetId: number): Promise<void> {
  try {
    await db.with('gone', (w) => w.deleteFrom('tag_band_counts').where('tag_set_id', '=', tagSetId).returning(['tag_class_id', 'band', 'delta']))
      .insertInto('tag_band_counts').columns(['tag_set_id', 'tag_class_id', 'band', 'delta'])
      .expression((eb) => eb.selectFrom('gone').groupBy(['gone.tag_class_id', 'gone.band']).having(sql`sum(gone.delta)`, '<>', 0)
        .select([sql<number>`${tagSetId}::integer`.as('tag_set_id'), 'gone.tag_class_id', 'gone.band', sql<number>`sum(gone.delta)`.as('delta')]))
      .execute()
  } catch {
    // a tag set or class deleted meanwhile, or two folds meeting: the rows stay as they are, still exact
  }
}

/** Fold the rows of every tag set that has gathered more than FOLD_AFTER_ROWS beyond one per class and band;
 * answers how many sets were folded. Reading a summary folds its own set; this keeps sets written to but not
 * summarised from growing the table. */
export async function foldCrowdedBandCounts(db: Db): Promise<number> {
  const crowded = await db.selectFrom('tag_band_counts').select('tag_set_id').groupBy('tag_set_id')
    .having(sql`count(*) - count(distinct (tag_class_id, band))`, '>', FOLD_AFTER_ROWS).execute()
  for (const { tag_set_id } of crowded) await fold(db, tag_set_id)
  return crowded.length
}
