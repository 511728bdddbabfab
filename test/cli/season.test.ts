import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeLibrary, makeMediaFile, makeMetaData, makeTagClass, makeTagSet } from '../helpers/records.js'
import { cliWorld, type CliWorld } from './cli.js'

// What a field season asks of the command line beyond imports (issue "A field season without friction"):
// tags kept within their recordings.

let w: CliWorld
let alice: TestUser
let library: number
let tagSet: number
let recording: number

test.before(async () => {
  w = await cliWorld()
  alice = await w.t.user('alice')
  await w.login(alice)
  library = await makeLibrary(w.t.db, alice)
  tagSet = await makeTagSet(w.t.db, alice, library, 'season tags')
  await makeTagClass(w.t.db, alice, library, 'wren')
  recording = await makeMediaFile(w.t.db, alice, library, { alias: 'siteA/20260501_050000.WAV' })
  await makeMetaData(w.t.db, recording, 'durationInSeconds', '34.0')
  await makeMetaData(w.t.db, recording, 'sampleRate', '48000')
})
test.after(async () => { await w.close() })

test('mas tag create past the end of the recording, or above half its sample rate, is refused naming the flag and the limit', async () => {
  const create = (start: string, end: string, maxFreq = '8000') => w.mas(['tag', 'create', '--tag-set', 'season tags',
    '--media-file', 'siteA/20260501_050000.WAV', '--tag-class', 'wren', '--start', start, '--end', end, '--max-freq', maxFreq])
  const late = await create('40', '50')
  assert.is(late.code, 1)
  assert.match(late.stderr, new RegExp(`--end: endTime 50\\.0 is past the end of media file ${recording} \\(34\\.0 s\\)`))
  assert.is(late.stderr.trim().split('\n').length, 1, late.stderr)
  const high = await create('1', '2', '30000')
  assert.is(high.code, 1)
  assert.match(high.stderr, /--max-freq: maxFrequency 30000\.0 is above half the sample rate of media file \d+ \(24000\.0 Hz\)/)
  const inside = await create('33', '34', '24000')
  assert.is(inside.code, 0, inside.stderr)
  assert.match(inside.stdout, /^\d+\n$/)
})

test.run()
