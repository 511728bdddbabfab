import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { truncated } from '../helpers/recorders.js'
import { makeWav } from '../helpers/wav.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// What tables and messages show people (issue 47): a damaged file marked in `mas media list`, a strength only
// where a detector gave one, durations to the millisecond however many digits the file's length has, and names
// where ids were.

let w: CliWorld
let alice: TestUser
const file: Record<string, number> = {}
// 27,222 frames at 22,050 Hz: 1.2345578231292517 s
const FRAMES = 27_222
const RATE = 22_050

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  const folder = join(w.newHome(), 'season')
  mkdirSync(folder)
  writeFileSync(join(folder, 'whole.wav'), makeWav({ seconds: FRAMES / RATE, sampleRate: RATE, frequency: 440 }))
  writeFileSync(join(folder, 'cut.wav'), truncated(makeWav({ seconds: 2, sampleRate: RATE, frequency: 550 })))
  assert.is((await w.mas(['library', 'create', 'Season'])).code, 0)
  const imported = await w.mas(['media', 'import', folder, '--library', 'Season'])
  assert.is(imported.code, 0, imported.stderr)
  for (const m of json(await w.mas(['media', 'list', '--library', 'Season', '--json']))) file[m.alias] = m.id
  assert.is((await w.mas(['tagclass', 'create', 'wren', '--library', 'Season'])).code, 0)
  assert.is((await w.mas(['tagset', 'create', 'mixed', '--library', 'Season'])).code, 0)
})
test.after(async () => {
  await w.close()
})

test('mas media list marks the truncated file in its damage column; the whole one has none; durations to the millisecond', async () => {
  const run = await w.mas([
    'media',
    'list',
    '--library',
    'Season',
    '--columns',
    'alias,duration,damage',
    '--sort',
    'alias',
    '--csv',
  ])
  assert.is(run.code, 0, run.stderr)
  // cut.wav holds 0.9995 s of its 2 (half its bytes)
  assert.equal(run.stdout.trim().split('\n'), ['ALIAS,DURATION,DAMAGE', 'cut.wav,1,truncated', 'whole.wav,1.235,'])
  const table = await w.mas(['media', 'list', '--library', 'Season'])
  assert.match(
    table.stdout,
    /^ID\s+ALIAS\s+LIBRARY\s+SENSOR\s+STARTED\s+DURATION\s+RATE\s+CHANNELS\s+DAMAGE\s+UPLOADED\s+FILE\n/,
  )
  assert.match(table.stdout, /\n\d+\s+cut\.wav\s+Season\s+.*\s+truncated\s+/)
  // --json keeps the API's records: the fact in full
  const whole = json(await w.mas(['media', 'get', 'whole.wav', '--json'])).mediafilemetadata_set
  assert.is(whole.find((m: any) => m.name === 'durationInSeconds').value, String(FRAMES / RATE))
  const get = await w.mas(['media', 'get', 'whole.wav'])
  assert.match(get.stdout, /\n {2}durationInSeconds\s+1\.235 s\n/)
})

test('mas media get names the library, sensor and uploader where it showed their ids; --json keeps the ids', async () => {
  const sensor = await w.mas(['sensor', 'create', 'AudioMoth-17'])
  assert.is(sensor.code, 0, sensor.stderr)
  const patched = await w.t.call('PATCH', `/api/v0/mediaFile/${file['whole.wav']}/`, {
    as: alice,
    body: { sensor: Number(sensor.stdout.trim()) },
  })
  assert.is(patched.statusCode, 200, patched.body)
  const get = await w.mas(['media', 'get', 'whole.wav'])
  assert.is(get.code, 0, get.stderr)
  assert.match(get.stdout, /\nlibrary\s+Season\n/)
  assert.match(get.stdout, /\nsensor\s+AudioMoth-17\n/)
  assert.match(get.stdout, /\nuser\s+me\n/)
  const record = json(await w.mas(['media', 'get', 'whole.wav', '--json']))
  assert.equal([typeof record.library, record.sensor], ['number', Number(sensor.stdout.trim())])
})

test('mas tag list shows a strength for machine tags (and any given one), an empty cell for tags made by hand', async () => {
  const byHand = await w.mas([
    'tag',
    'create',
    '--tag-set',
    'mixed',
    '--media-file',
    'whole.wav',
    '--tag-class',
    'wren',
    '--start',
    '0.1',
    '--end',
    '0.4',
  ])
  assert.is(byHand.code, 0, byHand.stderr)
  const machine = await w.t.call('POST', '/api/v0/tag/', {
    as: alice,
    body: {
      tagSet: json(await w.mas(['tagset', 'list', '--json']))[0].id,
      mediaFile: file['whole.wav'],
      tagClass: json(await w.mas(['tagclass', 'list', '--json']))[0].id,
      startTime: 0.123456789,
      endTime: 0.9,
      minFrequency: 100,
      maxFrequency: 2000,
      strength: 0.87654321,
      machineTagged: true,
    },
  })
  assert.is(machine.statusCode, 201, JSON.stringify(machine.data))
  const run = await w.mas(['tag', 'list', '--tag-set', 'mixed', '--columns', 'start,end,strength', '--csv'])
  assert.is(run.code, 0, run.stderr)
  assert.equal(run.stdout.trim().split('\n'), ['START,END,STRENGTH', '0.1,0.4,', '0.123,0.9,0.877'])
  const table = await w.mas(['tag', 'list', '--tag-set', 'mixed'])
  assert.match(table.stdout, /\n\d+\s+mixed\s+whole\.wav\s+wren\s+0\.1\s+0\.4\s+0\s+\d+\n/)
  assert.match(table.stdout, /\n\d+\s+mixed\s+whole\.wav\s+wren\s+0\.123\s+0\.9\s+100\s+2000\s+0\.877\n/)
})

test('a tag past the end of a recording: the message gives its length to the millisecond', async () => {
  const late = await w.mas([
    'tag',
    'create',
    '--tag-set',
    'mixed',
    '--media-file',
    'whole.wav',
    '--tag-class',
    'wren',
    '--start',
    '1',
    '--end',
    '5',
  ])
  assert.is(late.code, 1)
  assert.match(
    late.stderr,
    `--end: endTime 5.0 is past the end of media file ${file['whole.wav']} (whole.wav), at 1.235 s.`,
  )
  assert.not.match(late.stderr, '1.2345578')
})

test.run()
