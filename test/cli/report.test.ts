import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { MANY_COLOURS } from '../../server/analysis/charts.js'
import { makeLibrary, makeMediaFile, makeMetaData, makeTag, makeTagClass, makeTagSet } from '../helpers/records.js'
import { makeSeason, type Season } from '../helpers/season.js'
import { tempDir } from '../helpers/tempDir.js'
import { pixels } from '../helpers/png.js'
import { cliWorld, json, type CliWorld } from './cli.js'
import { CLASS_NAMES } from '../helpers/classNames.js'

// mas report NAME against a real server, on the season of test/helpers/season.ts: tables, --json, the scopes by
// name, -o CHART.png (an empty report too), and what it refuses.

let w: CliWorld
let out: string
let s: Season

test.before(async () => {
  w = await cliWorld()
  const alice = await w.loggedIn('alice')
  s = await makeSeason(w.t.db, alice, [alice, await w.t.user('bob'), await w.t.user('carol')], 'cli')
  await makeTagSet(w.t.db, alice, await makeLibrary(w.t.db, alice, 'quiet-library'), 'nothing-yet')
  // 14 classes over three days (a recording each): class i has 14 - i detections a day
  const many = await makeLibrary(w.t.db, alice, 'many-library')
  const manySet = await makeTagSet(w.t.db, alice, many, 'many-classes')
  const classes = []
  for (const name of MANY_NAMES) classes.push(await makeTagClass(w.t.db, alice, many, name))
  for (const day of ['2026-06-01', '2026-06-02', '2026-06-03']) {
    const file = await makeMediaFile(w.t.db, alice, many, { realStartTime: `${day} 05:00:00` })
    await makeMetaData(w.t.db, file, 'durationInSeconds', '3600')
    for (const [i, tagClass] of classes.entries())
      for (let k = 0; k < 14 - i; k++)
        await makeTag(
          w.t.db,
          alice,
          { tagSet: manySet, mediaFile: file, tagClass },
          { startTime: k * 60 + i, endTime: k * 60 + i + 1 },
        )
  }
  out = tempDir('mas-report-')
})
test.after(async () => {
  await w.close()
  rmSync(out, { recursive: true, force: true })
})

/** more classes than the Okabe and Ito colours */
const MANY_NAMES = CLASS_NAMES.slice(0, 14)

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** The width and height of a PNG, from its header, after checking its signature. */
function pngSize(file: string): { width: number; height: number; bytes: number } {
  const png = readFileSync(file)
  assert.equal([...png.subarray(0, 8)], PNG_SIGNATURE, `${file} is a PNG`)
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), bytes: png.length }
}

test('report diel: hours by class as a table, the tag set by name; --minimum-strength and --reviewed-only reach the server', async () => {
  const run = await w.mas(['report', 'diel', '--tag-set', 'cli-detections'])
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stdout, /^HOUR\s+ROBIN\s+WREN\n00\s+1\s+1\n01\s+0\s+0\n/, run.stdout + run.stderr)
  assert.match(run.stdout, /\n05\s+1\s+1\n06\s+0\s+1\n/, run.stdout + run.stderr)
  assert.match(run.stdout, /\n22\s+1\s+0\n23\s+0\s+0\n$/, run.stdout + run.stderr)
  assert.match(run.stderr, /1 detections on recordings without a start time left out/, run.stderr)
  const yes = json(
    await w.mas([
      'report',
      'diel',
      '--tag-set',
      'cli-detections',
      '--reviewed-only',
      '--minimum-strength',
      '0.9',
      '--json',
    ]),
  )
  assert.equal(
    [
      yes.reviewed,
      yes.minimumStrength,
      yes.rows.filter((r: any) => r.detections).map((r: any) => [r.className, r.hour]),
    ],
    [
      'yes',
      0.9,
      [
        ['robin', 22],
        ['wren', 5],
        ['wren', 6],
      ],
    ],
  )
})

test('report daily, matrix, accumulation, coverage and density: their tables; library and project by name', async () => {
  const daily = await w.mas(['report', 'daily', '--library', 'cli-library'])
  assert.is(daily.code, 0, daily.stderr)
  assert.match(
    daily.stdout,
    /^DATE\s+ROBIN\s+WREN\n2026-05-01\s+1\s+0\n2026-05-02\s+3\s+2\n2026-05-03\s+0\s+1\n$/,
    daily.stdout + daily.stderr,
  )
  const matrix = await w.mas(['report', 'matrix', '--tag-set', 'cli-detections'])
  assert.match(matrix.stdout, /\nrobin\s+south\s+2026-05-02\s+1\n/, matrix.stdout + matrix.stderr)
  const acc = await w.mas(['report', 'accumulation', '--tag-set', 'cli-detections'])
  assert.match(
    acc.stdout,
    /^DAY\s+DATE\s+CLASSES\s+NEW CLASSES\n1\s+2026-05-01\s+1\s+robin\n2\s+2026-05-02\s+2\s+wren\n3\s+2026-05-03\s+2\n$/,
    acc.stdout + acc.stderr,
  )
  const coverage = await w.mas(['report', 'coverage', '--project', String(s.project), '--tz', '+02:00'])
  assert.is(coverage.code, 0, coverage.stderr)
  assert.match(
    coverage.stdout,
    /^DATE\s+SITEC\s+SOUTH\n2026-05-02\s+0\s+1\n2026-05-03\s+0\.5\s+0\n$/,
    coverage.stdout + coverage.stderr,
  )
  assert.match(coverage.stderr, /1\.50 hours recorded/, coverage.stderr)
  const density = await w.mas(['report', 'density', '--tag-set', 'cli-detections'])
  assert.match(density.stdout, /\nrobin\s+4\s+1\.5\s+[0-9.]+\s+[0-9.]+\s+1\s+0\.273\n/, density.stdout + density.stderr)
})

test('report -o writes a PNG chart of each report that reads well', async () => {
  for (const name of ['diel', 'daily', 'accumulation', 'matrix', 'coverage', 'density']) {
    const file = join(out, `${name}.png`)
    const run = await w.mas(['report', name, '--tag-set', 'cli-detections', '-o', file])
    assert.is(run.code, 0, run.stderr)
    assert.match(run.stderr, `chart written to ${file}`)
    const { width, height, bytes } = pngSize(file)
    assert.ok(width >= 400 && height >= 150 && bytes > 5_000, `${name}: ${width}×${height}, ${bytes} bytes`)
  }
  // the diel chart: a white ground, and the first class's colour (Okabe and Ito's blue) drawn somewhere
  const diel = await pixels(readFileSync(join(out, 'diel.png')))
  assert.equal(diel.at(2, 2), [255, 255, 255, 255])
  let blue = 0
  for (let y = 0; y < diel.height; y += 2)
    for (let x = 0; x < diel.width; x += 2) {
      const [r, g, b] = diel.at(x, y)
      if (Math.abs(r - 0x00) < 12 && Math.abs(g - 0x72) < 12 && Math.abs(b - 0xb2) < 12) blue++
    }
  assert.ok(blue > 20, `the robin's line is drawn (${blue} pixels)`)
})

test('report -o of 14 classes: a colour of its own for each class in the diel and daily charts', async () => {
  for (const name of ['diel', 'daily']) {
    const file = join(out, `many-${name}.png`)
    const run = await w.mas(['report', name, '--tag-set', 'many-classes', '-o', file])
    assert.is(run.code, 0, run.stderr)
    const png = await pixels(readFileSync(file))
    const counts = MANY_COLOURS.map(() => 0)
    for (let y = 0; y < png.height; y++)
      for (let x = 0; x < png.width; x++) {
        const [r, g, b] = png.at(x, y)
        MANY_COLOURS.forEach((c, i) => {
          const [cr, cg, cb] = [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16))
          if (Math.abs(r - cr) < 4 && Math.abs(g - cg) < 4 && Math.abs(b - cb) < 4) counts[i]++
        })
      }
    // each of the 14 classes drawn in its colour (its legend entry at least, 400 pixels at twice the size), none of
    // the other 4 colours (but for a few pixels of anti-aliased edges that happen to be near one)
    assert.ok(
      counts.slice(0, 14).every((n) => n > 300),
      `${name}: ${counts.join(' ')}`,
    )
    assert.ok(
      counts.slice(14).every((n) => n < 50),
      `${name}: ${counts.join(' ')}`,
    )
  }
})

test('an empty report prints nothing to report and still writes its chart', async () => {
  const file = join(out, 'empty.png')
  const run = await w.mas(['report', 'diel', '--tag-set', 'nothing-yet', '-o', file])
  assert.is(run.code, 0, run.stderr)
  assert.is(run.stdout, '')
  assert.match(run.stderr, /nothing to report/, run.stderr)
  const { width, height } = pngSize(file)
  assert.ok(width >= 400 && height >= 150)
  const matrix = join(out, 'empty-matrix.png')
  assert.is((await w.mas(['report', 'matrix', '--tag-set', 'nothing-yet', '-o', matrix])).code, 0)
  pngSize(matrix)
})

test('-o makes the folder it names where it is missing, and names itself when it cannot write', async () => {
  const file = join(out, 'charts', 'season 1', 'diel.png')
  const run = await w.mas(['report', 'diel', '--tag-set', 'cli-detections', '-o', file])
  assert.is(run.code, 0, run.stderr)
  pngSize(file)
  const onFolder = await w.mas(['report', 'diel', '--tag-set', 'cli-detections', '-o', join(out, 'charts')])
  assert.is(onFolder.code, 1)
  assert.match(onFolder.stderr, /^Error: -o .*charts: cannot write it: it is a folder\n$/, onFolder.stderr)
})

test('refusals: one line naming the flag, non-zero exit', async () => {
  const none = await w.mas(['report', 'diel'])
  assert.is.not(none.code, 0)
  assert.match(none.stderr, /tag-set|library|project/, none.stderr)
  const missing = await w.mas(['report', 'daily', '--tag-set', 'no-such-set'])
  assert.is.not(missing.code, 0)
  assert.match(missing.stderr, /^Error: --tag-set: no tag set named "no-such-set"/, missing.stderr)
  const strength = await w.mas(['report', 'daily', '--tag-set', 'cli-detections', '--minimum-strength', 'high'])
  assert.is(strength.code, 2)
  assert.is(strength.stderr.trim().split('\n').length, 1, strength.stderr)
  assert.match(strength.stderr, /--minimum-strength: Expected a number, not "high"/, strength.stderr)
  const tz = await w.mas(['report', 'diel', '--tag-set', 'cli-detections', '--tz', 'Mars/Olympus'])
  assert.match(tz.stderr, /--tz: Enter an offset from UTC/, tz.stderr)
  const density = await w.mas(['report', 'density', '--tag-set', 'cli-detections', '--reviewed-only'])
  assert.is.not(density.code, 0)
  assert.match(density.stderr, /--reviewed-only: Call density is estimated from the decisions/, density.stderr)
})

test.run()
