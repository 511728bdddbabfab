import {
  REPORTS,
  coverageReport,
  dailyReport,
  dielReport,
  matrixReport,
  parseLocalTime,
  type ReportFilter,
  type ReportName,
  type ReportScope,
} from '../analysis/activityReports.js'
import { accumulationReport } from '../analysis/accumulationReport.js'
import { chartSvg } from '../analysis/charts.js'
import { densityReport } from '../analysis/densityReport.js'
import { chartTitle, reportChart, type Report, type ReportCommon } from '../analysis/reportCharts.js'
import { csvText } from '../analysis/results.js'
import type { Context, Endpoint, Result } from '../http/endpoint.js'
import { badRequest, fieldError } from '../http/errors.js'
import type { Fields } from '../http/fields.js'
import { parseQuery } from '../http/query.js'
import type { Db } from './resource.js'
import { API } from './resource.js'
import { libraries } from './library.js'
import { projects } from './project.js'
import { tagSets } from './tagSet.js'

// GET {tagSet|library|project}/{id}/report/{diel|daily|accumulation|matrix|coverage|density}/ (extension,
// docs/decisions.md §34): the activity reports of a readable tag set, library or project, as JSON, with format=csv
// as a CSV table of their rows, or with format=svg as the chart `mas report -o` draws (README, "Activity reports").

const reportQuery: Fields = {
  minimumStrength: { type: 'float', description: 'count the tags of at least this strength (default: every tag)' },
  reviewed: {
    type: 'choice',
    choices: ['yes'],
    description:
      "yes: count only the tags whose reviewers' consensus is yes (not for density, which is estimated from the decisions)",
  },
  tz: {
    type: 'string',
    maxLength: 64,
    description:
      "the recordings' start times are in UTC: shift them by this offset (+02:00) or into this zone (Europe/Paris) to get the recorders' local time; default: start times are the local time as stored",
  },
  format: {
    type: 'choice',
    choices: ['json', 'csv', 'svg'],
    description: "json (default); csv: the rows as a CSV table; svg: the report's chart",
  },
}

type Scalar = string | number | null
interface Table {
  header: string[]
  rows: Scalar[][]
}

/** Each report: what computes it, its JSON body's schema (beside the common keys), and its rows as a table. */
interface ReportDef<R extends object = object> {
  run: (db: Db, scope: ReportScope, filter: ReportFilter) => Promise<R>
  description: string
  extra: Record<string, unknown>
  row: Record<string, unknown>
  table: (body: R) => Table
  /** the answer as the chart module takes it: the body with its name and filters */
  asReport: (body: R, common: ReportCommon) => Report
}
/** a report's declaration, its body's type checked against its table and then forgotten */
const report = <R extends object>(d: ReportDef<R>) => d as unknown as ReportDef

const int = { type: 'integer' }
const num = { type: 'number' }
const numOrNull = { type: ['number', 'null'] }
const str = { type: 'string' }
const undated = {
  undated: { ...int, description: 'detections on recordings without a start time, which no hour or day holds' },
}

const REPORT_DEFS: Record<ReportName, ReportDef> = {
  diel: report({
    run: dielReport,
    description:
      "Detections per hour of the recorders' local day (0–23) and class; every hour of a class present is listed.",
    extra: undated,
    row: { className: str, hour: int, detections: int },
    table: (b) => ({
      header: ['className', 'hour', 'detections'],
      rows: b.rows.map((r) => [r.className, r.hour, r.detections]),
    }),
    asReport: (b, c) => ({ ...c, ...b, report: 'diel' }),
  }),
  daily: report({
    run: dailyReport,
    description: 'Detections per local day and class.',
    extra: undated,
    row: { date: str, className: str, detections: int },
    table: (b) => ({
      header: ['date', 'className', 'detections'],
      rows: b.rows.map((r) => [r.date, r.className, r.detections]),
    }),
    asReport: (b, c) => ({ ...c, ...b, report: 'daily' }),
  }),
  accumulation: report({
    run: accumulationReport,
    description:
      'The classes detected up to each recording day (the days the recordings cover, and those with a detection).',
    extra: undated,
    row: { date: str, day: int, newClasses: { type: 'array', items: str }, classes: int },
    table: (b) => ({
      header: ['date', 'day', 'classes', 'newClasses'],
      rows: b.rows.map((r) => [r.date, r.day, r.classes, r.newClasses.join(';')]),
    }),
    asReport: (b, c) => ({ ...c, ...b, report: 'accumulation' }),
  }),
  matrix: report({
    run: matrixReport,
    description:
      "Detections per site, local day and class: a site is the recording's sensor, else its folder (`.` at the top).",
    extra: undated,
    row: { site: str, date: str, className: str, detections: int },
    table: (b) => ({
      header: ['site', 'date', 'className', 'detections'],
      rows: b.rows.map((r) => [r.site, r.date, r.className, r.detections]),
    }),
    asReport: (b, c) => ({ ...c, ...b, report: 'matrix' }),
  }),
  coverage: report({
    run: (db, scope, filter) => coverageReport(db, scope, filter),
    description:
      "Hours recorded per site and local day, from each recording's start time and duration, split across midnight.",
    extra: { totalHours: num, unplacedFiles: { ...int, description: 'recordings without a start time or duration' } },
    row: { site: str, date: str, hours: num },
    table: (b) => ({ header: ['site', 'date', 'hours'], rows: b.rows.map((r) => [r.site, r.date, r.hours]) }),
    asReport: (b, c) => ({ ...c, ...b, report: 'coverage' }),
  }),
  density: report({
    run: densityReport,
    description:
      'Call density per class: in each strength band (the strata of the review summary), the share of yes among the ' +
      "detections decided yes or no times the band's detections, with the Wilson 95% interval of the share times the detections; " +
      "a class's calls, low and high are the sums over its bands with decisions, callsPerHour its calls per recorded hour.",
    extra: { recordedHours: num },
    row: {
      className: str,
      detections: int,
      calls: numOrNull,
      low: numOrNull,
      high: numOrNull,
      unestimatedDetections: int,
      callsPerHour: numOrNull,
      strata: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            min: num,
            max: num,
            detections: int,
            yes: int,
            no: int,
            yesFraction: numOrNull,
            calls: numOrNull,
            low: numOrNull,
            high: numOrNull,
          },
        },
      },
    },
    table: (b) => ({
      header: [
        'className',
        'stratum',
        'detections',
        'yes',
        'no',
        'yesFraction',
        'calls',
        'low',
        'high',
        'callsPerHour',
      ],
      rows: b.rows.flatMap((r) => [
        ...r.strata.map((s): Scalar[] => [
          r.className,
          `${s.min}-${s.max}`,
          s.detections,
          s.yes,
          s.no,
          s.yesFraction,
          s.calls,
          s.low,
          s.high,
          null,
        ]),
        [r.className, 'all', r.detections, null, null, null, r.calls, r.low, r.high, r.callsPerHour],
      ]),
    }),
    asReport: (b, c) => ({ ...c, ...b, report: 'density' }),
  }),
}

const SCOPES = {
  tagSet: { def: tagSets, label: 'tag set' },
  library: { def: libraries, label: 'library' },
  project: { def: projects, label: 'project' },
} as const
type ScopeKind = keyof typeof SCOPES

/** The scope of the request: the record of the path, readable by the caller (404 else), and the tag sets it reads;
 * with its name for a chart's title (`tag set BirdNET`). */
async function scopeOf(ctx: Context, kind: ScopeKind): Promise<{ scope: ReportScope; name: string }> {
  const name = (record: { name: string }) => `${SCOPES[kind].label} ${record.name}`
  if (kind === 'tagSet') {
    const { row } = await ctx.services.records.fetch(ctx, tagSets, ctx.params.id, ['read'])
    return { scope: { kind, id: row.id, library: row.library_id }, name: name(row) }
  }
  const { row } =
    kind === 'library'
      ? await ctx.services.records.fetch(ctx, libraries, ctx.params.id, ['read'])
      : await ctx.services.records.fetch(ctx, projects, ctx.params.id, ['read'])
  const sets = await ctx.services.records.readable(ctx, tagSets).select('r.id').execute()
  return { scope: { kind, id: row.id, tagSets: sets.map((s) => (s as { id: number }).id) }, name: name(row) }
}

function reportEndpoint(kind: ScopeKind, name: ReportName): Endpoint {
  const def = REPORT_DEFS[name]
  return {
    path: `${API}/${kind}/:id/report/${name}/`,
    name: `${kind[0].toUpperCase()}${kind.slice(1)} Report (${name})`,
    description:
      `${def.description} Over the ${SCOPES[kind].label}'s tags${kind === 'tagSet' ? '' : ' (of the tag sets the caller reads)'}, ` +
      "of at least minimumStrength, or decided yes with reviewed=yes; local times are the recordings' start times as stored, or " +
      "shifted from UTC by tz. With format=csv, the rows as a CSV table; with format=svg, the report's chart (as mas report -o draws it).",
    methods: {
      GET: async (ctx): Promise<Result> => {
        const { scope, name: scopeName } = await scopeOf(ctx, kind)
        const q = parseQuery(ctx, reportQuery) as {
          minimumStrength?: number
          reviewed?: 'yes'
          tz?: string
          format?: 'json' | 'csv' | 'svg'
        }
        if (name === 'density' && q.reviewed) {
          throw fieldError(
            'reviewed',
            'Call density is estimated from the decisions on every detection: reviewed does not apply to it.',
          )
        }
        const localTime = await parseLocalTime(ctx.db, q.tz)
        if (!localTime)
          throw badRequest({
            tz: ['Enter an offset from UTC such as +02:00, or a time zone name such as Europe/Paris.'],
          })
        const result = await def.run(ctx.db, scope, {
          minimumStrength: q.minimumStrength,
          reviewedYes: q.reviewed === 'yes',
          localTime,
        })
        const common: ReportCommon = {
          minimumStrength: q.minimumStrength ?? null,
          reviewed: q.reviewed ?? null,
          tz: q.tz ?? null,
        }
        if (q.format === 'svg') {
          const r = def.asReport(result, common)
          return {
            // the chart is a picture, never a page of this site, whatever a class's name holds
            headers: {
              'content-type': 'image/svg+xml',
              'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
            },
            body: await chartSvg(reportChart(r, chartTitle(r, scopeName))),
          }
        }
        if (q.format === 'csv') {
          const t = def.table(result)
          return {
            headers: { 'content-type': 'text/csv; charset=utf-8' },
            body: csvText(
              t.header,
              t.rows.map((r) => r.map((v) => v ?? '')),
            ),
          }
        }
        return {
          body: { report: name, [kind]: scope.id, ...common, ...result },
        }
      },
    },
    doc: {
      keys: [kind],
      actions: { GET: `report_${name}` },
      list: false,
      filters: reportQuery,
      success: {
        GET: [
          {
            status: 200,
            description: `The ${name} report, with format=csv its rows as CSV, with format=svg its chart`,
            also: ['text/csv', 'image/svg+xml'],
            body: {
              type: 'object',
              required: ['report', kind, 'minimumStrength', 'reviewed', 'tz', 'rows', ...Object.keys(def.extra)],
              properties: {
                report: { enum: [name] },
                [kind]: int,
                minimumStrength: numOrNull,
                reviewed: { type: ['string', 'null'] },
                tz: { type: ['string', 'null'] },
                ...def.extra,
                rows: { type: 'array', items: { type: 'object', required: Object.keys(def.row), properties: def.row } },
              },
            },
          },
        ],
      },
    },
  }
}

export const endpoints = (): Endpoint[] =>
  (Object.keys(SCOPES) as ScopeKind[]).flatMap((kind) => REPORTS.map((name) => reportEndpoint(kind, name)))
