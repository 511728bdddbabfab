import { sql, type SelectQueryBuilder } from 'kysely'
import type { DB, Db, Row } from '../db/schema.js'
import type { Strategy } from './reviewStrategies.js'
import { BANDS } from './reviews.js'

// What a reviewer should decide next in a tag set (README, "Reviewing machine tags"): tags the reviewer has not
// decided, drawn by a strategy. Every draw is a handful of short index range scans over (tag_set_id, strength)
// or (tag_set_id, id), so the queue of a tag set of millions answers in milliseconds.

export interface QueueOptions {
  tagSet: number
  reviewer: number
  n: number
  strategy: Strategy
  /** also tags other reviewers decided (for agreement); otherwise those are left out */
  overlap: boolean
  tagClass?: number
  mediaFile?: number
  minStrength?: number
  maxStrength?: number
  /** the random numbers a draw uses (tests give their own) */
  random?: () => number
}

type Tag = Row<'tags'>
type Candidates = SelectQueryBuilder<DB & { t: DB['tags'] }, 't', Tag>

/** The tags of the set the reviewer may be given: not decided by the reviewer (a skip included), nor, without
 * overlap, decided (yes, no or unsure) by anybody; within the filters. */
function candidates(db: Db, o: QueueOptions): Candidates {
  let q = db
    .selectFrom('tags as t')
    .selectAll('t')
    .where('t.tag_set_id', '=', o.tagSet)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('tag_reviews as mine')
            .select(sql.lit(1).as('one'))
            .whereRef('mine.tag_id', '=', 't.id')
            .where('mine.user_id', '=', o.reviewer),
        ),
      ),
    )
  if (!o.overlap) {
    q = q.where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('tag_reviews as other')
            .select(sql.lit(1).as('one'))
            .whereRef('other.tag_id', '=', 't.id')
            .where('other.decision', '<>', 'skip'),
        ),
      ),
    )
  }
  if (o.tagClass !== undefined) q = q.where('t.tag_class_id', '=', o.tagClass)
  if (o.mediaFile !== undefined) q = q.where('t.media_file_id', '=', o.mediaFile)
  if (o.minStrength !== undefined) q = q.where('t.strength', '>=', o.minStrength)
  if (o.maxStrength !== undefined) q = q.where('t.strength', '<=', o.maxStrength)
  return q
}

/** Runs queries of candidates as one statement, each part's rows marked with its number. */
async function parts(db: Db, queries: Candidates[]): Promise<Tag[][]> {
  const marked = queries.map((q, i) => db.selectFrom(q.as('s')).selectAll('s').select(sql.lit(i).as('part')))
  const all = marked.slice(1).reduce((u, q) => u.unionAll(q), marked[0])
  return byPart(await all.execute(), queries.length)
}

function byPart(rows: Array<Tag & { part: unknown }>, count: number): Tag[][] {
  const out: Tag[][] = Array.from({ length: count }, () => [])
  for (const { part, ...row } of rows) out[Number(part)].push(row as Tag)
  return out
}

/** The first `limit` candidates from each of the given ids on (in id order), as one statement: a lateral join over
 * the ids, each an index range scan. The ids are a VALUES list of parameters and the limit a literal, so that
 * PostgreSQL plans the statement of a shape once per connection (see inBands). */
async function fromIds(db: Db, q: Candidates, starts: number[], high: number, limit: number): Promise<Tag[][]> {
  const values = sql.join(starts.map((low, i) => sql`(${low}::integer, ${sql.lit(i)})`))
  const bounds = sql<{ low: number; part: number }>`(select * from (values ${values}) as v(low, part))`
  const rows = await db
    .selectFrom(bounds.as('b'))
    .innerJoinLateral(
      q
        .where('t.id', '>=', sql<number>`b.low`)
        .where('t.id', '<=', high)
        .orderBy('t.id')
        .limit(sql.lit(limit))
        .as('s'),
      (join) => join.onTrue(),
    )
    .selectAll('s')
    .select('b.part')
    .execute()
  return byPart(rows as Array<Tag & { part: unknown }>, starts.length)
}

/** A band's draw: its tags from `pivot` on, then from its start. */
interface BandDraw {
  band: number
  pivot: number
}

/** The first `limit` candidates of each band from its pivot on (in strength order), and when those are fewer, from
 * the band's start: as one statement, a lateral join over the bands, each two index range scans of which the
 * second runs only when the first is short. The bands are a VALUES list of parameters and the limit a literal,
 * so that PostgreSQL plans the statement of a shape once per connection: with arrays of ranges and a parameter
 * limit its generic plan was costed as a thousand ranges of a tenth of the set each, never chosen, and every
 * request was planned again (1.1 ms, twice its execution; BENCHMARKS.md, "Reviewing machine tags"). */
async function inBands(db: Db, q: Candidates, draws: BandDraw[], limit: number): Promise<Tag[][]> {
  const values = sql.join(
    draws.map(
      (d, i) =>
        sql`(${d.pivot}::float8, ${bandLow(d.band)}::float8, ${bandHigh(d.band)}::float8, ${sql.lit(i)}, ${sql.lit(d.band)})`,
    ),
  )
  const bounds = sql<{
    pivot: number
    low: number
    high: number
    part: number
    band: number
  }>`(select * from (values ${values}) as v(pivot, low, high, part, band))`
  // the range only bounds the index scan; the band a tag is in is the summary's, the one SQL definition
  const inBand = q.where(sql<number>`tag_strength_band(t.strength)`, '=', sql<number>`b.band`)
  const from = (low: string, high: string) =>
    inBand
      .where('t.strength', '>=', sql<number>`${sql.ref(low)}`)
      .where('t.strength', '<=', sql<number>`${sql.ref(high)}`)
      .orderBy('t.strength')
      .orderBy('t.id')
      .limit(sql.lit(limit))
  // a tag at the pivot is read by both ranges, and taken once (roundRobin)
  const both = sql<Tag>`(select * from ((${from('b.pivot', 'b.high')}) union all (${from('b.low', 'b.pivot')})) as u limit ${sql.lit(limit)})`
  const rows = await db
    .selectFrom(bounds.as('b'))
    .innerJoinLateral(both.as('s'), (join) => join.onTrue())
    .selectAll('s')
    .select('b.part')
    .execute()
  return byPart(rows as Array<Tag & { part: unknown }>, draws.length)
}

/** A strength range around band `b` on either side: wider than the band by a little (floor(strength × 10) in
 * floating point puts a strength just below an edge in the band above: 0.8999999999999999 is in band 9), the
 * first band from minus infinity and the last up to NaN, the greatest float8 in PostgreSQL's order (NaN and
 * strengths of 1 and above are in the last band, below 0 in the first: tag_strength_band, migration
 * 2026_11_28_3401). */
const BAND_SLACK = 1e-9
const bandLow = (b: number) => (b === 0 ? -Infinity : b / BANDS - BAND_SLACK)
const bandHigh = (b: number) => (b === BANDS - 1 ? NaN : (b + 1) / BANDS + BAND_SLACK)

/** Rows taken from each list in turn, without repeats, until there are n. */
function roundRobin(lists: Tag[][], n: number): Tag[] {
  const out: Tag[] = []
  const seen = new Set<number>()
  for (let i = 0; out.length < n && lists.some((l) => l.length > i); i++) {
    for (const list of lists) {
      const row = list[i]
      if (row && !seen.has(row.id) && out.length < n) {
        seen.add(row.id)
        out.push(row)
      }
    }
  }
  return out
}

/** The next n tags for the reviewer. */
export async function reviewQueue(db: Db, o: QueueOptions): Promise<Tag[]> {
  const random = o.random ?? Math.random
  const q = candidates(db, o)
  switch (o.strategy) {
    case 'top': {
      // NaN, the greatest float8 in PostgreSQL's order, after the numbers rather than first
      const [numbers, nan] = await parts(db, [
        q.where('t.strength', '<', NaN).orderBy('t.strength', 'desc').orderBy('t.id').limit(o.n),
        q.where('t.strength', '=', NaN).orderBy('t.id').limit(o.n),
      ])
      return [...numbers, ...nan].sort(byStrength).slice(0, o.n)
    }
    case 'uncertain': {
      // nearest to 0.5 from above and from below, merged (NaN, the greatest float8 in PostgreSQL's order, is read
      // last from above)
      const [above, below] = await parts(db, [
        q.where('t.strength', '>=', 0.5).orderBy('t.strength').orderBy('t.id').limit(o.n),
        q.where('t.strength', '<', 0.5).orderBy('t.strength', 'desc').orderBy('t.id').limit(o.n),
      ])
      return [...above, ...below].sort(byUncertainty).slice(0, o.n)
    }
    case 'strata': {
      // each band read from a random place in it (and on from its start when that runs out), then the bands taken
      // in turn, so a band short of tags leaves its share to the others; first a band's share of each, then, when
      // some band is short, up to n of each
      const draws = Array.from({ length: BANDS }, (_, band) => ({ band, pivot: (band + random()) / BANDS }))
      const order = shuffled(
        Array.from({ length: BANDS }, (_, b) => b),
        random,
      )
      const draw = async (limit: number) => {
        const read = await inBands(db, q, draws, limit)
        return roundRobin(
          order.map((b) => read[b]),
          o.n,
        )
      }
      const share = Math.ceil(o.n / BANDS)
      const first = await draw(share)
      return first.length === o.n || share >= o.n ? first : draw(o.n)
    }
    case 'random': {
      // the first candidate at or after each of n random ids of the set's range; short of n (ids taken twice, a
      // sparse range), the rest from the start of the range on
      const range = await db
        .selectFrom('tags')
        .where('tag_set_id', '=', o.tagSet)
        .select((eb) => [eb.fn.min('id').as('low'), eb.fn.max('id').as('high')])
        .executeTakeFirst()
      if (!range || range.low === null || range.high === null) return []
      const low = Number(range.low)
      const high = Number(range.high)
      const pivots = Array.from({ length: o.n }, () => low + Math.floor(random() * (high - low + 1)))
      const read = await fromIds(db, q, [...pivots, low], high, 1)
      const picked = roundRobin([read.slice(0, -1).flat()], o.n)
      if (picked.length === o.n) return picked
      const rest = await q
        .orderBy('t.id')
        .limit(2 * o.n)
        .execute()
      return roundRobin([[...picked, ...rest]], o.n)
    }
  }
}

/** Strongest first, ties by id; a strength that is no number after every other. */
function byStrength(a: Tag, b: Tag): number {
  const strength = (t: Tag) => (Number.isNaN(t.strength) ? -Infinity : t.strength)
  return Number(Number.isNaN(a.strength)) - Number(Number.isNaN(b.strength)) || strength(b) - strength(a) || a.id - b.id
}

/** Nearest to 0.5 first, ties by id; a strength that is no number (NaN: no probability at all) after every other. */
function byUncertainty(a: Tag, b: Tag): number {
  const distance = (t: Tag) => (Number.isNaN(t.strength) ? Infinity : Math.abs(t.strength - 0.5))
  return Number(Number.isNaN(a.strength)) - Number(Number.isNaN(b.strength)) || distance(a) - distance(b) || a.id - b.id
}

/** The bands in a random order, so a short queue does not always favour the weakest bands. */
function shuffled<T>(items: T[], random: () => number): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}
