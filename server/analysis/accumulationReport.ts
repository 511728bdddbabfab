import { sql } from 'kysely'
import type { Db } from '../db/schema.js'
import {
  byText,
  classNames,
  coverageReport,
  dateOf,
  detections,
  tagDayNumber,
  type ReportFilter,
  type ReportScope,
} from './activityReports.js'

// The accumulation report (README, "Activity reports"): how many classes a scope's recordings had detected by each
// recording day, the day each was first heard, from the same detections and coverage as the other reports.

export interface AccumulationRow {
  date: string
  /** the day's rank among the recording days, from 1 */
  day: number
  /** the classes first detected that day */
  newClasses: string[]
  /** the classes detected up to that day */
  classes: number
}
export interface AccumulationReport {
  rows: AccumulationRow[]
  undated: number
}

/** The classes detected up to each recording day: the days the scope's recordings cover, and those with a
 * detection. */
export async function accumulationReport(
  db: Db,
  scope: ReportScope,
  filter: ReportFilter,
): Promise<AccumulationReport> {
  const [first, coverage] = await Promise.all([
    detections(db, scope, filter)
      .select([
        't.tag_class_id',
        sql<number | null>`min(${tagDayNumber})`.as('day'),
        sql<number>`count(*) filter (where f.t0 is null)::integer`.as('undated'),
      ])
      .groupBy('t.tag_class_id')
      .execute(),
    coverageReport(db, scope, filter),
  ])
  const names = await classNames(
    db,
    first.map((r) => r.tag_class_id),
  )
  const firstDay = new Map<string, string>()
  for (const r of first) {
    if (r.day === null) continue
    const name = names.get(r.tag_class_id) ?? ''
    const date = dateOf(r.day)
    const known = firstDay.get(name)
    if (known === undefined || date < known) firstDay.set(name, date)
  }
  const days = [...new Set([...coverage.rows.map((r) => r.date), ...firstDay.values()])].sort(byText)
  const newOn = new Map<string, string[]>()
  for (const [name, date] of firstDay) newOn.set(date, [...(newOn.get(date) ?? []), name])
  let classes = 0
  const rows = days.map((date, i) => {
    const newClasses = (newOn.get(date) ?? []).sort(byText)
    classes += newClasses.length
    return { date, day: i + 1, newClasses, classes }
  })
  return { rows, undated: first.reduce((n, r) => n + r.undated, 0) }
}
