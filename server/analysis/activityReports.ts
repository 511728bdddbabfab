import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely'
import type { Db } from '../db/schema.js'
import { consensusOf } from './reviews.js'

// The activity reports (README, "Activity reports"; docs/decisions.md §34): what a tag set's, a library's or a
// project's detections say about when and where each class was heard. Every count is made by the database
// (grouped statements over the tags and their recordings); what comes back is a row per class and hour, day or
// site, so the memory and the time of a report follow the number of classes, days and sites, not of tags.

export const REPORTS = ['diel', 'daily', 'accumulation', 'matrix', 'coverage', 'density'] as const
export type ReportName = (typeof REPORTS)[number]

/** Whose detections and recordings a report is over. `tagSets` are the tag sets whose tags count (for a library or
 * a project: those the caller may read); `media` says which recordings are the scope's. */
export type ReportScope =
  | { kind: 'tagSet'; id: number; library: number | null }
  | { kind: 'library'; id: number; tagSets: number[] }
  | { kind: 'project'; id: number; tagSets: number[] }

/** How a recording's stored start time becomes the local time of its recorder: as stored (recorders mostly write
 * their own clock), or stored in UTC and shifted by a fixed offset (minutes) or into a named zone. */
export type LocalTime = { kind: 'stored' } | { kind: 'offset'; minutes: number } | { kind: 'zone'; name: string }

export interface ReportFilter {
  /** the tags of at least this strength (every tag when absent) */
  minimumStrength?: number
  /** only the tags whose reviewers' consensus is `yes` */
  reviewedYes?: boolean
  localTime: LocalTime
}

/** `+02:00`, `-0530`, `+2` (hours and minutes east of UTC) */
const OFFSET = /^([+-])(\d{1,2})(?::?(\d{2}))?$/

/** The local time a `tz` parameter names, or null when it names none: an offset, or a zone PostgreSQL knows. */
export async function parseLocalTime(db: Db, tz: string | undefined): Promise<LocalTime | null> {
  if (tz === undefined) return { kind: 'stored' }
  // as `mas tag export --utc-offset` takes it: Z is UTC
  if (/^z$/i.test(tz)) return { kind: 'offset', minutes: 0 }
  const m = OFFSET.exec(tz)
  if (m) {
    const hours = Number(m[2])
    const minutes = Number(m[3] ?? 0)
    if (hours > 14 || minutes > 59) return null
    return { kind: 'offset', minutes: (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes) }
  }
  if (tz.length > 64) return null
  const known = await db
    .selectFrom(sql<{ name: string }>`pg_timezone_names`.as('z'))
    .select('z.name')
    .where('z.name', '=', tz)
    .executeTakeFirst()
  return known ? { kind: 'zone', name: tz } : null
}

/** A recording's start in local time, in SQL. */
function localStart(start: Expression<string | null>, lt: LocalTime): RawBuilder<string | null> {
  if (lt.kind === 'offset') return sql`(${start} + ${lt.minutes} * interval '1 minute')`
  if (lt.kind === 'zone') return sql`((${start} at time zone 'UTC') at time zone ${lt.name})`
  return sql`${start}`
}

/** The site of a recording: its sensor's name, else the folder of its alias (`.` for a file at the top), in SQL. */
const siteOf = sql<string>`coalesce(s.name, case when strpos(m.alias, '/') > 0 then regexp_replace(m.alias, '/[^/]*$', '') else '.' end)`

/** A recording's duration in seconds from its `durationInSeconds` metadata, null when it has none (or not a number). */
const durationOf = sql<
  number | null
>`(select case when d.value ~ '^[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?$' then d.value::float8 end
  from media_file_metadata d where d.media_file_id = m.id and d.name = 'durationInSeconds' order by d.id limit 1)`

/** The tag sets whose decisions count, as an SQL condition on `column`. */
export function inTagSets(scope: ReportScope, column: Expression<number>): RawBuilder<SqlBool> {
  if (scope.kind === 'tagSet') return sql`${column} = ${scope.id}`
  return sql`${column} = any(${scope.tagSets}::integer[])`
}

/** The scope's recordings (`f`): each one's local start in seconds since 1970-01-01 of the local clock (`t0`, null
 * without a start time) and its site; read once, before the tags, so that a tag's local time is arithmetic on
 * numbers (docs/decisions.md §34). */
function recordingsOfTags(db: Db, scope: ReportScope, lt: LocalTime) {
  const files =
    scope.kind === 'tagSet'
      ? // the files the set has tags on, from their kept counts (migration 2026_11_27_3501)
        db
          .selectFrom('media_files as m')
          .leftJoin('sensors as s', 's.id', 'm.sensor_id')
          .where(
            'm.id',
            'in',
            db
              .selectFrom('tag_file_counts')
              .select('media_file_id')
              .where('tag_set_id', '=', scope.id)
              .groupBy('media_file_id')
              .having(sql<SqlBool>`sum(delta) > 0`),
          )
      : recordings(db, scope)
  return files.select([
    'm.id',
    sql<number | null>`date_part('epoch', ${localStart(sql.ref('m.real_start_time'), lt)})`.as('t0'),
    siteOf.as('site'),
    // a number per site, so that the matrix groups its tags by integers and names the sites after
    sql<number>`dense_rank() over (order by ${siteOf})::integer`.as('site_no'),
  ])
}

/** The tags a report counts (`t`), with their recording (`f`, recordingsOfTags); a tag's reviewers' consensus is
 * the rule of the review summary (server/analysis/reviews.ts). */
export function detections(db: Db, scope: ReportScope, filter: ReportFilter) {
  let q = db
    .with(
      (cte) => cte('f').materialized(),
      () => recordingsOfTags(db, scope, filter.localTime),
    )
    .selectFrom('tags as t')
    .innerJoin('f', 'f.id', 't.media_file_id')
    .where(inTagSets(scope, sql.ref('t.tag_set_id')))
  if (filter.minimumStrength !== undefined) q = q.where('t.strength', '>=', filter.minimumStrength)
  if (filter.reviewedYes) q = q.where('t.id', 'in', yesTags(db, scope))
  return q
}

/** a tag's local time in seconds since 1970-01-01 of the local clock, null on a recording without a start time */
const tagSeconds = sql<number | null>`(f.t0 + t.start_time)`
/** the local day of a tag, as days since 1970-01-01 */
export const tagDayNumber = sql<number | null>`floor(${tagSeconds} / 86400)::integer`
/** the hour of the local day of a tag (0–23) */
const tagHour = sql<number | null>`floor((${tagSeconds} - floor(${tagSeconds} / 86400) * 86400) / 3600)::integer`
/** `YYYY-MM-DD` of a day number */
export const dateOf = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10)

/** The tags of the scope's tag sets whose consensus is `yes`. */
function yesTags(db: Db, scope: ReportScope) {
  return db
    .selectFrom('tag_reviews as d')
    .select('d.tag_id')
    .where(inTagSets(scope, sql.ref('d.tag_set_id')))
    .groupBy('d.tag_id')
    .having(sql<SqlBool>`${decidedAs()} = 'yes'`)
}

/** a tag's consensus over its decisions `d` (grouped by tag) */
export const decidedAs = () =>
  consensusOf(
    sql`count(*) filter (where d.decision = 'yes')`,
    sql`count(*) filter (where d.decision = 'no')`,
    sql`count(*) filter (where d.decision = 'unsure')`,
  )

/** The scope's recordings: a library's or a project's media files; a tag set's library's, or, for a tag set of no
 * library, the files it has tags on (from their kept counts, migration 2026_11_27_3501). */
function recordings(db: Db, scope: ReportScope) {
  const q = db.selectFrom('media_files as m').leftJoin('sensors as s', 's.id', 'm.sensor_id')
  if (scope.kind === 'library') return q.where('m.library_id', '=', scope.id)
  if (scope.kind === 'project') {
    return q.where(
      'm.id',
      'in',
      db.selectFrom('project_media_files').select('media_file_id').where('project_id', '=', scope.id),
    )
  }
  if (scope.library !== null) return q.where('m.library_id', '=', scope.library)
  return q.where(
    'm.id',
    'in',
    db
      .selectFrom('tag_file_counts')
      .select('media_file_id')
      .where('tag_set_id', '=', scope.id)
      .groupBy('media_file_id')
      .having(sql<SqlBool>`sum(delta) > 0`),
  )
}

/** The names of classes by id. Reports count classes by name, so a library's and a project's tag sets, whose
 * classes are of their own libraries, count a species once. */
export async function classNames(db: Db, ids: Iterable<number>): Promise<Map<number, string>> {
  const unique = [...new Set(ids)]
  if (!unique.length) return new Map()
  const rows = await db.selectFrom('tag_classes').select(['id', 'class_name']).where('id', 'in', unique).execute()
  return new Map(rows.map((r) => [r.id, r.class_name]))
}

export const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Rows counted per class id and other keys, summed per class name and those keys. */
async function countsByName<K extends Record<string, string | number>>(
  db: Db,
  rows: Array<K & { tag_class_id: number; n: number }>,
  keyOf: (r: K) => string,
  make: (r: K, className: string) => K & { className: string },
) {
  const names = await classNames(
    db,
    rows.map((r) => r.tag_class_id),
  )
  const out = new Map<string, K & { className: string; detections: number }>()
  for (const r of rows) {
    const className = names.get(r.tag_class_id) ?? ''
    const key = `${className}\u0000${keyOf(r)}`
    const o = out.get(key)
    if (o) o.detections += r.n
    else out.set(key, { ...make(r, className), detections: r.n })
  }
  return [...out.values()]
}

export interface DielRow {
  className: string
  hour: number
  detections: number
}
export interface DielReport {
  rows: DielRow[]
  undated: number
}

/** Detections per hour of the local day (0–23) and class, every hour of each class present (0 where none); tags on
 * recordings without a start time are `undated`. */
export async function dielReport(db: Db, scope: ReportScope, filter: ReportFilter): Promise<DielReport> {
  const rows = await detections(db, scope, filter)
    .select(['t.tag_class_id', tagHour.as('hour'), sql<number>`count(*)::integer`.as('n')])
    .groupBy(['t.tag_class_id', sql`2`])
    .execute()
  const undated = rows.filter((r) => r.hour === null).reduce((n, r) => n + r.n, 0)
  const counted = await countsByName(
    db,
    rows.filter((r): r is typeof r & { hour: number } => r.hour !== null),
    (r) => String(r.hour),
    (r, className) => ({ className, hour: r.hour, tag_class_id: r.tag_class_id, n: r.n }),
  )
  const byClass = new Map<string, number[]>()
  for (const r of counted) {
    const hours = byClass.get(r.className) ?? Array.from({ length: 24 }, () => 0)
    hours[r.hour] += r.detections
    byClass.set(r.className, hours)
  }
  const out: DielRow[] = []
  for (const className of [...byClass.keys()].sort(byText)) {
    byClass.get(className)!.forEach((detections, hour) => out.push({ className, hour, detections }))
  }
  return { rows: out, undated }
}

export interface DailyRow {
  date: string
  className: string
  detections: number
}
export interface DailyReport {
  rows: DailyRow[]
  undated: number
}

/** Detections per local day and class (days and classes without any left out), by day then class. */
export async function dailyReport(db: Db, scope: ReportScope, filter: ReportFilter): Promise<DailyReport> {
  const rows = await detections(db, scope, filter)
    .select(['t.tag_class_id', tagDayNumber.as('day'), sql<number>`count(*)::integer`.as('n')])
    .groupBy(['t.tag_class_id', sql`2`])
    .execute()
  const undated = rows.filter((r) => r.day === null).reduce((n, r) => n + r.n, 0)
  const counted = await countsByName(
    db,
    rows.filter((r): r is typeof r & { day: number } => r.day !== null),
    (r) => String(r.day),
    (r, className) => ({ ...r, className }),
  )
  return {
    rows: counted
      .map((r) => ({ date: dateOf(r.day), className: r.className, detections: r.detections }))
      .sort((a, b) => byText(a.date, b.date) || byText(a.className, b.className)),
    undated,
  }
}

export interface MatrixRow {
  site: string
  date: string
  className: string
  detections: number
}
export interface MatrixReport {
  rows: MatrixRow[]
  undated: number
}

/** Detections per site, local day and class (cells without any left out): a site is the recording's sensor, else
 * its folder. */
export async function matrixReport(db: Db, scope: ReportScope, filter: ReportFilter): Promise<MatrixReport> {
  const [counts, sites] = await Promise.all([
    detections(db, scope, filter)
      .select(['t.tag_class_id', 'f.site_no', tagDayNumber.as('day'), sql<number>`count(*)::integer`.as('n')])
      .groupBy(['t.tag_class_id', 'f.site_no', sql`3`])
      .execute(),
    db
      .selectFrom(recordingsOfTags(db, scope, filter.localTime).as('f'))
      .select(['f.site_no', 'f.site'])
      .distinct()
      .execute(),
  ])
  const siteNamed = new Map(sites.map((x) => [x.site_no, x.site]))
  const rows = counts.map(({ site_no, ...r }) => ({ ...r, site: siteNamed.get(site_no) ?? '' }))
  const undated = rows.filter((r) => r.day === null).reduce((n, r) => n + r.n, 0)
  const counted = await countsByName(
    db,
    rows.filter((r): r is typeof r & { day: number } => r.day !== null),
    (r) => `${r.site}\u0000${r.day}`,
    (r, className) => ({ ...r, className }),
  )
  return {
    rows: counted
      .map((r) => ({ site: r.site, date: dateOf(r.day), className: r.className, detections: r.detections }))
      .sort((a, b) => byText(a.className, b.className) || byText(a.site, b.site) || byText(a.date, b.date)),
    undated,
  }
}

export interface CoverageRow {
  site: string
  date: string
  hours: number
}
export interface CoverageReport {
  rows: CoverageRow[]
  /** recorded hours over every site and day */
  totalHours: number
  /** the scope's recordings without a start time or a duration, which no day can hold */
  unplacedFiles: number
}

/** Hours recorded per site and local day, from each recording's start and duration, a recording that runs past
 * midnight split between its days. */
export async function coverageReport(
  db: Db,
  scope: ReportScope,
  filter: Pick<ReportFilter, 'localTime'>,
): Promise<CoverageReport> {
  const spans = recordings(db, scope).select([
    siteOf.as('site'),
    localStart(sql.ref('m.real_start_time'), filter.localTime).as('starts'),
    durationOf.as('seconds'),
  ])
  const rows = await db
    .with('f', () => spans)
    .selectFrom(sql<{ site: string; starts: string; seconds: number }>`f`.as('f'))
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom(
            sql<{
              day: string
            }>`generate_series(date_trunc('day', f.starts), f.starts + f.seconds * interval '1 second', interval '1 day')`.as(
              'g',
            ),
          )
          .select(sql<string>`g`.as('day'))
          .where(sql<SqlBool>`g < f.starts + f.seconds * interval '1 second'`)
          .as('d'),
      (join) => join.onTrue(),
    )
    .select([
      'f.site',
      sql<string | null>`to_char(d.day, 'YYYY-MM-DD')`.as('date'),
      sql<number>`sum(extract(epoch from least(f.starts + f.seconds * interval '1 second', d.day + interval '1 day') - greatest(f.starts, d.day)))::float8 / 3600`.as(
        'hours',
      ),
      sql<number>`count(*) filter (where d.day is null)::integer`.as('unplaced'),
    ])
    .groupBy(['f.site', sql`2`])
    .execute()
  const out = rows
    .filter((r): r is typeof r & { date: string } => r.date !== null)
    .map((r) => ({ site: r.site, date: r.date, hours: r.hours }))
    .sort((a, b) => byText(a.site, b.site) || byText(a.date, b.date))
  return {
    rows: out,
    totalHours: out.reduce((h, r) => h + r.hours, 0),
    unplacedFiles: rows.reduce((n, r) => n + r.unplaced, 0),
  }
}
