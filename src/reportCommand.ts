import { writeNamedFile } from './exits.js'
import { Flags } from '@oclif/core'
import { AuthCommand } from './baseCommand.js'
import { findTagSet, libraryId, projectId } from './lookup.js'
import { stderr, table, type Column } from './output.js'
import type { ReportName } from '../server/analysis/activityReports.js'
import { chartTitle, reportChart, type Report } from '../server/analysis/reportCharts.js'
import { numberFlag } from './numberFlag.js'

// What every `mas report NAME` command shares (commands/report/): the scope flags, the request, the table and the
// chart. Each command names its report and says what it shows.

const SCOPE = ['tag-set', 'library', 'project']

const fixed = (v: number | null, digits: number) => (v === null ? '-' : v.toFixed(digits))

/** The rows of `rows` pivoted: one per `rowKey`, one column per `columnKey`, the cell `value` (0 where none). */
function pivot<R>(
  rows: readonly R[],
  rowKey: (r: R) => string,
  columnKey: (r: R) => string,
  value: (r: R) => number,
  rowHeader: string,
  shown: (n: number) => string | number = (n) => n,
) {
  const columns = [...new Set(rows.map(columnKey))].sort()
  const cells = new Map<string, Map<string, number>>()
  for (const r of rows) {
    const k = rowKey(r)
    const m = cells.get(k) ?? new Map<string, number>()
    m.set(columnKey(r), (m.get(columnKey(r)) ?? 0) + value(r))
    cells.set(k, m)
  }
  type Line = { key: string; cells: Map<string, number> }
  const lines: Line[] = [...cells.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, c]) => ({ key, cells: c }))
  const cols: Column<Line>[] = [
    { header: rowHeader, get: (l) => l.key },
    ...columns.map((c) => ({ header: c, get: (l: Line) => shown(l.cells.get(c) ?? 0) })),
  ]
  return table(lines, cols)
}

/** The table of a report, as people read it. */
export function reportTable(r: Report): string {
  switch (r.report) {
    case 'diel':
      return pivot(
        r.rows,
        (x) => String(x.hour).padStart(2, '0'),
        (x) => x.className,
        (x) => x.detections,
        'hour',
      )
    case 'daily':
      return pivot(
        r.rows,
        (x) => x.date,
        (x) => x.className,
        (x) => x.detections,
        'date',
      )
    case 'accumulation':
      return table(r.rows, [
        { header: 'day', get: (x) => x.day },
        { header: 'date', get: (x) => x.date },
        { header: 'classes', get: (x) => x.classes },
        { header: 'new classes', get: (x) => x.newClasses.join(', ') },
      ])
    case 'matrix':
      return table(r.rows, [
        { header: 'class', get: (x) => x.className },
        { header: 'site', get: (x) => x.site },
        { header: 'date', get: (x) => x.date },
        { header: 'detections', get: (x) => x.detections },
      ])
    case 'coverage':
      return pivot(
        r.rows,
        (x) => x.date,
        (x) => x.site,
        (x) => x.hours,
        'date',
        // hours to the hundredth; a few seconds recorded is not a day without recordings
        (h) => (h > 0 && h < 0.005 ? '<0.01' : Math.round(h * 100) / 100),
      )
    case 'density':
      return table(r.rows, [
        { header: 'class', get: (x) => x.className },
        { header: 'detections', get: (x) => x.detections },
        { header: 'calls', get: (x) => fixed(x.calls, 1) },
        { header: 'low', get: (x) => fixed(x.low, 1) },
        { header: 'high', get: (x) => fixed(x.high, 1) },
        { header: 'unestimated', get: (x) => x.unestimatedDetections },
        { header: 'calls/hour', get: (x) => fixed(x.callsPerHour, 3) },
      ])
  }
}

/** What the report leaves out, said on stderr. */
function notes(r: Report): string[] {
  if (r.report === 'coverage')
    return [
      `${r.totalHours.toFixed(2)} hours recorded`,
      ...(r.unplacedFiles ? [`${r.unplacedFiles} recordings without a start time or duration left out`] : []),
    ]
  if (r.report === 'density') {
    return [
      `${r.recordedHours.toFixed(2)} hours recorded`,
      'calls: the share of yes among the detections decided yes or no in each strength tenth, ' +
        'times its detections, summed; low and high: the 95% (Wilson) interval; unestimated: detections in tenths nobody decided',
    ]
  }
  return r.undated ? [`${r.undated} detections on recordings without a start time left out`] : []
}

export abstract class ReportCommand extends AuthCommand<typeof ReportCommand> {
  static flags = {
    'tag-set': Flags.string({
      description: 'the tag set whose detections are reported (name or id)',
      exactlyOne: SCOPE,
    }),
    library: Flags.string({
      description: 'the library whose recordings are reported, with the tags of every tag set you read (name or id)',
      exactlyOne: SCOPE,
    }),
    project: Flags.string({
      description: 'the project whose recordings are reported, with the tags of every tag set you read (name or id)',
      exactlyOne: SCOPE,
    }),
    'minimum-strength': numberFlag('count the tags of at least this strength (default: every tag)'),
    'reviewed-only': Flags.boolean({ description: 'count only the tags reviewers decided yes' }),
    tz: Flags.string({
      description:
        "the recordings' start times are in UTC: the recorders' offset (+02:00) or time zone (Europe/Paris); default: start times are local time",
    }),
    output: Flags.string({ char: 'o', description: 'PNG file to write the chart to' }),
  }

  /** the report this command asks for */
  protected abstract readonly report: ReportName

  async run(): Promise<Report> {
    const f = this.flags
    const [path, label] =
      f['tag-set'] !== undefined
        ? await findTagSet(this.api, '--tag-set', f['tag-set']).then((s) => [`tagSet/${s.id}`, `tag set ${s.name}`])
        : f.library !== undefined
          ? [`library/${await libraryId(this.api, '--library', f.library)}`, `library ${f.library}`]
          : [`project/${await projectId(this.api, '--project', f.project ?? '')}`, `project ${f.project}`]
    const r = await this.api.get<Report>(`${path}/report/${this.report}/`, {
      minimumStrength: f['minimum-strength'],
      reviewed: f['reviewed-only'] ? 'yes' : undefined,
      tz: f.tz,
    })
    if (f.output) {
      const { chartPng } = await import('./charts.js')
      await writeNamedFile('-o', f.output, await chartPng(reportChart(r, chartTitle(r, label))))
    }
    if (this.jsonEnabled()) return r
    if (r.rows.length) this.log(reportTable(r).trimEnd())
    for (const line of [
      ...(r.rows.length ? [] : ['nothing to report']),
      ...notes(r),
      ...(f.output ? [`chart written to ${f.output}`] : []),
    ])
      stderr(line)
    return r
  }
}
