import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { REPORTS } from '../../../server/analysis/activityReports.js'
import { wilson } from '../../../server/analysis/reviews.js'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeTag, makeTagSet } from '../../helpers/records.js'
import { makeSeason, type Season } from '../../helpers/season.js'

// GET {tagSet|library|project}/{id}/report/{…}/: the activity reports of a constructed season
// (test/helpers/season.ts) whose answers are known, as JSON, CSV and charts (SVG), over the three scopes.

const API = '/api/v0'
const t = suiteApp(test)
let owner: TestUser
let stranger: TestUser
let s: Season

test.before(async () => {
  owner = await t.user('rp-owner')
  stranger = await t.user('rp-stranger')
  s = await makeSeason(t.db, owner, [owner, await t.user('rp-second'), await t.user('rp-third')], 'rp')
})

async function report(path: string, as: TestUser = owner) {
  const res = await t.call('GET', `${API}/${path}`, { as })
  assert.is(res.statusCode, 200, `${path}: ${JSON.stringify(res.data)}`)
  return res.data
}
const near = (a: number | null, b: number, what: string) =>
  assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${what}: ${a} is not ${b}`)
/** the hours of a class with detections, as hour → detections */
const hoursOf = (rows: Array<{ className: string; hour: number; detections: number }>, className: string) =>
  Object.fromEntries(
    rows.filter((r) => r.className === className && r.detections > 0).map((r) => [r.hour, r.detections]),
  )

test('diel: detections per hour of the local day and class, every hour listed; minimumStrength, reviewed=yes and tz', async () => {
  const all = await report(`tagSet/${s.tagSet}/report/diel/`)
  assert.equal(
    [all.report, all.tagSet, all.minimumStrength, all.reviewed, all.tz, all.undated],
    ['diel', s.tagSet, null, null, null, 1],
  )
  assert.is(all.rows.length, 48)
  assert.equal(all.rows.slice(0, 2), [
    { className: 'robin', hour: 0, detections: 1 },
    { className: 'robin', hour: 1, detections: 0 },
  ])
  assert.equal(hoursOf(all.rows, 'robin'), { 0: 1, 5: 1, 22: 1 })
  assert.equal(hoursOf(all.rows, 'wren'), { 0: 1, 5: 1, 6: 1 })

  const strong = await report(`tagSet/${s.tagSet}/report/diel/?minimumStrength=0.9`)
  assert.equal(
    [hoursOf(strong.rows, 'robin'), hoursOf(strong.rows, 'wren'), strong.undated, strong.minimumStrength],
    [{ 5: 1, 22: 1 }, { 5: 1, 6: 1 }, 1, 0.9],
  )

  const yes = await report(`tagSet/${s.tagSet}/report/diel/?reviewed=yes`)
  assert.equal(
    [hoursOf(yes.rows, 'robin'), hoursOf(yes.rows, 'wren'), yes.undated, yes.reviewed],
    [{ 22: 1 }, { 5: 1, 6: 1 }, 0, 'yes'],
  )

  // stored in UTC, two hours east: 22:10 is 00:10 the next day
  const east = await report(`tagSet/${s.tagSet}/report/diel/?tz=%2B02:00`)
  assert.equal([hoursOf(east.rows, 'robin'), east.tz], [{ 0: 1, 2: 1, 7: 1 }, '+02:00'])
  // Z, as the exports' --utc-offset takes it, is UTC: the hours as stored
  const utc = await report(`tagSet/${s.tagSet}/report/diel/?tz=Z`)
  assert.equal(
    [hoursOf(utc.rows, 'robin'), hoursOf(utc.rows, 'robin')],
    [
      hoursOf((await report(`tagSet/${s.tagSet}/report/diel/`)).rows, 'robin'),
      hoursOf((await report(`tagSet/${s.tagSet}/report/diel/?tz=%2B00:00`)).rows, 'robin'),
    ],
  )
  const zone = await report(`tagSet/${s.tagSet}/report/diel/?tz=America/New_York`)
  assert.equal(hoursOf(zone.rows, 'robin'), { 18: 1, 20: 1, 1: 1 }, 'UTC−4 in May')
})

test('daily, matrix and accumulation', async () => {
  const daily = await report(`tagSet/${s.tagSet}/report/daily/`)
  assert.equal(daily.rows, [
    { date: '2026-05-01', className: 'robin', detections: 1 },
    { date: '2026-05-02', className: 'robin', detections: 2 },
    { date: '2026-05-02', className: 'wren', detections: 2 },
    { date: '2026-05-03', className: 'wren', detections: 1 },
  ])
  assert.is(daily.undated, 1)

  const matrix = await report(`tagSet/${s.tagSet}/report/matrix/`)
  assert.equal(
    matrix.rows.map((r: any) => [r.className, r.site, r.date, r.detections]),
    [
      ['robin', 'north', '2026-05-01', 1],
      ['robin', 'north', '2026-05-02', 1],
      ['robin', 'south', '2026-05-02', 1],
      ['wren', 'north', '2026-05-02', 1],
      ['wren', 'siteC', '2026-05-03', 1],
      ['wren', 'south', '2026-05-02', 1],
    ],
  )

  const acc = await report(`tagSet/${s.tagSet}/report/accumulation/`)
  assert.equal(acc.rows, [
    { date: '2026-05-01', day: 1, newClasses: ['robin'], classes: 1 },
    { date: '2026-05-02', day: 2, newClasses: ['wren'], classes: 2 },
    { date: '2026-05-03', day: 3, newClasses: [], classes: 2 },
  ])
  const yes = await report(`tagSet/${s.tagSet}/report/accumulation/?reviewed=yes`)
  assert.equal(
    yes.rows.map((r: any) => [r.date, r.newClasses, r.classes]),
    [
      ['2026-05-01', ['robin'], 1],
      ['2026-05-02', ['wren'], 2],
      ['2026-05-03', [], 2],
    ],
  )
  const none = await report(`tagSet/${s.tagSet}/report/accumulation/?minimumStrength=2`)
  assert.equal(
    none.rows.map((r: any) => r.classes),
    [0, 0, 0],
    'recording days without detections are still days',
  )
})

test('coverage: hours recorded per site and day, split across midnight; files without a time counted apart', async () => {
  const c = await report(`tagSet/${s.tagSet}/report/coverage/`)
  assert.equal(c.rows, [
    { site: 'north', date: '2026-05-01', hours: 2 },
    { site: 'north', date: '2026-05-02', hours: 2 },
    { site: 'siteC', date: '2026-05-03', hours: 0.5 },
    { site: 'south', date: '2026-05-02', hours: 1 },
  ])
  assert.equal([c.totalHours, c.unplacedFiles], [5.5, 1])
  const east = await report(`library/${s.library}/report/coverage/?tz=%2B02:00`)
  assert.equal(east.rows.slice(0, 1), [{ site: 'north', date: '2026-05-02', hours: 4 }])
})

test('density: per strength stratum, yes-fraction × detections with its Wilson interval, summed per class', async () => {
  const d = await report(`tagSet/${s.tagSet}/report/density/`)
  near(d.recordedHours, 5.5, 'recorded hours')
  const [robin, wren] = d.rows
  assert.equal([robin.className, robin.detections, robin.calls, robin.unestimatedDetections], ['robin', 4, 1.5, 1])
  assert.equal(
    robin.strata.map((x: any) => [x.min, x.max, x.detections, x.yes, x.no, x.yesFraction, x.calls]),
    [
      [0.8, 0.9, 1, 0, 0, null, null],
      [0.9, 1, 3, 1, 1, 0.5, 1.5],
    ],
  )
  const half = wilson(1, 2)!
  near(robin.low, half.low * 3, 'robin low')
  near(robin.high, half.high * 3, 'robin high')
  near(robin.callsPerHour, 1.5 / 5.5, 'robin per hour')
  assert.equal([wren.className, wren.detections, wren.calls, wren.unestimatedDetections], ['wren', 3, 2, 0])
  near(wren.low, wilson(0, 1)!.low + wilson(2, 2)!.low * 2, 'wren low')
  near(wren.high, wilson(0, 1)!.high + wilson(2, 2)!.high * 2, 'wren high')

  const strong = await report(`tagSet/${s.tagSet}/report/density/?minimumStrength=0.9`)
  assert.equal(
    strong.rows.map((r: any) => [r.className, r.detections, r.calls]),
    [
      ['robin', 3, 1.5],
      ['wren', 2, 2],
    ],
  )
  // a threshold inside a stratum: its tags and decisions of at least the threshold (robin 0.92, decided no, is out)
  const within = await report(`tagSet/${s.tagSet}/report/density/?minimumStrength=0.93`)
  assert.equal(
    within.rows.map((r: any) => [
      r.className,
      r.detections,
      r.calls,
      r.strata.map((x: any) => [x.min, x.detections, x.yes, x.no]),
    ]),
    [
      ['robin', 2, 2, [[0.9, 2, 1, 0]]],
      ['wren', 1, 1, [[0.9, 1, 1, 0]]],
    ],
  )
  // the library's: the same tags, and the other tag set's robin at 0.5, undecided
  const library = await report(`library/${s.library}/report/density/`)
  assert.equal(
    library.rows.map((r: any) => [r.className, r.detections, r.calls, r.unestimatedDetections]),
    [
      ['robin', 5, 1.5, 2],
      ['wren', 3, 2, 0],
    ],
  )
})

test("library and project scopes: the tags of every tag set read, on the scope's recordings", async () => {
  const lib = await report(`library/${s.library}/report/daily/`)
  assert.equal(
    [lib.library, lib.rows.find((r: any) => r.date === '2026-05-02' && r.className === 'robin').detections],
    [s.library, 3],
  )
  const project = await report(`project/${s.project}/report/daily/`)
  assert.equal(project.rows, [
    { date: '2026-05-02', className: 'robin', detections: 2 },
    { date: '2026-05-02', className: 'wren', detections: 1 },
    { date: '2026-05-03', className: 'wren', detections: 1 },
  ])
  const coverage = await report(`project/${s.project}/report/coverage/`)
  assert.equal([coverage.totalHours, coverage.unplacedFiles], [1.5, 0])
  const density = await report(`project/${s.project}/report/density/`)
  assert.equal(
    density.rows.map((r: any) => [r.className, r.detections, r.calls]),
    [
      ['robin', 2, 0],
      ['wren', 2, 2],
    ],
  )
  // the stranger reads none of the tag sets: an empty report of their own library
  const theirs = await t.call('POST', `${API}/library/`, { as: stranger, body: { name: 'rp-stranger-library' } })
  const empty = await report(`library/${theirs.data.id}/report/diel/`, stranger)
  assert.equal([empty.rows, empty.undated], [[], 0])
})

test('a tag set of no library: its recordings are those it has tags on', async () => {
  const loose = await makeTagSet(t.db, owner, null, 'rp-loose')
  const tagClass = (
    await t.db
      .selectFrom('tag_classes')
      .select('id')
      .where('class_name', '=', 'wren')
      .where('library_id', '=', s.library)
      .executeTakeFirstOrThrow()
  ).id
  await makeTag(
    t.db,
    owner,
    { tagSet: loose, mediaFile: s.files.south, tagClass },
    { startTime: 1800, endTime: 1801, strength: 0.6 },
  )
  const coverage = await report(`tagSet/${loose}/report/coverage/`)
  assert.equal([coverage.rows, coverage.totalHours], [[{ site: 'south', date: '2026-05-02', hours: 1 }], 1])
  const acc = await report(`tagSet/${loose}/report/accumulation/`)
  assert.equal(acc.rows, [{ date: '2026-05-02', day: 1, newClasses: ['wren'], classes: 1 }])
})

test('CSV: the rows as a table, with a header', async () => {
  const res = await t.call('GET', `${API}/tagSet/${s.tagSet}/report/matrix/?format=csv`, { as: owner })
  assert.is(res.statusCode, 200)
  assert.match(String(res.headers['content-type']), /^text\/csv/)
  assert.is(
    res.body,
    'site,date,className,detections\nnorth,2026-05-01,robin,1\nnorth,2026-05-02,robin,1\nsouth,2026-05-02,robin,1\n' +
      'north,2026-05-02,wren,1\nsiteC,2026-05-03,wren,1\nsouth,2026-05-02,wren,1\n',
  )
  const acc = await t.call('GET', `${API}/project/${s.project}/report/accumulation/?format=csv`, { as: owner })
  assert.is(acc.body, 'date,day,classes,newClasses\n2026-05-02,1,2,robin;wren\n2026-05-03,2,2,\n')
  const density = await t.call('GET', `${API}/tagSet/${s.tagSet}/report/density/?format=csv`, { as: owner })
  const lines = density.body.trim().split('\n')
  assert.is(lines[0], 'className,stratum,detections,yes,no,yesFraction,calls,low,high,callsPerHour')
  assert.is(lines[1], 'robin,0.8-0.9,1,0,0,,,,,')
  assert.match(lines[3], /^robin,all,4,,,,1\.5,[0-9.]+,[0-9.]+,0\.27272727/)
})

/** the texts of an SVG's <text> elements, entities as written */
const textsOf = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])

test("SVG: each report's chart, titled with its scope and filters, of the same rows as the JSON", async () => {
  for (const name of REPORTS) {
    for (const [path, scope] of [
      [`tagSet/${s.tagSet}`, 'tag set rp-detections'],
      [`library/${s.library}`, 'library rp-library'],
      [`project/${s.project}`, 'project rp-project'],
    ]) {
      const res = await t.call('GET', `${API}/${path}/report/${name}/?format=svg`, { as: owner })
      assert.is(res.statusCode, 200, `${path} ${name}: ${res.body.slice(0, 200)}`)
      assert.is(res.headers['content-type'], 'image/svg+xml', `${path} ${name}`)
      assert.match(String(res.headers['content-security-policy']), /sandbox/)
      assert.ok(res.body.startsWith('<svg'), `${path} ${name}: ${res.body.slice(0, 100)}`)
      assert.ok(res.body.endsWith('</svg>'), `${path} ${name} ends its svg`)
      assert.ok(
        textsOf(res.body).some((x) => x.includes(`— ${scope}`)),
        `${path} ${name}: the title names ${scope}: ${textsOf(res.body).join(' | ')}`,
      )
      assert.not.ok(
        textsOf(res.body).some((x) => x.includes('to show')),
        `${path} ${name} has something to show`,
      )
    }
  }
  // the classes of the rows drawn (the diel chart's legend), the filters in the title
  const diel = await t.call(
    'GET',
    `${API}/tagSet/${s.tagSet}/report/diel/?format=svg&minimumStrength=0.9&tz=%2B02:00`,
    { as: owner },
  )
  assert.ok(textsOf(diel.body).includes('robin') && textsOf(diel.body).includes('wren'), textsOf(diel.body).join(' | '))
  assert.ok(
    textsOf(diel.body).some((x) => x.includes('(strength ≥ 0.9, local time UTC +02:00)')),
    textsOf(diel.body).join(' | '),
  )
  const yes = await t.call('GET', `${API}/tagSet/${s.tagSet}/report/daily/?format=svg&reviewed=yes`, { as: owner })
  assert.ok(
    textsOf(yes.body).some((x) => x.includes('(reviewed yes)')),
    textsOf(yes.body).join(' | '),
  )
})

test('SVG: an empty report is still its chart, with its title and a line saying there is nothing to show', async () => {
  const empty = await makeTagSet(t.db, owner, null, 'rp-empty')
  for (const name of REPORTS) {
    const res = await t.call('GET', `${API}/tagSet/${empty}/report/${name}/?format=svg`, { as: owner })
    assert.is(res.statusCode, 200, `${name}: ${res.body.slice(0, 200)}`)
    assert.is(res.headers['content-type'], 'image/svg+xml')
    assert.ok(res.body.startsWith('<svg'), name)
    const texts = textsOf(res.body)
    assert.ok(
      texts.some((x) => x.endsWith('— tag set rp-empty')),
      `${name}: ${texts.join(' | ')}`,
    )
    assert.ok(
      texts.some((x) => /^No .+ to show$/.test(x)),
      `${name}: ${texts.join(' | ')}`,
    )
  }
  // filtered to nothing: the same
  const none = await t.call('GET', `${API}/tagSet/${s.tagSet}/report/diel/?format=svg&minimumStrength=2`, { as: owner })
  assert.ok(textsOf(none.body).includes('No detections to show'), textsOf(none.body).join(' | '))
})

test('access: 404 to a caller who cannot read the scope, 401 without credentials; bad parameters 400 naming them', async () => {
  for (const path of [`tagSet/${s.tagSet}`, `library/${s.library}`, `project/${s.project}`]) {
    for (const name of ['diel', 'daily', 'accumulation', 'matrix', 'coverage', 'density']) {
      assert.is(
        (await t.call('GET', `${API}/${path}/report/${name}/`, { as: stranger })).statusCode,
        404,
        `${path} ${name}`,
      )
    }
    assert.is((await t.call('GET', `${API}/${path}/report/diel/`)).statusCode, 401)
    // the chart is refused alike, with the same answer
    for (const [as, status] of [
      [stranger, 404],
      [undefined, 401],
    ] as const) {
      const json = await t.call('GET', `${API}/${path}/report/coverage/`, { as })
      const svg = await t.call('GET', `${API}/${path}/report/coverage/?format=svg`, { as })
      assert.equal(
        [svg.statusCode, svg.headers['content-type'], svg.data],
        [status, json.headers['content-type'], json.data],
        `${path} svg as ${as?.username ?? 'nobody'}`,
      )
      assert.is(svg.headers['www-authenticate'], json.headers['www-authenticate'])
    }
  }
  assert.is((await t.call('GET', `${API}/tagSet/999999/report/diel/`, { as: owner })).statusCode, 404)
  const refused = async (q: string, body: unknown, name = 'diel') => {
    const res = await t.call('GET', `${API}/tagSet/${s.tagSet}/report/${name}/${q}`, { as: owner })
    assert.is(res.statusCode, 400, q)
    assert.equal(res.data, body, q)
  }
  await refused('?minimumStrength=strong', { minimumStrength: ['A valid number is required.'] })
  await refused('?format=xml', { format: ['"xml" is not a valid choice: json, csv or svg.'] })
  await refused('?format=png', { format: ['"png" is not a valid choice: json, csv or svg.'] })
  await refused('?format=svg&minimumStrength=strong', { minimumStrength: ['A valid number is required.'] })
  await refused('?format=svg&tz=Mars/Olympus', {
    tz: ['Enter an offset from UTC such as +02:00, or a time zone name such as Europe/Paris.'],
  })
  await refused(
    '?format=svg&reviewed=yes',
    { reviewed: ['Call density is estimated from the decisions on every detection: reviewed does not apply to it.'] },
    'density',
  )
  await refused('?reviewed=no', { reviewed: ['"no" is not a valid choice: yes.'] })
  await refused('?tz=Mars/Olympus', {
    tz: ['Enter an offset from UTC such as +02:00, or a time zone name such as Europe/Paris.'],
  })
  await refused('?tz=%2B25:00', {
    tz: ['Enter an offset from UTC such as +02:00, or a time zone name such as Europe/Paris.'],
  })
  await refused(
    '?reviewed=yes',
    { reviewed: ['Call density is estimated from the decisions on every detection: reviewed does not apply to it.'] },
    'density',
  )
  assert.is((await t.call('GET', `${API}/tagSet/${s.tagSet}/report/weekly/`, { as: owner })).statusCode, 404)
})

test('the reports are in the OpenAPI document with their query', async () => {
  const doc = (await t.call('GET', '/api/openapi.json', { as: owner })).data
  for (const kind of ['tagSet', 'library', 'project']) {
    const get = doc.paths[`/api/v0/${kind}/{id}/report/density/`].get
    assert.equal(
      get.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name),
      ['minimumStrength', 'reviewed', 'tz', 'format'],
    )
    assert.equal(Object.keys(get.responses['200'].content), ['application/json', 'text/csv', 'image/svg+xml'])
  }
})

test.run()
