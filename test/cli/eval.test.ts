import { readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { makeMediaFile, makeTag, makeTagSet } from '../helpers/records.js'
import { pixels } from '../helpers/png.js'
import { tempDir } from '../helpers/tempDir.js'
import { makeRecords } from '../helpers/world.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// mas eval against a real server: the table, --json, -o curve.png, and tag sets it cannot find.

let w: CliWorld
let out: string

test.before(async () => {
  w = await cliWorld()
  const alice = await w.loggedIn('alice')
  const {
    library,
    tagSet: gold,
    tagClass,
    mediaFile,
  } = await makeRecords(w.t, alice, { tagSet: 'people', tagClass: { className: 'blackbird' } })
  const second = await makeMediaFile(w.t.db, alice, library)
  const detector = await makeTagSet(w.t.db, alice, library, 'detector')
  for (const [file, start] of [
    [mediaFile, 0],
    [mediaFile, 2],
    [second, 0],
    [second, 5],
  ]) {
    await makeTag(w.t.db, alice, { tagSet: gold, mediaFile: file, tagClass }, { startTime: start, endTime: start + 1 })
  }
  // match, gold tag taken, match, nothing there, match: P 0.6, R 0.75
  for (const [file, start, strength] of [
    [mediaFile, 0, 0.9],
    [mediaFile, 0.1, 0.8],
    [second, 0, 0.7],
    [second, 3, 0.6],
    [mediaFile, 2, 0.5],
  ]) {
    await makeTag(
      w.t.db,
      alice,
      { tagSet: detector, mediaFile: file, tagClass },
      { startTime: start, endTime: start + 1, strength },
    )
  }
  await makeTagSet(w.t.db, alice, library, 'unlabelled')
  const elsewhere = await makeTagSet(w.t.db, alice, library, 'elsewhere')
  await makeTag(
    w.t.db,
    alice,
    { tagSet: elsewhere, mediaFile: await makeMediaFile(w.t.db, alice, library), tagClass },
    { startTime: 0, endTime: 1, strength: 0.9 },
  )
  out = tempDir('mas-eval-')
})
test.after(async () => {
  await w.close()
  rmSync(out, { recursive: true, force: true })
})

test('eval: a table per class and pooled, by tag set names', async () => {
  const run = await w.mas(['eval', '--tag-set', 'detector', '--against', 'people'])
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stdout, /^CLASS\s+GOLD\s+DETECTIONS\s+TP\s+FP\s+FN\s+PRECISION\s+RECALL\s+F\s+AP\n/)
  assert.match(run.stdout, /\nblackbird\s+4\s+5\s+3\s+2\s+1\s+0\.600\s+0\.750\s+0\.667\s+0\.567\n/)
  assert.match(run.stdout, /\n\(all, pooled\)\s+4\s+5\s+3\s+2\s+1\s+0\.600\s+0\.750\s+0\.667\s+0\.567\n?$/)
  assert.match(
    run.stderr,
    /against tag set \d+ \(people\): every tag, IoU >= 0\.3, 2 media files, classes matched by id; mean AP over classes \(mAP\) 0\.567/,
  )
})

test('eval --json prints the answer; --minimum-strength and --iou reach the server', async () => {
  const e = json(
    await w.mas([
      'eval',
      '--tag-set',
      'detector',
      '--against',
      'people',
      '--minimum-strength',
      '0.7',
      '--iou',
      '0.5',
      '--json',
    ]),
  )
  assert.equal(
    [
      e.iou,
      e.minimumStrength,
      e.classes[0].className,
      e.classes[0].tp,
      e.classes[0].detections,
      e.classes[0].curve.length,
    ],
    [0.5, 0.7, 'blackbird', 2, 3, 5],
  )
})

test("eval: a tag set with no tag on the gold set's recordings says so beside the table of misses", async () => {
  const run = await w.mas(['eval', '--tag-set', 'elsewhere', '--against', 'people'])
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stdout, /\n\(all, pooled\)\s+4\s+0\s+0\s+0\s+4\s/)
  assert.match(
    run.stderr,
    /none of the tags of tag set \d+ \([^)]+\) lie on those 2 media files: every gold tag is missed\. A discovery job writes no tag on its examples/,
  )
})

test('eval -o writes the precision-recall curves as a PNG', async () => {
  const png = join(out, 'curve.png')
  const run = await w.mas(['eval', '--tag-set', 'detector', '--against', 'people', '-o', png])
  assert.is(run.code, 0, run.stderr)
  assert.ok(statSync(png).size > 0)
  assert.equal([...readFileSync(png).subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  assert.match(run.stderr, `curves written to ${png}`)
})

test('eval -o against a gold set without tags: the plot says there is no curve to show', async () => {
  const png = join(out, 'empty.png')
  const run = await w.mas(['eval', '--tag-set', 'detector', '--against', 'unlabelled', '-o', png])
  assert.is(run.code, 0, run.stderr)
  // the note's grey (#666666), in the middle of the plot (src/prCurve.ts: 420 px from x 64, y 40)
  const p = await pixels(readFileSync(png))
  let note = 0
  for (let y = 220; y < 300; y++)
    for (let x = 124; x < 424; x++) {
      const [r, g, b] = p.at(x, y)
      if (Math.abs(r - 0x66) < 30 && Math.abs(g - 0x66) < 30 && Math.abs(b - 0x66) < 30) note++
    }
  assert.ok(note > 200, `${note} pixels of the note`)
})

test('eval: a tag set it cannot find, or a bad --iou, is one line naming the flag, and a non-zero exit', async () => {
  const missing = await w.mas(['eval', '--tag-set', 'no-such-set', '--against', 'people'])
  assert.is.not(missing.code, 0)
  assert.is(missing.stdout, '')
  assert.is(missing.stderr.trim().split('\n').length, 1, missing.stderr)
  assert.match(missing.stderr, /^Error: --tag-set: no tag set named "no-such-set"/)
  const gold = await w.mas(['eval', '--tag-set', 'detector', '--against', 'nobody-labelled-this'])
  assert.is.not(gold.code, 0)
  assert.match(gold.stderr, /^Error: --against: no tag set named "nobody-labelled-this"/)
  const iou = await w.mas(['eval', '--tag-set', 'detector', '--against', 'people', '--iou', '2'])
  assert.is.not(iou.code, 0)
  assert.is(iou.stderr.trim().split('\n').length, 1, iou.stderr)
  assert.match(iou.stderr, /^Error: Rejected \(400\): --iou: Ensure this value is less than or equal to 1\./)
  // not a number at all: a usage error (exit 2) before anything is asked
  for (const [flag, value] of [
    ['--iou', 'abc'],
    ['--minimum-strength', ''],
  ]) {
    const run = await w.mas(['eval', '--tag-set', 'detector', '--against', 'people', flag, value])
    assert.is(run.code, 2, run.stderr)
    assert.is(run.stderr, `Error: ${flag}: Expected a number, not ${JSON.stringify(value)} (see --help)\n`)
  }
  const report = await w.mas(['report', 'diel', '--tag-set', 'detector', '--minimum-strength', 'high'])
  assert.is(report.code, 2, report.stderr)
  assert.is(report.stderr, 'Error: --minimum-strength: Expected a number, not "high" (see --help)\n')
})

test.run()
