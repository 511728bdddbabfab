import type { TopLevelSpec } from 'vega-lite'
import type { AccumulationReport } from './accumulationReport.js'
import type { CoverageReport, DailyReport, DielReport, MatrixReport, ReportName } from './activityReports.js'
import type { DensityReport } from './densityReport.js'
import { COLOURS } from './charts.js'

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

const classColour = { field: 'className', type: 'nominal', title: 'class' } as const

/** The chart of a report, titled `title`. */
export function reportChart(r: Report, title: string): TopLevelSpec {
  switch (r.report) {
    case 'diel':
      if (!r.rows.length) return empty(title, 'hour of the day (local time)', 'detections', 'detections')
      return {
        title,
        width: WIDTH,
        height: HEIGHT,
        data: { values: r.rows },
        mark: { type: 'line', point: true, interpolate: 'monotone' },
        encoding: {
          x: {
            field: 'hour',
            type: 'quantitative',
            title: 'hour of the day (local time)',
            scale: { domain: [0, 23] },
            axis: { tickCount: 24, values: Array.from({ length: 24 }, (_, h) => h) },
          },
          y: { field: 'detections', type: 'quantitative', title: 'detections', axis: { tickMinStep: 1 } },
          color: classColour,
        },
      }
    case 'daily':
      if (!r.rows.length) return empty(title, 'day', 'detections', 'detections')
      return {
        title,
        width: WIDTH,
        height: HEIGHT,
        data: { values: r.rows },
        mark: { type: 'bar' },
        encoding: {
          x: { field: 'date', type: 'temporal', timeUnit: 'utcyearmonthdate', title: 'day', axis: { format: '%d %b' } },
          y: { field: 'detections', type: 'quantitative', title: 'detections', stack: true, axis: { tickMinStep: 1 } },
          color: classColour,
        },
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
            header: { labelAngle: 0, labelAlign: 'left', labelFontSize: 13 },
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
        encoding: { y: { field: 'className', type: 'nominal', title: 'class' } },
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
