import type { TopLevelSpec } from 'vega-lite'
import type { AccumulationReport } from './accumulationReport.js'
import type { CoverageReport, DailyReport, DielReport, MatrixReport, ReportName } from './activityReports.js'
import type { DensityReport } from './densityReport.js'
import { classColours, COLOURS, LABEL_LIMIT } from './charts.js'

// The Vega-Lite chart of each activity report as the server answers it (GET …/report/{name}/, docs/decisions.md
// §34): the one specification of each chart, drawn by the server as SVG (`?format=svg`, which the review page shows)
// and by `mas report … -o CHART.png`. An empty report is still a chart: its axes, its title and a line saying there
// is nothing to show. It imports only types and the colours, so the CLI loads nothing of the server's with it.

/** the filters every report's answer repeats */
export interface ReportCommon {
  minimumStrength: number | null
  reviewed: 'yes' | null
  tz: string | null
}
export type Report =
  | (ReportCommon & DielReport & { report: 'diel' })
  | (ReportCommon & DailyReport & { report: 'daily' })
  | (ReportCommon & AccumulationReport & { report: 'accumulation' })
  | (ReportCommon & MatrixReport & { report: 'matrix' })
  | (ReportCommon & CoverageReport & { report: 'coverage' })
  | (ReportCommon & DensityReport & { report: 'density' })

const WIDTH = 640
const HEIGHT = 320

/** a chart with nothing to draw: its title and a line saying so, on an empty plot of the report's axes */
function empty(title: string, x: string, y: string, what: string): TopLevelSpec {
  return {
    title,
    width: WIDTH,
    height: HEIGHT,
    data: { values: [{ x: 0, y: 0, text: `No ${what} to show` }] },
    layer: [
      {
        mark: { type: 'point', opacity: 0 },
        encoding: {
          x: {
            field: 'x',
            type: 'quantitative',
            title: x,
            scale: { domain: [0, 1] },
            axis: { labels: false, ticks: false, grid: false },
          },
          y: {
            field: 'y',
            type: 'quantitative',
            title: y,
            scale: { domain: [0, 1] },
            axis: { labels: false, ticks: false, grid: false },
          },
        },
      },
      {
        mark: { type: 'text', fontSize: 16, color: '#666666' },
        encoding: {
          x: { datum: 0.5, type: 'quantitative' },
          y: { datum: 0.5, type: 'quantitative' },
          text: { field: 'text' },
        },
      },
    ],
  }
}

/** days on a grid's axis: slanted, so that a season's days fit side by side */
const DAY_AXIS = { labelAngle: -50 }

/** The rows of a chart coloured by class, and its colour encoding: a colour per class, never one colour for two
 * (server/analysis/charts.ts, classColours). When the rarest classes are grouped, their rows of one `key` (hour,
 * day) are summed as one row of "N other classes", so a stack's height and a line's total stay the counts. */
function colouredByClass<R extends { className: string; detections: number }>(
  rows: readonly R[],
  key: (r: R) => string,
) {
  const counts = new Map<string, number>()
  for (const r of rows) counts.set(r.className, (counts.get(r.className) ?? 0) + r.detections)
  const c = classColours(counts)
  const values: R[] = []
  const others = new Map<string, R>()
  for (const r of rows) {
    if (!c.grouped.has(r.className)) values.push(r)
    else {
      const other = others.get(key(r))
      if (other) other.detections += r.detections
      else {
        const row = { ...r, className: c.otherLabel }
        others.set(key(r), row)
        values.push(row)
      }
    }
  }
  const color = {
    field: 'className',
    type: 'nominal',
    title: 'class',
    // the legend's order and the stacks' order are the domain's: classes by name, the grouped ones last
    sort: c.classes,
    scale: { domain: c.classes, range: c.colours },
  } as const
  return { values, color }
}

const DAY = 86_400_000

/** Every day from the first date to the last (YYYY-MM-DD), days without rows included. */
function daysBetween(dates: readonly string[]): string[] {
  let first = Infinity,
    last = -Infinity
  for (const d of dates) {
    const time = Date.parse(`${d}T00:00:00Z`)
    first = Math.min(first, time)
    last = Math.max(last, time)
  }
  return Array.from({ length: Math.round((last - first) / DAY) + 1 }, (_, i) =>
    new Date(first + i * DAY).toISOString().slice(0, 10),
  )
}

/** the most day labels side by side on a chart WIDTH wide, and slanted */
const LEVEL_DAY_LABELS = 9
const SLANTED_DAY_LABELS = 30

/** The x axis of the daily chart: a band per day of the range (a day without detections is an empty band, not left
 * out), each labelled once as "01 Jun" (with its year when the days span two years); over more days than labels
 * fit, every k-th day is labelled, from the first. A temporal axis put its ticks at the days' edges (a tick at the
 * end of the last day named a day without data) and at noons when the days were few (two labels per day). */
function dayAxis(dates: readonly string[]) {
  const days = daysBetween(dates)
  const level = days.length <= LEVEL_DAY_LABELS
  const every = Math.ceil(days.length / SLANTED_DAY_LABELS)
  const format = days[0].slice(0, 4) === days[days.length - 1].slice(0, 4) ? '%d %b' : '%d %b %Y'
  return {
    field: 'date',
    type: 'ordinal',
    title: 'day',
    scale: { domain: days },
    axis: {
      values: days.filter((_, i) => i % every === 0),
      labelExpr: `utcFormat(toDate(datum.value + 'T00:00:00Z'), '${format}')`,
      labelAngle: level ? 0 : DAY_AXIS.labelAngle,
    },
  } as const
}

/** The chart of a report, titled `title`. */
export function reportChart(r: Report, title: string): TopLevelSpec {
  switch (r.report) {
    case 'diel': {
      if (!r.rows.length) return empty(title, 'hour of the day (local time)', 'detections', 'detections')
      const { values, color } = colouredByClass(r.rows, (x) => String(x.hour))
      return {
        title,
        width: WIDTH,
        height: HEIGHT,
        data: { values },
        // straight between the hours' counts: a smoothed line shows calls between them that were not counted
        mark: { type: 'line', point: true, interpolate: 'linear' },
        encoding: {
          x: {
            field: 'hour',
            type: 'quantitative',
            title: 'hour of the day (local time)',
            scale: { domain: [0, 23] },
            axis: { tickCount: 24, values: Array.from({ length: 24 }, (_, h) => h) },
          },
          y: { field: 'detections', type: 'quantitative', title: 'detections', axis: { tickMinStep: 1 } },
          color,
        },
      }
    }
    case 'daily': {
      if (!r.rows.length) return empty(title, 'day', 'detections', 'detections')
      const { values, color } = colouredByClass(r.rows, (x) => x.date)
      return {
        title,
        width: WIDTH,
        height: HEIGHT,
        data: { values },
        mark: { type: 'bar' },
        encoding: {
          x: dayAxis(r.rows.map((x) => x.date)),
          y: { field: 'detections', type: 'quantitative', title: 'detections', stack: true, axis: { tickMinStep: 1 } },
          color,
        },
      }
    }
    case 'accumulation':
      if (!r.rows.length) return empty(title, 'recording day', 'classes detected', 'recording days')
      return {
        title,
        width: WIDTH,
        height: HEIGHT,
        data: { values: r.rows },
        mark: { type: 'line', point: true, interpolate: 'step-after', color: COLOURS[0] },
        encoding: {
          x: { field: 'day', type: 'quantitative', title: 'recording day', axis: { tickMinStep: 1 } },
          y: { field: 'classes', type: 'quantitative', title: 'classes detected', axis: { tickMinStep: 1 } },
          tooltip: [{ field: 'date' }, { field: 'classes' }],
        },
      }
    case 'matrix':
      if (!r.rows.length) return empty(title, 'day', 'site', 'detections')
      return {
        title,
        data: { values: r.rows },
        facet: {
          row: {
            field: 'className',
            type: 'nominal',
            title: null,
            // each class's name above its own rows, from their left edge: beside them, names of different lengths
            // were placed at different distances from the plot
            header: {
              labelOrient: 'top',
              labelAnchor: 'start',
              labelAngle: 0,
              labelAlign: 'left',
              labelFontSize: 13,
            },
          },
        },
        spec: {
          width: { step: 22 },
          height: { step: 22 },
          mark: { type: 'rect' },
          encoding: {
            x: { field: 'date', type: 'ordinal', title: 'day', axis: DAY_AXIS },
            y: { field: 'site', type: 'nominal', title: 'site' },
            color: {
              field: 'detections',
              type: 'quantitative',
              title: 'detections',
              scale: { scheme: 'viridis' },
              legend: { format: 'd', tickMinStep: 1 },
            },
          },
        },
      }
    case 'coverage':
      if (!r.rows.length) return empty(title, 'day', 'site', 'recorded hours')
      return {
        title,
        width: { step: 22 },
        height: { step: 22 },
        data: { values: r.rows },
        mark: { type: 'rect' },
        encoding: {
          x: { field: 'date', type: 'ordinal', title: 'day', axis: DAY_AXIS },
          y: { field: 'site', type: 'nominal', title: 'site' },
          color: {
            field: 'hours',
            type: 'quantitative',
            title: 'hours recorded',
            scale: { scheme: 'blues', domain: [0, 24] },
          },
        },
      }
    case 'density': {
      const rows = r.rows.filter((d) => d.calls !== null)
      if (!rows.length) return empty(title, 'estimated calls', 'class', 'estimates (no detections decided yes or no)')
      return {
        title,
        width: WIDTH,
        height: { step: 26 },
        data: { values: rows },
        encoding: { y: { field: 'className', type: 'nominal', title: 'class', axis: { labelLimit: LABEL_LIMIT } } },
        layer: [
          {
            mark: { type: 'bar', color: '#56B4E9' },
            encoding: { x: { field: 'calls', type: 'quantitative', title: 'estimated calls (95% interval)' } },
          },
          {
            mark: { type: 'rule', strokeWidth: 2 },
            encoding: { x: { field: 'low', type: 'quantitative' }, x2: { field: 'high' } },
          },
          { mark: { type: 'tick', thickness: 2 }, encoding: { x: { field: 'low', type: 'quantitative' } } },
          { mark: { type: 'tick', thickness: 2 }, encoding: { x: { field: 'high', type: 'quantitative' } } },
        ],
      }
    }
  }
}

const TITLES: Record<ReportName, string> = {
  diel: 'Detections by hour of the day',
  daily: 'Detections per day',
  accumulation: 'Classes detected over the recording days',
  matrix: 'Detections per site and day',
  coverage: 'Hours recorded per site and day',
  density: 'Estimated calls per class',
}

/** A report's chart title, its scope (`tag set BirdNET`) and filters said: "Detections by hour of the day — tag set
 * BirdNET (strength ≥ 0.8, reviewed yes)" */
export function chartTitle(r: Report, scope: string): string {
  const filters = [
    r.minimumStrength === null ? '' : `strength ≥ ${r.minimumStrength}`,
    r.reviewed ? 'reviewed yes' : '',
    r.tz ? `local time UTC ${r.tz}` : '',
  ].filter(Boolean)
  return `${TITLES[r.report]} — ${scope}${filters.length ? ` (${filters.join(', ')})` : ''}`
}
