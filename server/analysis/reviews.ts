import { sql, type Expression } from 'kysely'
import type { Db } from '../db/schema.js'
import { tagsByBand } from './bandCounts.js'

// What reviewers' decisions on tags say (README, "Reviewing machine tags"; docs/decisions.md §19):
// a tag's consensus, the tags of a tag set that reviewers decided, and the precision of a tag set's tags by
// strength, estimated from the decisions.

export const DECISIONS = ['yes', 'no', 'unsure', 'skip'] as const
export type Decision = (typeof DECISIONS)[number]
/** what the decisions on one tag say together: `skip` says nothing, and is left out */
export type Consensus = 'yes' | 'no' | 'unsure'

/** strength bands: [0, 0.1), [0.1, 0.2) … [0.9, 1]; a strength below 0 is in the first, above 1 in the last */
export const BANDS = 10

/** The band of a strength, in SQL: the database's tag_strength_band (migration 2026_11_28_3401), which the kept
 * counts of the tags by band use too. */
export const bandOf = (strength: Expression<number>) => sql<number>`tag_strength_band(${strength})`

/** The consensus of a tag's counts of yes, no and unsure decisions, in SQL: the most frequent one, a tie unsure;
 * null when there are none (skipped only). */
export const consensusOf = (
  yes: Expression<number>,
  no: Expression<number>,
  unsure: Expression<number>,
) => sql<Consensus | null>`case
  when ${yes} + ${no} + ${unsure} = 0 then null
  when ${yes} > ${no} and ${yes} > ${unsure} then 'yes'
  when ${no} > ${yes} and ${no} > ${unsure} then 'no'
  else 'unsure' end`

/** a tag's decisions of one kind, counted over its rows `d` */
const counted = (decision: Decision) => sql<number>`count(*) filter (where d.decision = ${sql.lit(decision)})::integer`

/** The decisions on each tag of a tag set that has any, with the tag and their consensus, and the class named most
 * by the `no` decisions (`named_class_id`). One pass over the set's decisions (by their copy of their tag's set,
 * migration 2026_11_27_3401), each joined to its tag by its id. */
export function decisionsByTag(db: Db, tagSetId: number) {
  return db
    .selectFrom('tag_reviews as d')
    .innerJoin('tags as dt', 'dt.id', 'd.tag_id')
    .where('d.tag_set_id', '=', tagSetId)
    .where('dt.tag_set_id', '=', tagSetId)
    .groupBy('dt.id')
    .select([
      'dt.id',
      'dt.media_file_id',
      'dt.start_time',
      'dt.end_time',
      'dt.min_frequency',
      'dt.max_frequency',
      'dt.tag_class_id',
      'dt.strength',
      consensusOf(counted('yes'), counted('no'), counted('unsure')).as('consensus'),
      sql<
        number | null
      >`mode() within group (order by d.tag_class_id) filter (where d.decision = 'no' and d.tag_class_id is not null)`.as(
        'named_class_id',
      ),
    ])
}

/** What the decisions on a tag set's tags say, by the tags' class, strength band and consensus (null: skipped
 * only): the tags, their decisions of each kind, and those decided (yes, no or unsure) by more than one reviewer
 * and how many of them disagree. The set's decisions alone, read by their index with their copies of their tags'
 * class and strength (migration 2026_11_27_3401), none joined to its tag; counted in the database, which sends
 * a few rows a class rather than one a decided tag. */
function decisionsByBand(db: Db, tagSetId: number) {
  return db
    .with('per_tag', (w) =>
      w
        .selectFrom('tag_reviews as d')
        .where('d.tag_set_id', '=', tagSetId)
        .groupBy('d.tag_id')
        .select([
          sql<number>`min(d.tagged_class_id)`.as('tag_class_id'),
          sql<number>`min(d.tag_strength)`.as('strength'),
          counted('yes').as('yes'),
          counted('no').as('no'),
          counted('unsure').as('unsure'),
          counted('skip').as('skip'),
        ]),
    )
    .selectFrom('per_tag as p')
    .select((eb) => [
      'p.tag_class_id',
      bandOf(eb.ref('p.strength')).as('band'),
      consensusOf(eb.ref('p.yes'), eb.ref('p.no'), eb.ref('p.unsure')).as('consensus'),
      sql<number>`count(*)::integer`.as('tags'),
      sql<number>`sum(p.yes)::integer`.as('yes'),
      sql<number>`sum(p.no)::integer`.as('no'),
      sql<number>`sum(p.unsure)::integer`.as('unsure'),
      sql<number>`sum(p.skip)::integer`.as('skip'),
      sql<number>`count(*) filter (where p.yes + p.no + p.unsure > 1)::integer`.as('reviewed_by_many'),
      sql<number>`count(*) filter (where p.yes + p.no + p.unsure > 1
      and (p.yes > 0)::integer + (p.no > 0)::integer + (p.unsure > 0)::integer > 1)::integer`.as('disagreements'),
    ])
    .groupBy(['p.tag_class_id', sql`band`, sql`consensus`])
}

export interface ReviewedTag {
  tag: number
  mediaFile: number
  startTime: number
  endTime: number
  minFrequency: number
  maxFrequency: number
  tagClass: number
  strength: number
  consensus: Consensus
  /** when the consensus is `no`: the class reviewers said it is instead (the most named), if any */
  namedClass: number | null
}

/** The consensus decision on every decided tag of a tag set (for a discovery job that learns from them), by tag id. */
export async function reviewedTags(db: Db, tagSetId: number): Promise<ReviewedTag[]> {
  const rows = await decisionsByTag(db, tagSetId).orderBy('dt.id').execute()
  return rows.flatMap((r) => {
    const { consensus } = r
    if (!consensus) return [] // skipped only
    return [
      {
        tag: r.id,
        mediaFile: r.media_file_id,
        startTime: r.start_time,
        endTime: r.end_time,
        minFrequency: r.min_frequency,
        maxFrequency: r.max_frequency,
        tagClass: r.tag_class_id,
        strength: r.strength,
        consensus,
        namedClass: consensus === 'no' && r.named_class_id !== null ? Number(r.named_class_id) : null,
      },
    ]
  })
}

/** Z of a two-sided 95% interval */
const Z95 = 1.959963984540054

/** The Wilson score interval (95%) of a share of `k` in `n`; null when n is 0. */
export function wilson(k: number, n: number): { low: number; high: number } | null {
  if (n === 0) return null
  const p = k / n
  const z2 = Z95 * Z95
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n)
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n)
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) }
}

/** One strength band of a class: its tags, and the consensus of those decided. */
export interface BandCounts {
  tags: number
  yes: number
  no: number
  unsure: number
}

export interface BandEstimate extends BandCounts {
  min: number
  max: number
  /** share of `yes` among the tags decided yes or no; null when none is */
  precision: number | null
  /** its Wilson 95% interval */
  low: number | null
  high: number | null
}

export interface ThresholdEstimate {
  /** tags with at least this strength are kept */
  threshold: number
  /** the tags kept */
  tags: number
  /** post-stratified precision of the tags kept: each band's precision weighted by its number of tags, over the
   * bands with decisions; null when none has any */
  precision: number | null
  /** tags kept in bands without any yes/no decision, which the estimate does not cover */
  unestimatedTags: number
}

export interface PrecisionEstimate {
  bands: BandEstimate[]
  thresholds: ThresholdEstimate[]
  /** the lowest threshold whose estimated precision is at least 0.9 (0.95), with the tags it keeps */
  at90: { threshold: number; tags: number } | null
  at95: { threshold: number; tags: number } | null
}

const edge = (b: number) => Math.round((b * 1000) / BANDS) / 1000

/** Precision by strength from the counts of each band (BANDS of them): each band's share of `yes` with its Wilson
 * interval, and, above each band's lower edge, the post-stratified estimate, so that decisions drawn by any
 * strategy (or imported) weigh by how many tags their band holds, not by how many were decided there. */
export function estimatePrecision(counts: BandCounts[]): PrecisionEstimate {
  const bands = counts.map((c, b): BandEstimate => {
    const decided = c.yes + c.no
    const interval = wilson(c.yes, decided)
    return {
      min: edge(b),
      max: edge(b + 1),
      ...c,
      precision: decided ? c.yes / decided : null,
      low: interval?.low ?? null,
      high: interval?.high ?? null,
    }
  })
  const thresholds = bands.map((_, k): ThresholdEstimate => {
    let tags = 0
    let weighted = 0
    let covered = 0
    for (const band of bands.slice(k)) {
      tags += band.tags
      if (band.precision === null) continue
      weighted += band.tags * band.precision
      covered += band.tags
    }
    return { threshold: edge(k), tags, precision: covered ? weighted / covered : null, unestimatedTags: tags - covered }
  })
  const lowest = (target: number) => {
    const t = thresholds.find((x) => x.precision !== null && x.precision >= target)
    return t ? { threshold: t.threshold, tags: t.tags } : null
  }
  return { bands, thresholds, at90: lowest(0.9), at95: lowest(0.95) }
}

export interface ClassSummary extends PrecisionEstimate {
  tagClass: number
  /** tags of the class in the tag set */
  tags: number
  /** decision records on them, of each kind */
  decisions: Record<Decision, number>
  /** their tags' consensus */
  consensus: Record<Consensus, number>
  /** tags decided (yes, no or unsure) by more than one reviewer, and those of them whose reviewers disagree */
  reviewedByMany: number
  disagreements: number
  disagreementRate: number | null
}

/** The summary of a tag set's decisions, per class of its tags (classes without tags are left out). */
export async function reviewSummary(db: Db, tagSetId: number): Promise<ClassSummary[]> {
  const [bandRows, decided] = await Promise.all([tagsByBand(db, tagSetId), decisionsByBand(db, tagSetId).execute()])
  const classes = new Map<number, { counts: BandCounts[]; summary: Omit<ClassSummary, keyof PrecisionEstimate> }>()
  const of = (tagClass: number) => {
    let c = classes.get(tagClass)
    if (!c) {
      c = {
        counts: Array.from({ length: BANDS }, () => ({ tags: 0, yes: 0, no: 0, unsure: 0 })),
        summary: {
          tagClass,
          tags: 0,
          decisions: { yes: 0, no: 0, unsure: 0, skip: 0 },
          consensus: { yes: 0, no: 0, unsure: 0 },
          reviewedByMany: 0,
          disagreements: 0,
          disagreementRate: null,
        },
      }
      classes.set(tagClass, c)
    }
    return c
  }
  for (const r of bandRows) {
    const c = of(r.tag_class_id)
    c.counts[r.band].tags += r.tags
    c.summary.tags += r.tags
  }
  for (const r of decided) {
    const c = of(r.tag_class_id)
    const d = c.summary.decisions
    d.yes += r.yes
    d.no += r.no
    d.unsure += r.unsure
    d.skip += r.skip
    if (!r.consensus) continue
    c.counts[r.band][r.consensus] += r.tags
    c.summary.consensus[r.consensus] += r.tags
    c.summary.reviewedByMany += r.reviewed_by_many
    c.summary.disagreements += r.disagreements
  }
  return [...classes.values()]
    .sort((a, b) => a.summary.tagClass - b.summary.tagClass)
    .map(({ counts, summary }) => ({
      ...summary,
      disagreementRate: summary.reviewedByMany ? summary.disagreements / summary.reviewedByMany : null,
      ...estimatePrecision(counts),
    }))
}
