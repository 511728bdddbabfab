import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeLibrary, makeTag, makeTagClass, makeTagSet } from '../../helpers/records.js'
import { storedRecording } from '../../helpers/signals.js'
import { pixels } from '../../helpers/png.js'

// A whole recording of hours drawn as one picture (GET mediaFile/{Id}/spectra/?format=png, no range): its
// frames computed chunk by chunk and folded into the picture's columns, so the server's memory grows by a
// bound that does not depend on the recording's length; the width asked for, the tags of a tag set drawn,
// and the limits on the picture's size and on JSON told in seconds and pixels.

const t = suiteApp(test)
let alice: TestUser
let media: number
let tagSet: number

const RATE = 8000
const SECONDS = 3 * 3600
/** the growth of the process's memory allowed while it draws (its threads' included): holding the recording's
 * samples would take 346 MB (3 h of 8 kHz floats), its 1,080,000 frames of 256 bands 1.1 GB */
const GROWTH_BOUND_MB = 250

test.before(async () => {
  alice = await t.user('alice')
  const library = await makeLibrary(t.db, alice)
  media = await storedRecording(t.db, t.app.config, alice, library, {
    seconds: SECONDS,
    sampleRate: RATE,
    seed: 5,
    alias: 'site A/night.wav',
  })
  tagSet = await makeTagSet(t.db, alice, library, 'Detections')
  const owl = await makeTagClass(t.db, alice, library, 'owl')
  await makeTag(
    t.db,
    alice,
    { tagSet, mediaFile: media, tagClass: owl },
    { startTime: 5400, endTime: 5500, minFrequency: 1000, maxFrequency: 3000 },
  )
})

/** The peak growth of this process's resident memory (its threads included) while `work` runs, in MB. */
async function memoryGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const before = process.memoryUsage.rss()
  let peak = before
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 5)
  try {
    const result = await work()
    return { result, growthMb: (Math.max(peak, process.memoryUsage.rss()) - before) / 1e6 }
  } finally {
    clearInterval(timer)
  }
}

test('a 3-hour recording with no range is drawn whole at the width asked, its tags on it, in bounded memory', async () => {
  const { result: res, growthMb } = await memoryGrowth(() =>
    t.call('GET', `/api/v0/mediaFile/${media}/spectra/?format=png&width=1200&tagSet=${tagSet}`, { as: alice }),
  )
  assert.is(res.statusCode, 200, res.body)
  assert.is(res.headers['content-type'], 'image/png')
  assert.ok(
    growthMb < GROWTH_BOUND_MB,
    `memory grew by ${growthMb.toFixed(0)} MB while drawing (bound ${GROWTH_BOUND_MB} MB)`,
  )
  const p = await pixels(res.rawPayload)
  // 1,072 columns of plot (1,200 less the axes' margins), 256 bands in 512 rows
  assert.equal([p.width, p.height], [1200, 588])
  // the owl's box (5400-5500 s of 10800 s, 1-3 kHz of 0-4 kHz): its white left edge at x = 64 + 536, y 158-414
  const white = (x: number, y: number) =>
    p
      .at(x, y)
      .slice(0, 3)
      .every((v) => v > 245)
  let edge = 0
  for (let y = 170; y < 400; y++) if ([599, 600, 601].some((x) => white(x, y))) edge++
  assert.ok(edge > 200, `${edge} of 230 rows white on the tag's left edge`)
  let elsewhere = 0
  for (let y = 30; y < 542; y++) if (white(300, y) || white(1000, y)) elsewhere++
  assert.is(elsewhere, 0, 'no box where there is no tag')
  // the whole recording is drawn: the plot's last column holds the recording's noise, not the floor colour
  let lit = 0
  for (let y = 30; y < 542; y++) if (p.at(64 + 1071, y)[1] > 40) lit++
  assert.ok(lit > 400, `${lit} of 512 pixels lit in the last column`)
})

test('statistic=mean draws each column as the mean of its frames; a bad width or statistic is a 400 naming the limits', async () => {
  const mean = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?format=png&width=400&statistic=mean`, {
    as: alice,
  })
  assert.is(mean.statusCode, 200, mean.body)
  assert.equal([(await pixels(mean.rawPayload)).width], [400])
  for (const width of ['9000', '399', 'wide']) {
    const bad = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?format=png&width=${width}`, { as: alice })
    assert.is(bad.statusCode, 400, width)
    assert.equal(bad.data, { width: ['A picture is 400 to 8000 pixels wide: give a whole number between them.'] })
  }
  const statistic = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?format=png&statistic=median`, {
    as: alice,
  })
  assert.is(statistic.statusCode, 400)
  assert.ok(statistic.data.statistic, statistic.body)
})

test('JSON keeps its limit, told in seconds under the parameter given, or as a whole when none was', async () => {
  const whole = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/`, { as: alice })
  assert.is(whole.statusCode, 400)
  assert.equal(Object.keys(whole.data), ['detail'])
  assert.match(
    whole.data.detail,
    /at most 1000\.0 s \(100000 frames at 100 frames a second\), and media file \d+ \(site A\/night\.wav\) lasts 10800\.0 s/,
  )
  assert.match(
    whole.data.detail,
    /format=png, a picture of a stretch of any length \(the whole recording without startTime and endTime\)/,
  )
  const long = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?startTime=100&endTime=2100`, { as: alice })
  assert.is(long.statusCode, 400)
  assert.equal(Object.keys(long.data), ['endTime'])
  assert.match(long.data.endTime[0], /this stretch lasts 2000\.0 s: give startTime and endTime at most 1000\.0 s apart/)
  const fromOnly = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?startTime=10`, { as: alice })
  assert.equal(Object.keys(fromOnly.data), ['startTime'])
  const short = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?startTime=100&endTime=110`, { as: alice })
  assert.is(short.statusCode, 200)
  assert.is(short.data.numFrames, 1000)
})

test.run()
