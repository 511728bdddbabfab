import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { cliWorld, json, type CliWorld } from '../cli/cli.js'
import type { TestUser } from '../helpers/app.js'
import { makeLibrary, makeTag, makeTagClass, makeTagSet } from '../helpers/records.js'
import { signal, storedRecording, storedWav } from '../helpers/signals.js'
import { pixels } from '../helpers/png.js'

// mas media spectrogram: the server's picture of a media file's spectrogram saved as a PNG, with
// axes, a colour map, and the tags of a tag set as labelled boxes.

let world: CliWorld
let alice: TestUser
let media: number
let library: number

test.before(async () => {
  world = await cliWorld()
  alice = await world.t.user('alice')
  assert.is((await world.login(alice)).code, 0)
  const config = world.t.app.config
  library = await makeLibrary(world.t.db, alice)
  media = await storedWav(
    world.t.db,
    config,
    alice,
    library,
    signal(3, 8000, [{ from: 1, to: 2, frequency: 1500 }]),
    8000,
  )
})
test.after(async () => {
  await world.close()
})

test('mas media spectrogram saves a picture of the asked stretch; an unreadable id fails', async () => {
  const out = join(world.home, 'call.png')
  const run = await world.mas([
    'media',
    'spectrogram',
    String(media),
    '--start',
    '0.5',
    '--end',
    '2.5',
    '-o',
    out,
    '--json',
  ])
  assert.is(run.code, 0, run.stderr)
  assert.equal(json(run), { mediaFile: media, savedTo: out })
  const png = readFileSync(out)
  assert.is(png.toString('ascii', 1, 4), 'PNG')
  // 200 frames of 256 bands (the default settings) in a 480 × 512 plot, with room for the axes
  const p = await pixels(png)
  assert.equal([p.width, p.height], [608, 588])
  // the colour bar right of the plot: 0 dB (yellow) at the top, -80 dB (dark purple) at the bottom
  const [tr, tg, tb] = p.at(64 + 480 + 15, 30 + 2)
  assert.ok(tr > 200 && tg > 200 && tb < 100, `top of the colour bar ${[tr, tg, tb]}`)
  const [br, bg, bb] = p.at(64 + 480 + 15, 30 + 509)
  assert.ok(bb > br && bb > bg && br < 100, `bottom of the colour bar ${[br, bg, bb]}`)
  // the colour map: the tone's band (1.5 kHz, at 1.5 s) is bright yellow-green, silence dark blue-purple
  const [r, g, b] = p.at(64 + 240, 30 + 512 - Math.round((1500 / 4000) * 512))
  assert.ok(g > 150 && r > 100 && b < 150, `tone pixel ${[r, g, b]}`)
  const [r2, g2, b2] = p.at(64 + 20, 30 + 100)
  assert.ok(b2 > r2 && b2 > g2 - 20, `silence pixel ${[r2, g2, b2]}`)
  // the axes' labels are drawn in black on the white margin
  let dark = 0
  for (let x = 0; x < 64; x++) for (let y = 30; y < 542; y++) if (p.at(x, y)[0] < 100) dark++
  assert.ok(dark > 100, `${dark} dark pixels in the frequency axis`)
  const outside = await world.mas([
    'media',
    'spectrogram',
    String(media),
    '--start',
    '50',
    '--end',
    '60',
    '-o',
    join(world.home, 'blank.png'),
  ])
  assert.is(outside.code, 1)
  assert.match(
    outside.stderr,
    new RegExp(
      `--start: startTime 50\\.0 is past the end of media file ${media} \\(mediaFiles/signals/[^)]+\\.wav\\), at 3\\.0 s`,
    ),
  )
  assert.not.ok(existsSync(join(world.home, 'blank.png')))
  const missing = await world.mas(['media', 'spectrogram', '999999', '-o', join(world.home, 'x.png')])
  assert.is(missing.code, 1)
  assert.not.ok(existsSync(join(world.home, 'x.png')))
})

test('--tag-set draws its tags as labelled boxes: the pixels differ on the box and nowhere far from it', async () => {
  const tagSet = await makeTagSet(world.t.db, alice, library, 'Dawn birds')
  const blackbird = await makeTagClass(world.t.db, alice, library, 'blackbird')
  await makeTag(
    world.t.db,
    alice,
    { tagSet, mediaFile: media, tagClass: blackbird },
    { startTime: 1, endTime: 2, minFrequency: 1000, maxFrequency: 2000 },
  )
  const plain = join(world.home, 'plain.png'),
    tagged = join(world.home, 'tagged.png')
  assert.is(
    (await world.mas(['media', 'spectrogram', String(media), '--start', '0.5', '--end', '2.5', '-o', plain])).code,
    0,
  )
  const run = await world.mas([
    'media',
    'spectrogram',
    String(media),
    '--start',
    '0.5',
    '--end',
    '2.5',
    '--tag-set',
    String(tagSet),
    '-o',
    tagged,
  ])
  assert.is(run.code, 0, run.stderr)
  const a = await pixels(readFileSync(plain)),
    b = await pixels(readFileSync(tagged))
  assert.equal([b.width, b.height], [a.width, a.height])
  // the box: 1–2 s over 0.5–2.5 s is x 184–424; 1–2 kHz of 0–4 kHz is y 286–414
  const differs = (x: number, y: number) => a.at(x, y).some((v, i) => v !== b.at(x, y)[i])
  let onEdge = 0
  for (let y = 300; y < 400; y++) if (differs(184, y)) onEdge++
  assert.ok(onEdge > 90, `${onEdge} of 100 pixels on the box's left edge differ`)
  let label = 0
  for (let x = 190; x < 240; x++) if (differs(x, 294)) label++
  assert.ok(label > 30, `${label} of 50 pixels of the label row differ`)
  for (const [x, y] of [
    [100, 100],
    [500, 100],
    [100, 500],
    [300, 200],
    [500, 500],
  ])
    assert.not.ok(differs(x, y), `pixel ${x},${y}`)
  // a tag set the caller cannot read is refused like a missing one
  const bob = await world.t.user('bob')
  const bobs = await makeTagSet(world.t.db, bob, null, 'Private')
  const refused = await world.mas([
    'media',
    'spectrogram',
    String(media),
    '--tag-set',
    String(bobs),
    '-o',
    join(world.home, 'no.png'),
  ])
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /Invalid pk/)
})

test('with no range the whole recording is drawn, however long; a width past the limit is refused naming it', async () => {
  // 30 minutes at 100 frames a second: 180,000 frames, more than JSON gives at once, folded into 1,600 columns
  await storedRecording(world.t.db, world.t.app.config, alice, library, {
    seconds: 1800,
    sampleRate: 8000,
    seed: 3,
    alias: 'siteC/20240515_040000.WAV',
  })
  const out = join(world.home, 'whole.png')
  const run = await world.mas(['media', 'spectrogram', 'siteC/20240515_040000.WAV', '-o', out])
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stderr, `Saved ${out}`)
  const p = await pixels(readFileSync(out))
  assert.equal([p.width, p.height], [64 + 1600 + 64, 588])
  const wide = await world.mas([
    'media',
    'spectrogram',
    'siteC/20240515_040000.WAV',
    '--width',
    '9000',
    '-o',
    join(world.home, 'wide.png'),
  ])
  assert.is.not(wide.code, 0)
  assert.match(wide.stderr, /--width: Expected an integer less than or equal to 8000/)
  assert.not.ok(existsSync(join(world.home, 'wide.png')))
  const help = await world.mas(['media', 'spectrogram', '--help'])
  assert.match(help.stdout.replace(/\s+/g, ' '), 'The picture is 400 to 8000 pixels wide')
})

test.run()
