import type { TopLevelSpec } from 'vega-lite'
import { COLOURS } from './charts.js'

// The activity reports as the server answers them (GET …/report/{name}/, docs/decisions.md §34), and the
// Vega-Lite chart of each (`mas report … -o CHART.png`). An empty report is still a chart: its axes, its title and
// a line saying there is nothing to show.

export const REPORT_NAMES = ['diel', 'daily', 'accumulation', 'matrix', 'coverage', 'density'] as const
export type ReportName = typeof REPORT_NAMES[number]

export interface DielRow { className: string; hour: number; detections: number }
export interface DailyRow { date: string; className: string; detections: number }
export interface AccumulationRow { date: string; day: number; newClasses: string[]; classes: number }
export interface MatrixRow { site: string; date: string; className: string; detections: number }
export interface CoverageRow { site: string; date: string; hours: number }
export interface DensityStratum {
  min: number; max: number; detections: number; yes: number; no: number
  yesFraction: number | null; calls: number | null; low: number | null; high: number | null
}
export interface DensityRow {
  className: string; detections: number; calls: number | null; low: number | null; high: number | null
  unestimatedDetections: number; callsPerHour: number | null; strata: DensityStratum[]
}

interface Common { minimumStrength: number | null; reviewed: 'yes' | null; tz: string | null }
export type Report =
  | Common & { report: 'diel'; rows: DielRow[]; undated: number }
  | Common & { report: 'daily'; rows: DailyRow[]; undated: number }
  | Common & { report: 'accumulation'; rows: AccumulationRow[]; undated: number }
  | Common & { report: 'matrix'; rows: MatrixRow[]; undated: number }
  | Common & { report: 'coverage'; rows: CoverageRow[]; totalHours: number; unplacedFiles: number }
  | Common & { report: 'density'; rows: DensityRow[]; recordedHours: number }

const WIDTH = 640
const HEIGHT = 320

/** a chart with nothing to draw: its title and a line saying so, on an empty plot of the report's axes */
function empty(title: string, x: string, y: string, what: string): TopLevelSpec {
  return {
    title, width: WIDTH, height: HEIGHT,
    data: { values: [{ x: 0, y: 0, text: `No ${what} to show` }] },
    layer: [
      { mark: { type: 'point', opacity: 0 }, encoding: { x: { field: 'x', type: 'quantitative', title: x, scale: { domain: [0, 1] }, axis: { labels: false, ticks: false, grid: false } }, y: { field: 'y', type: 'quantitative', title: y, scale: { domain: [0, 1] }, axis: { labels: false, ticks: false, grid: false } } } },
      { mark: { type: 'text', fontSize: 16, color: '#666666' }, encoding: { x: { datum: 0.5, type: 'quantitative' }, y: { datum: 0.5, type: 'quantitative' }, text: { field: 'text' } } },
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
        title, width: WIDTH, height: HEIGHT, data: { values: r.rows },
        mark: { type: 'line', point: true, interpolate: 'monotone' },
        encoding: {
          x: { field: 'hour', type: 'quantitative', title: 'hour of the day (local time)', scale: { domain: [0, 23] }, axis: { tickCount: 24, values: Array.from({ length: 24 }, (_, h) => h) } },
          y: { field: 'detections', type: 'quantitative', title: 'detections', axis: { tickMinStep: 1 } },
          color: classColour,
        },
      }
    case 'daily':
      if (!r.rows.length) return empty(title, 'day', 'detections', 'detections')
      return {
        title, width: WIDTH, height: HEIGHT, data: { values: r.rows },
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
        title, width: WIDTH, height: HEIGHT, data: { values: r.rows },
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
        title, data: { values: r.rows },
        facet: { row: { field: 'className', type: 'nominal', title: null, header: { labelAngle: 0, labelAlign: 'left', labelFontSize: 13 } } },
        spec: {
          width: { step: 22 }, height: { step: 22 }, mark: { type: 'rect' },
          encoding: {
            x: { field: 'date', type: 'ordinal', title: 'day', axis: DAY_AXIS }, y: { field: 'site', type: 'nominal', title: 'site' },
            color: { field: 'detections', type: 'quantitative', title: 'detections', scale: { scheme: 'viridis' } },
          },
        },
      }
    case 'coverage':
      if (!r.rows.length) return empty(title, 'day', 'site', 'recorded hours')
      return {
        title, width: { step: 22 }, height: { step: 22 }, data: { values: r.rows },
        mark: { type: 'rect' },
        encoding: {
          x: { field: 'date', type: 'ordinal', title: 'day', axis: DAY_AXIS }, y: { field: 'site', type: 'nominal', title: 'site' },
          color: { field: 'hours', type: 'quantitative', title: 'hours recorded', scale: { scheme: 'blues', domain: [0, 24] } },
        },
      }
    case 'density': {
      const rows = r.rows.filter((d) => d.calls !== null)
      if (!rows.length) return empty(title, 'estimated calls', 'class', 'estimates (no detections decided yes or no)')
      return {
        title, width: WIDTH, height: { step: 26 }, data: { values: rows },
        encoding: { y: { field: 'className', type: 'nominal', title: 'class' } },
        layer: [
          { mark: { type: 'bar', color: '#56B4E9' }, encoding: { x: { field: 'calls', type: 'quantitative', title: 'estimated calls (95% interval)' } } },
          { mark: { type: 'rule', strokeWidth: 2 }, encoding: { x: { field: 'low', type: 'quantitative' }, x2: { field: 'high' } } },
          { mark: { type: 'tick', thickness: 2 }, encoding: { x: { field: 'low', type: 'quantitative' } } },
          { mark: { type: 'tick', thickness: 2 }, encoding: { x: { field: 'high', type: 'quantitative' } } },
        ],
      }
    }
  }
}
