import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { chartSvg, classColours, COLOURS, MANY_COLOURS, OTHER_COLOUR } from '../../../server/analysis/charts.js'
import { reportChart, type Report } from '../../../server/analysis/reportCharts.js'
import type { DailyRow, DielRow } from '../../../server/analysis/activityReports.js'
import { CLASS_NAMES as NAMES } from '../../helpers/classNames.js'

// The report charts' specifications (server/analysis/reportCharts.ts) and their SVG (server/analysis/charts.ts), as
// a reader sees them: a colour for one class only, names whole in the legend and on the class axis, one label per
// day on the daily chart.

const common = { minimumStrength: null, reviewed: null, tz: null, undated: 0 }
/** `n` classes over 24 hours, the first the most detected */
const diel = (n: number): Report => ({
  ...common,
  report: 'diel',
  rows: NAMES.slice(0, n).flatMap((className, i) =>
    Array.from({ length: 24 }, (_, hour): DielRow => ({ className, hour, detections: (n - i) * ((hour % 3) + 1) })),
  ),
})
const daily = (dates: string[], n = 2): Report => ({
  ...common,
  report: 'daily',
  rows: dates.flatMap((date, k) =>
    NAMES.slice(0, n).map((className, i): DailyRow => ({ date, className, detections: (n - i) * (k + 1) })),
  ),
})

interface Colour {
  field: string
  sort: string[]
  scale: { domain: string[]; range: string[] }
}
/** the colour encoding and the rows of a chart coloured by class */
function coloured(r: Report) {
  const spec = reportChart(r, 'chart') as unknown as {
    data: { values: Array<{ className: string; detections: number; hour?: number; date?: string }> }
    encoding: { color: Colour }
  }
  return { color: spec.encoding.color, values: spec.data.values }
}

/** the texts of an SVG's <text> elements */
const textsOf = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])

test("up to 8 classes take Okabe and Ito's colours; up to 18, a colour each of 18", () => {
  const few = coloured(diel(5)).color
  assert.equal(few.scale.domain, [...NAMES.slice(0, 5)].sort())
  assert.equal(few.scale.range, COLOURS.slice(0, 5))
  for (const r of [diel(14), daily(['2026-06-01', '2026-06-02'], 14), diel(18)]) {
    const { color, values } = coloured(r)
    const classes = new Set(values.map((v) => v.className))
    assert.equal(color.scale.domain, [...classes].sort(), `${r.report}: every class in the scale, by name`)
    assert.is(new Set(color.scale.range).size, classes.size, `${r.report}: ${classes.size} classes, as many colours`)
    assert.equal(color.sort, color.scale.domain, 'the legend and the stacks in the order of the colours')
    assert.ok(color.scale.range.every((c) => MANY_COLOURS.includes(c) && c !== OTHER_COLOUR))
  }
})

test('more than 18 classes: the 17 most detected keep a colour each, the others are one grey "N other classes"', () => {
  const r = diel(24)
  const { color, values } = coloured(r)
  assert.is(color.scale.domain.length, 18)
  assert.equal(color.scale.domain.slice(0, 17), [...NAMES.slice(0, 17)].sort())
  assert.is(color.scale.domain[17], '7 other classes')
  assert.equal(color.scale.range, [...MANY_COLOURS.slice(0, 17), OTHER_COLOUR])
  assert.is(new Set(color.scale.range).size, 18)
  // the grouped classes' detections are summed per hour: each hour's total is the report's
  assert.is(values.filter((v) => v.className === '7 other classes').length, 24)
  for (let hour = 0; hour < 24; hour++) {
    const sum = (rows: Array<{ hour?: number; detections: number }>) =>
      rows.filter((v) => v.hour === hour).reduce((n, v) => n + v.detections, 0)
    assert.is(sum(values), sum(r.rows as DielRow[]), `hour ${hour}`)
  }
  // the daily chart of the same classes groups the same ones, with the same colours
  const day = coloured(daily(['2026-06-01', '2026-06-02'], 24)).color
  assert.equal(day.scale, color.scale)
})

test('classColours: ties of count go by name, and each class of a chart is in it once', () => {
  const counts = new Map(NAMES.map((n) => [n, 1]))
  const c = classColours(counts)
  assert.is(c.classes.length, 18)
  assert.is(c.grouped.size, NAMES.length - 17)
  assert.equal(c.classes.slice(0, 17), [...NAMES].sort().slice(0, 17))
  assert.ok([...c.grouped].every((n) => !c.classes.includes(n)))
})

test('legend labels and the class axis show names of up to 30 characters whole', async () => {
  const long = 'Dendrocopos major (drumming) 2' // 30 characters
  const r: Report = {
    ...common,
    report: 'diel',
    rows: [long, 'Phylloscopus collybita', 'Eurasian Blackbird'].flatMap((className) =>
      Array.from({ length: 24 }, (_, hour) => ({ className, hour, detections: 1 })),
    ),
  }
  const texts = textsOf(await chartSvg(reportChart(r, 'diel')))
  for (const name of [long, 'Phylloscopus collybita', 'Eurasian Blackbird']) assert.ok(texts.includes(name), name)
  assert.not.ok(
    texts.some((x) => x.includes('…')),
    texts.join(' | '),
  )
  const density: Report = {
    minimumStrength: null,
    reviewed: null,
    tz: null,
    report: 'density',
    recordedHours: 1,
    rows: [
      {
        className: long,
        detections: 4,
        calls: 2,
        low: 1,
        high: 3,
        unestimatedDetections: 0,
        callsPerHour: 2,
        strata: [],
      },
    ],
  }
  const densityTexts = textsOf(await chartSvg(reportChart(density, 'density')))
  assert.ok(densityTexts.includes(long), densityTexts.join(' | '))
})

test("the matrix names each class above its own rows, from their left edge, whatever the name's length", async () => {
  const names = ['Sylvia', 'Phylloscopus collybita (song)']
  const r: Report = {
    ...common,
    report: 'matrix',
    rows: names.flatMap((className) =>
      ['siteA', 'siteB'].map((site) => ({ className, site, date: '2025-06-01', detections: 2 })),
    ),
  }
  const svg = await chartSvg(reportChart(r, 'matrix'))
  // each name is the title of its row's cell group: placed by that group's translate, anchored at its start
  const placed = names.map((name) => {
    const m = svg.match(
      new RegExp(
        `<g transform="translate\\(([^)]*)\\)">(?:(?!<g transform).)*?<text text-anchor="([a-z]+)"[^>]*>${name.replace(/[()]/g, '\\$&')}</text>`,
        's',
      ),
    )
    assert.ok(m, name)
    return [m![1], m![2]]
  })
  assert.equal(placed[0], placed[1])
  assert.is(placed[0][1], 'start')
  assert.ok(Number(placed[0][0].split(',')[1]) < 0, `above the rows: ${placed[0][0]}`)
})

/** the x axis labels of a daily chart's SVG: those of the day format, in order */
const dayLabels = async (r: Report) =>
  textsOf(await chartSvg(reportChart(r, 'daily'))).filter((x) => /^\d\d [A-Z][a-z]{2}( \d{4})?$/.test(x))

test('the daily chart labels each day once, days without detections included, and no day outside them', async () => {
  assert.equal(await dayLabels(daily(['2026-06-01', '2026-06-02'])), ['01 Jun', '02 Jun'])
  assert.equal(await dayLabels(daily(['2026-06-02'])), ['02 Jun'])
  assert.equal(await dayLabels(daily(['2026-05-31', '2026-06-03'])), ['31 May', '01 Jun', '02 Jun', '03 Jun'])
  assert.equal(await dayLabels(daily(['2025-12-31', '2026-01-01'])), ['31 Dec 2025', '01 Jan 2026'])
  // a season: fewer labels than days, each once, from the first day, none after the last
  const season = Array.from({ length: 60 }, (_, i) => new Date(Date.UTC(2026, 4, 1 + i)).toISOString().slice(0, 10))
  const labels = await dayLabels(daily(season))
  assert.ok(labels.length >= 20 && labels.length <= 30, labels.join(' '))
  assert.is(new Set(labels).size, labels.length, labels.join(' '))
  assert.is(labels[0], '01 May')
  assert.ok(
    labels.every((l) => /May|Jun/.test(l)),
    labels.join(' '),
  )
  assert.not.ok(labels.includes('30 Jun'), 'the day after the last is not labelled')
})

test('the diel chart joins the hours by straight lines: no smoothed bump between two hours that counted nothing there', () => {
  const spec = reportChart(diel(2), 'chart') as unknown as { mark: { type: string; interpolate: string } }
  assert.is(spec.mark.type, 'line')
  assert.is(spec.mark.interpolate, 'linear')
})

test.run()
