import { sql } from 'kysely'
import type { Db } from '../db/schema.js'
import {
  byText,
  classNames,
  coverageReport,
  decidedAs,
  detections,
  inTagSets,
  type ReportFilter,
  type ReportScope,
} from './activityReports.js'
import { tagsByBand } from './bandCounts.js'
import { BANDS, bandOf, wilson } from './reviews.js'

// The call density report (README, "Activity reports"; docs/decisions.md §34): per class, the detections of each
// strength band times the share of yes among the band's decided ones, with its Wilson interval, summed over the
// bands and per recorded hour. Its own module beside the other reports, which share its scope and filters.

export interface DensityStratum {
  /** the strength band [min, max) */
  min: number
  max: number
  detections: number
  /** detections whose reviewers' consensus is yes, and no */
  yes: number
  no: number
  /** yes / (yes + no); null when none of the band's detections is decided yes or no */
  yesFraction: number | null
  /** yesFraction × detections, with the Wilson 95% interval of the fraction times detections */
  calls: number | null
  low: number | null
  high: number | null
}
export interface DensityRow {
  className: string
  detections: number
  /** the sum of the strata's estimates (of those with decisions) and of their interval bounds */
  calls: number | null
  low: number | null
  high: number | null
  /** detections in strata without a yes or no decision, which the estimate leaves out */
  unestimatedDetections: number
  /** calls per recorded hour of the scope (null without recorded hours or estimate) */
  callsPerHour: number | null
  strata: DensityStratum[]
}
export interface DensityReport {
  rows: DensityRow[]
  recordedHours: number
}

interface StratumRow {
  tag_class_id: number
  band: number
  n: number
  yes: number
  no: number
}

/** A library's or a project's detections per class and strength band, with those whose consensus is yes and no:
 * one pass over the scope's tags, each joined to its consensus. */
function scopeStrata(db: Db, scope: ReportScope, filter: ReportFilter): Promise<StratumRow[]> {
  const consensus = db
    .selectFrom('tag_reviews as d')
    .select(['d.tag_id', decidedAs().as('consensus')])
    .where(inTagSets(scope, sql.ref('d.tag_set_id')))
    .groupBy('d.tag_id')
  return detections(db, scope, { ...filter, reviewedYes: false })
    .leftJoin(consensus.as('c'), 'c.tag_id', 't.id')
    .select((eb) => [
      't.tag_class_id',
      bandOf(eb.ref('t.strength')).as('band'),
      sql<number>`count(*)::integer`.as('n'),
      sql<number>`count(*) filter (where c.consensus = 'yes')::integer`.as('yes'),
      sql<number>`count(*) filter (where c.consensus = 'no')::integer`.as('no'),
    ])
    .groupBy(['t.tag_class_id', sql`2`])
    .execute()
}

/** A tag set's detections per class and strength band, with those whose consensus is yes and no, without reading
 * its tags: the bands' counts kept by the database (server/analysis/bandCounts.ts) and the decisions' copies of
 * their tags' class and strength, as the review summary reads them (docs/decisions.md §19). With
 * `minimumStrength`, the bands above the threshold's are the kept counts and the threshold's own band is counted
 * over its tags of at least the threshold, an index range (tag_set_id, strength). */
async function tagSetStrata(db: Db, tagSet: number, minimumStrength: number | undefined): Promise<StratumRow[]> {
  const thresholdBand =
    minimumStrength === undefined
      ? null
      : (await db.selectNoFrom(bandOf(sql`${minimumStrength}::float8`).as('band')).executeTakeFirstOrThrow()).band
  const [kept, partial, decided] = await Promise.all([
    tagsByBand(db, tagSet),
    thresholdBand === null
      ? Promise.resolve([])
      : db
          .selectFrom('tags as t')
          .where('t.tag_set_id', '=', tagSet)
          .where('t.strength', '>=', minimumStrength!)
          .where((eb) => eb(bandOf(eb.ref('t.strength')), '=', thresholdBand))
          .select(['t.tag_class_id', sql<number>`count(*)::integer`.as('tags')])
          .groupBy('t.tag_class_id')
          .execute(),
    db
      .with('per_tag', (w) => {
        let q = w.selectFrom('tag_reviews as d').where('d.tag_set_id', '=', tagSet)
        if (minimumStrength !== undefined) q = q.where('d.tag_strength', '>=', minimumStrength)
        return q
          .groupBy('d.tag_id')
          .select([
            sql<number>`min(d.tagged_class_id)`.as('tag_class_id'),
            sql<number>`min(d.tag_strength)`.as('strength'),
            decidedAs().as('consensus'),
          ])
      })
      .selectFrom('per_tag as p')
      .select((eb) => [
        'p.tag_class_id',
        bandOf(eb.ref('p.strength')).as('band'),
        sql<number>`count(*) filter (where p.consensus = 'yes')::integer`.as('yes'),
        sql<number>`count(*) filter (where p.consensus = 'no')::integer`.as('no'),
      ])
      .groupBy(['p.tag_class_id', sql`2`])
      .execute(),
  ])
  const rows = new Map<string, StratumRow>()
  const row = (tagClass: number, band: number) => {
    const key = `${tagClass}:${band}`
    let r = rows.get(key)
    if (!r) rows.set(key, (r = { tag_class_id: tagClass, band, n: 0, yes: 0, no: 0 }))
    return r
  }
  for (const k of kept) if (thresholdBand === null || k.band > thresholdBand) row(k.tag_class_id, k.band).n += k.tags
  for (const p of partial) row(p.tag_class_id, thresholdBand!).n += p.tags
  for (const d of decided) {
    const r = row(d.tag_class_id, d.band)
    r.yes += d.yes
    r.no += d.no
  }
  return [...rows.values()].filter((r) => r.n > 0)
}

/** Call density per class: in each strength band (the review summary's strata, docs/decisions.md §19), the share
 * of yes among the decided detections times the band's detections, with its Wilson interval; summed over the
 * bands, and per recorded hour. */
export async function densityReport(db: Db, scope: ReportScope, filter: ReportFilter): Promise<DensityReport> {
  const [rows, coverage] = await Promise.all([
    scope.kind === 'tagSet' ? tagSetStrata(db, scope.id, filter.minimumStrength) : scopeStrata(db, scope, filter),
    coverageReport(db, scope, filter),
  ])
  const names = await classNames(
    db,
    rows.map((r) => r.tag_class_id),
  )
  const byClass = new Map<string, Array<{ detections: number; yes: number; no: number }>>()
  for (const r of rows) {
    const name = names.get(r.tag_class_id) ?? ''
    const bands = byClass.get(name) ?? Array.from({ length: BANDS }, () => ({ detections: 0, yes: 0, no: 0 }))
    const b = bands[r.band]
    b.detections += r.n
    b.yes += r.yes
    b.no += r.no
    byClass.set(name, bands)
  }
  const edge = (b: number) => Math.round((b * 1000) / BANDS) / 1000
  const hours = coverage.totalHours
  const out = [...byClass.keys()].sort(byText).map((className): DensityRow => {
    const strata = byClass.get(className)!.map((b, i): DensityStratum => {
      const interval = wilson(b.yes, b.yes + b.no)
      const yesFraction = interval ? b.yes / (b.yes + b.no) : null
      return {
        min: edge(i),
        max: edge(i + 1),
        ...b,
        yesFraction,
        calls: yesFraction === null ? null : yesFraction * b.detections,
        low: interval ? interval.low * b.detections : null,
        high: interval ? interval.high * b.detections : null,
      }
    })
    const estimated = strata.filter((s) => s.calls !== null)
    const sum = (f: (s: DensityStratum) => number | null) =>
      estimated.length ? estimated.reduce((n, s) => n + (f(s) ?? 0), 0) : null
    const calls = sum((s) => s.calls)
    return {
      className,
      detections: strata.reduce((n, s) => n + s.detections, 0),
      calls,
      low: sum((s) => s.low),
      high: sum((s) => s.high),
      unestimatedDetections: strata.filter((s) => s.calls === null).reduce((n, s) => n + s.detections, 0),
      callsPerHour: calls !== null && hours > 0 ? calls / hours : null,
      strata: strata.filter((s) => s.detections > 0),
    }
  })
  return { rows: out, recordedHours: hours }
}
