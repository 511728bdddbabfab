import { writeFileSync } from 'node:fs'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { REPORTS } from '../../server/analysis/activityReports.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { makeTagSet } from '../helpers/records.js'
import { makeSeason, type Season } from '../helpers/season.js'
import { openPage, type Page } from './chromium.js'
import { logInOnReviewPage } from './reviewLogin.js'

// The review page's reports in headless Chromium: a person opens the Reports section below the queue, picks a
// chart and sets the filters with the mouse and the keyboard, and sees the chart the server draws for
// `…/report/{name}/?format=svg` (the chart of `mas report -o`), the same SVG; while open, decisions made on the
// queue redraw it; an empty tag set's chart says there is nothing to show; on a phone the chart scrolls in its box. MAS_REPORTS_SCREENSHOT names a file for a
// screenshot of the page (and, beside it, -phone.png).

let t: TestApp
let origin: string
let page: Page | undefined
let owner: TestUser
let s: Season

test.before(async () => {
  t = await testApp()
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' })
  owner = await t.user('rc-owner')
  s = await makeSeason(t.db, owner, [owner, await t.user('rc-second'), await t.user('rc-third')], 'rc')
})

test.after(async () => {
  await page?.close()
  await t?.close()
})

const CHART = `document.querySelector('mas-report-charts .chart img')`
/** the chart shown is report `name`'s, loaded and drawn */
const drawn = (name: string) =>
  `${CHART}?.dataset.report === '${name}' && ${CHART}.complete && ${CHART}.naturalWidth > 0`
/** an SVG of vega's with its gradients and clip paths numbered from 0 (vega numbers them on across a process) */
const numbered = (svg: string) => {
  const ids = new Map<string, string>()
  return svg.replace(
    /\b(gradient_|clip)\d+\b/g,
    (id, kind: string) => ids.get(id) ?? ids.set(id, `${kind}${ids.size}`).get(id)!,
  )
}
/** the SVG text the page shows (its image's bytes) */
const shownSvg = async (p: Page) => numbered(await p.evaluate<string>(`fetch(${CHART}.src).then((r) => r.text())`))
/** the SVG the API answers the owner for `query` */
async function apiSvg(tagSet: number, name: string, query = '') {
  const res = await t.call('GET', `/api/v0/tagSet/${tagSet}/report/${name}/?format=svg${query}`, { as: owner })
  assert.is(res.statusCode, 200, res.body)
  return numbered(res.body)
}
/** waits until the chart shown is `what` (a chart asked for is shown once its answer is in) */
async function waitForChart(p: Page, is: (svg: string) => boolean, what: string, ms = 30_000) {
  const until = Date.now() + ms
  while (!is(await shownSvg(p))) {
    if (Date.now() > until) throw new Error(`waited ${ms / 1000} s for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}
/** The page shows `expected` (said briefly when not: an SVG is long), drawn as an image of its size. */
async function showsChart(p: Page, expected: string, what: string) {
  const shown = await shownSvg(p)
  let i = 0
  while (i < shown.length && shown[i] === expected[i]) i++
  assert.ok(
    shown === expected,
    `${what}: the page's chart differs from the API's at ${i}: ${shown.slice(i, i + 80)} | ${expected.slice(i, i + 80)}`,
  )
  const size = await p.evaluate<number[]>(
    `${CHART}.decode().then(() => [${CHART}.naturalWidth, ${CHART}.naturalHeight])`,
  )
  const [, width, height] = /^<svg [^>]*width="(\d+)" height="(\d+)"/.exec(expected) ?? []
  assert.equal(size, [Number(width), Number(height)], `${what}: the image drawn`)
  assert.ok(size[0] > 0)
}

/** the centre of the element `selector`, scrolled into view, in the viewport's pixels */
async function centreOf(p: Page, selector: string): Promise<{ x: number; y: number }> {
  return p.evaluate(`(() => {
    const e = document.querySelector(${JSON.stringify(selector)})
    e.scrollIntoView({ block: 'center' })
    const r = e.getBoundingClientRect()
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 }
  })()`)
}

async function openReports(p: Page) {
  await p.waitFor(
    `document.querySelector('mas-report-charts summary') && document.querySelector('table.summary')`,
    'the page with its reports section',
  )
  assert.is(
    await p.evaluate<boolean>(`document.querySelector('mas-report-charts details').open`),
    false,
    'the reports start closed',
  )
  const at = await centreOf(p, 'mas-report-charts summary')
  await p.click(at.x, at.y)
  await p.waitFor(`document.querySelector('mas-report-charts details').open`, 'the reports opened')
}

test('open the reports, pick a chart and filters: the page shows the chart the API draws', async () => {
  page = await openPage(`${origin}/review/?tagSet=${s.tagSet}`, { width: 1280, height: 1000 })
  await logInOnReviewPage(page, owner)
  await openReports(page)
  // the menu offers the server's reports, the first (diel) drawn on opening
  assert.equal(
    await page.evaluate<string[]>(
      `[...document.querySelectorAll('mas-report-charts select option')].map((o) => o.value)`,
    ),
    [...REPORTS],
  )
  await page.waitFor(drawn('diel'), 'the diel chart')
  await showsChart(page, await apiSvg(s.tagSet, 'diel'), 'the diel chart')

  // the matrix, picked with the keyboard
  await page.evaluate(`document.querySelector('mas-report-charts select').focus()`)
  for (let i = 0; i < 3; i++) await page.press('ArrowDown')
  await page.waitFor(drawn('matrix'), 'the matrix chart')
  await showsChart(page, await apiSvg(s.tagSet, 'matrix'), 'the matrix chart')

  // a strength threshold typed, then the reviewed-only box clicked
  await page.evaluate(`document.querySelector('mas-report-charts input[type=number]').focus()`)
  for (const key of '0.9') await page.press(key)
  const box = await centreOf(page, 'mas-report-charts input[type=checkbox]')
  await page.click(box.x, box.y)
  await page.waitFor(
    `${drawn('matrix')} && document.querySelector('mas-report-charts input[type=checkbox]').checked`,
    'the box checked',
  )
  await waitForChart(page, (svg) => svg.includes('(strength ≥ 0.9, reviewed yes)'), 'the chart of the filters')
  await page.waitFor(drawn('matrix'), 'the filtered matrix drawn')
  const filtered = await apiSvg(s.tagSet, 'matrix', '&minimumStrength=0.9&reviewed=yes')
  await showsChart(page, filtered, 'the filtered matrix')
  // the chart alone, to zoom: the API's answer, sandboxed
  const alone = await page.evaluate<string[]>(`fetch(document.querySelector('mas-report-charts a').href)
    .then((r) => [r.headers.get('content-type'), r.headers.get('content-security-policy'), new URL(r.url).search])`)
  assert.equal(alone, [
    'image/svg+xml',
    "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    '?format=svg&minimumStrength=0.9&reviewed=yes',
  ])
  if (process.env.MAS_REPORTS_SCREENSHOT) {
    await page.evaluate('scrollTo(0, 0)')
    writeFileSync(process.env.MAS_REPORTS_SCREENSHOT, await page.screenshot(1000))
  }

  // density is estimated from every decision: reviewed-only does not apply, and its box says so by being disabled
  await page.evaluate(`document.querySelector('mas-report-charts select').focus()`)
  for (let i = 0; i < 2; i++) await page.press('ArrowDown')
  await page.waitFor(drawn('density'), 'the density chart')
  assert.is(
    await page.evaluate<boolean>(`document.querySelector('mas-report-charts input[type=checkbox]').disabled`),
    true,
  )
  await showsChart(page, await apiSvg(s.tagSet, 'density', '&minimumStrength=0.9'), 'the density chart')
  assert.is(await page.evaluate<string>(`document.querySelector('mas-report-charts .error').textContent`), '')

  // decisions made on the queue's clips while the reports are open: the chart is drawn again from them
  const before = await shownSvg(page)
  const queued = await page.evaluate<number>(`document.querySelectorAll('mas-review-clip').length`)
  assert.ok(queued > 0, 'the queue holds the tags the owner has not decided')
  for (let i = 0; i < queued; i++) {
    const yes = await centreOf(page, `mas-review-clip:nth-of-type(${i + 1}) .clip-actions button[title^="yes"]`)
    await page.click(yes.x, yes.y)
    await page.waitFor(
      `document.querySelectorAll('mas-review-clip[decision=yes]').length === ${i + 1}`,
      `decision ${i + 1} shown`,
      10_000,
    )
  }
  const after = await apiSvg(s.tagSet, 'density', '&minimumStrength=0.9')
  assert.ok(after !== before, 'the decisions change the density estimate')
  await waitForChart(page, (svg) => svg === after, 'the chart drawn again')
  await showsChart(page, after, 'the density chart after the decisions')
})

test("an empty tag set's chart is drawn, saying there is nothing to show", async () => {
  assert.ok(page, 'the first test logged in')
  const empty = await makeTagSet(t.db, owner, null, 'rc-empty')
  await page!.evaluate(
    `document.documentElement.dataset.left = '1'; setTimeout(() => location.assign('/review/?tagSet=${empty}'))`,
  )
  await page!.waitFor(
    `!document.documentElement?.dataset.left && document.querySelector('mas-report-charts summary')`,
    "the empty tag set's page",
  )
  await openReports(page!)
  await page!.waitFor(drawn('diel'), 'the empty diel chart')
  const svg = await shownSvg(page!)
  assert.match(svg, 'No detections to show')
  await showsChart(page!, await apiSvg(empty, 'diel'), 'the empty diel chart')
})

test("on a phone 390 px wide the chart scrolls in its box: the page keeps the phone's width", async () => {
  // tall enough to show the chart below the queue and the summary in a screenshot
  const phone = await openPage(`${origin}/review/?tagSet=${s.tagSet}`, { width: 390, height: 2000, mobile: true })
  try {
    await logInOnReviewPage(phone, owner)
    await openReports(phone)
    await phone.waitFor(drawn('diel'), 'the diel chart')
    const box = await phone.evaluate<{ page: number; box: number; chart: number; right: number }>(`(() => {
      const box = document.querySelector('mas-report-charts .chart')
      return { page: document.documentElement.scrollWidth, box: box.clientWidth, chart: box.scrollWidth, right: box.getBoundingClientRect().right }
    })()`)
    assert.is(box.page, 390)
    assert.ok(box.right <= 390, `the chart's box ends at ${box.right}`)
    assert.ok(box.chart > box.box, `the chart keeps its size (${box.chart} px) in its box of ${box.box} px`)
    if (process.env.MAS_REPORTS_SCREENSHOT) {
      await phone.evaluate('scrollTo(0, 0)')
      writeFileSync(process.env.MAS_REPORTS_SCREENSHOT.replace(/(\.png)?$/, '-phone.png'), await phone.screenshot(2000))
    }
  } finally {
    await phone.close()
  }
})

test.run()
