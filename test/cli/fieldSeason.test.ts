import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { audioMothWav, bextWav, guanoWav, truncated, wamdWav } from '../helpers/recorders.js'
import { makeWav } from '../helpers/wav.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// A field season as it comes off the recorders (README, "Importing a field season"): site and date
// folders, AudioMoth names and comments, a broadcast WAV, Wildlife Acoustics and GUANO metadata, the
// same file name in two sites, FLAC and MP3, a truncated WAV. `mas media import` keeps the folders
// as aliases, makes a sensor per site, fills start times, and reports the damaged file.

const FIXTURES = resolve(fileURLToPath(import.meta.url), '../../../../test/fixtures')
const o = { sampleRate: 8000, seconds: 0.5 }

let w: CliWorld
let alice: TestUser
let season: string
let library: number

const put = (path: string, bytes: Buffer) => {
  mkdirSync(dirname(join(season, path)), { recursive: true })
  writeFileSync(join(season, path), bytes)
}

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  library = Number((await w.mas(['library', 'create', 'Season 2026'])).stdout.trim())
  season = join(w.newHome(), 'season-2026')
  // AudioMoth: the name and the comment agree (UTC)
  put(
    'siteA/2026-05-01/20260501_050000.WAV',
    audioMothWav(new Date(Date.UTC(2026, 4, 1, 5, 0, 0)), { ...o, frequency: 300 }),
  )
  put(
    'siteA/2026-05-02/20260502_050000.WAV',
    audioMothWav(new Date(Date.UTC(2026, 4, 2, 5, 0, 0)), { ...o, frequency: 310 }),
  )
  // the same name in another site, other bytes; no metadata: the name gives the time
  put('siteB/2026-05-01/20260501_050000.WAV', makeWav({ ...o, frequency: 320 }))
  // the comment wins over a name that says otherwise
  put(
    'siteB/2026-05-01/renamed_20990101_000000.WAV',
    audioMothWav(new Date(Date.UTC(2026, 4, 1, 6, 30, 15)), { ...o, frequency: 330 }),
  )
  put('siteC/bwf-take.wav', bextWav('2026-05-03', '21:15:00', { ...o, frequency: 340 }))
  put('siteC/SM4_20260504_010203.wav', wamdWav('2026-05-04 01:02:03-05:00', { ...o, frequency: 350 }))
  put('siteC/guano.wav', guanoWav('2026-05-05T22:00:00+02:00', { ...o, frequency: 360 }))
  put('siteC/2026-05-06_04-30-00.flac', Buffer.alloc(0))
  copyFileSync(join(FIXTURES, 'tone.flac'), join(season, 'siteC/2026-05-06_04-30-00.flac'))
  copyFileSync(join(FIXTURES, 'tone.mp3'), join(season, 'siteC/PREFIX_20260507_080000.mp3'))
  put('siteD/20260508_050000.WAV', truncated(makeWav({ ...o, seconds: 2, frequency: 370 })))
  // a copy of a siteA file under another name: the same bytes stay one record
  put('siteD/copy-of-dawn.WAV', audioMothWav(new Date(Date.UTC(2026, 4, 1, 5, 0, 0)), { ...o, frequency: 300 }))
})
test.after(async () => {
  await w.close()
})

const byAlias = async () => {
  const files = json(await w.mas(['media', 'list', '--library', String(library), '--json']))
  return new Map<string, any>(files.map((f: any) => [f.alias, f]))
}

test('an import keeps the folders as aliases, fills start times, makes a sensor per site and reports the truncated file', async () => {
  const run = await w.mas([
    'media',
    'import',
    season,
    '--library',
    String(library),
    '--recursive',
    '--sensor-per-folder',
    '--json',
  ])
  assert.is(run.code, 0, run.stderr)
  const records = json(run)
  assert.is(records.filter((r: any) => r.outcome === 'imported').length, 10)
  assert.is(records.find((r: any) => r.path.endsWith('copy-of-dawn.WAV')).outcome, 'duplicate')
  const damaged = records.find((r: any) => r.path.endsWith('20260508_050000.WAV'))
  assert.is(damaged.outcome, 'imported')
  assert.equal(damaged.warnings, ['truncated: the file ends before its audio data does'])
  assert.match(run.stderr, /1 imported with warnings/)
  assert.match(run.stderr, /warning .*siteD\/20260508_050000\.WAV: truncated/)

  const files = await byAlias()
  assert.equal(
    [...files.keys()].sort(),
    [
      'siteA/2026-05-01/20260501_050000.WAV',
      'siteA/2026-05-02/20260502_050000.WAV',
      'siteB/2026-05-01/20260501_050000.WAV',
      'siteB/2026-05-01/renamed_20990101_000000.WAV',
      'siteC/2026-05-06_04-30-00.flac',
      'siteC/PREFIX_20260507_080000.mp3',
      'siteC/SM4_20260504_010203.wav',
      'siteC/bwf-take.wav',
      'siteC/guano.wav',
      'siteD/20260508_050000.WAV',
    ].sort(),
  )
  const start = (alias: string) => files.get(alias).realStartTime
  assert.is(start('siteA/2026-05-01/20260501_050000.WAV'), '2026-05-01T05:00:00')
  assert.is(start('siteA/2026-05-02/20260502_050000.WAV'), '2026-05-02T05:00:00')
  assert.is(start('siteB/2026-05-01/20260501_050000.WAV'), '2026-05-01T05:00:00')
  assert.is(start('siteB/2026-05-01/renamed_20990101_000000.WAV'), '2026-05-01T06:30:15')
  assert.is(start('siteC/bwf-take.wav'), '2026-05-03T21:15:00')
  assert.is(start('siteC/SM4_20260504_010203.wav'), '2026-05-04T01:02:03')
  assert.is(start('siteC/guano.wav'), '2026-05-05T22:00:00')
  assert.is(start('siteC/2026-05-06_04-30-00.flac'), '2026-05-06T04:30:00')
  assert.is(start('siteC/PREFIX_20260507_080000.mp3'), '2026-05-07T08:00:00')
  const warning = files.get('siteD/20260508_050000.WAV').mediafilemetadata_set.filter((m: any) => m.name === 'warning')
  assert.equal(
    warning.map((m: any) => m.value),
    ['truncated: the file ends before its audio data does'],
  )
  // the duration is what the file holds, not what its header promised
  const duration = files
    .get('siteD/20260508_050000.WAV')
    .mediafilemetadata_set.find((m: any) => m.name === 'durationInSeconds')
  assert.ok(Number(duration.value) < 1.1, duration.value)

  // one sensor per site, in a sensor array named after the library
  const arrays = json(await w.mas(['media', 'list', '--json']))
  assert.ok(arrays.length >= 10)
  const sensorArrays = (
    await w.t.app.inject({ method: 'GET', url: '/api/v0/sensorArray/', headers: alice.auth })
  ).json().results
  assert.equal(
    sensorArrays.map((a: any) => a.name),
    ['Season 2026'],
  )
  const sensors = new Map<string, number>(sensorArrays[0].sensor_set.map((s: any) => [s.name, s.id]))
  assert.equal([...sensors.keys()].sort(), ['siteA', 'siteB', 'siteC', 'siteD'])
  for (const [alias, f] of files) assert.is(f.sensor, sensors.get(alias.split('/')[0]), alias)
})

test('media list --path and the start-time range use the API filters', async () => {
  const siteA = json(await w.mas(['media', 'list', '--library', String(library), '--path', 'siteA/', '--json']))
  assert.equal(siteA.map((f: any) => f.alias).sort(), [
    'siteA/2026-05-01/20260501_050000.WAV',
    'siteA/2026-05-02/20260502_050000.WAV',
  ])
  const may1 = json(
    await w.mas(['media', 'list', '--from', '2026-05-01T00:00:00', '--to', '2026-05-01T23:59:59', '--json']),
  )
  assert.equal(may1.map((f: any) => f.alias).sort(), [
    'siteA/2026-05-01/20260501_050000.WAV',
    'siteB/2026-05-01/20260501_050000.WAV',
    'siteB/2026-05-01/renamed_20990101_000000.WAV',
  ])
  const table = await w.mas(['media', 'list', '--path', 'siteC/guano'])
  assert.is(table.code, 0, table.stderr)
  assert.match(table.stdout, /siteC\/guano\.wav .*2026-05-05T22:00:00/)
  const bad = await w.mas(['media', 'list', '--from', 'last tuesday'])
  assert.is(bad.code, 1)
  // named as the flag that carries it, not as the API's filter
  assert.match(bad.stderr, /--from: /)
  assert.not.match(bad.stderr, /realStartTime__gte/)
})

test('a re-run imports nothing; a changed file under a taken alias is skipped and listed; --strict refuses damage', async () => {
  const again = await w.mas([
    'media',
    'import',
    season,
    '--library',
    String(library),
    '--recursive',
    '--sensor-per-folder',
  ])
  assert.is(again.code, 0, again.stderr)
  assert.match(again.stderr, /Imported 0, skipped 11 already present/)
  const sensorArrays = (
    await w.t.app.inject({ method: 'GET', url: '/api/v0/sensorArray/', headers: alice.auth })
  ).json().results
  assert.is(sensorArrays.length, 1)
  assert.is(sensorArrays[0].sensor_set.length, 4)

  put('siteB/2026-05-01/20260501_050000.WAV', makeWav({ ...o, frequency: 999 }))
  put('siteE/20260509_050000.WAV', truncated(makeWav({ ...o, seconds: 2, frequency: 380 })))
  const changed = await w.mas([
    'media',
    'import',
    season,
    '--library',
    String(library),
    '--recursive',
    '--strict',
    '--json',
  ])
  assert.is(changed.code, 1, changed.stderr)
  const records = json(changed)
  const taken = records.find((r: any) => r.path.endsWith('siteB/2026-05-01/20260501_050000.WAV'))
  assert.is(taken.outcome, 'alias-taken')
  assert.match(taken.reason, /alias/)
  const refused = records.find((r: any) => r.path.endsWith('siteE/20260509_050000.WAV'))
  assert.is(refused.outcome, 'failed')
  assert.match(refused.reason, /truncated/)
  assert.match(changed.stderr, /skipped 1 whose alias the library holds with other bytes/)
  assert.match(changed.stderr, /skipped .*siteB\/2026-05-01\/20260501_050000\.WAV: alias taken/)
  const files = await byAlias()
  assert.not.ok(files.has('siteE/20260509_050000.WAV'))
})

test('--alias-from name, --start-time-from name|none and --time-offset', async () => {
  const other = Number((await w.mas(['library', 'create', 'Local time'])).stdout.trim())
  const dir = join(w.newHome(), 'moth')
  mkdirSync(join(dir, 'siteZ'), { recursive: true })
  writeFileSync(
    join(dir, 'siteZ', '20260601_230000.WAV'),
    audioMothWav(new Date(Date.UTC(2026, 5, 1, 23, 0, 0)), { ...o, frequency: 400 }),
  )
  writeFileSync(
    join(dir, 'siteZ', '20260601_000000.WAV'),
    audioMothWav(new Date(Date.UTC(2026, 5, 2, 2, 0, 0)), { ...o, frequency: 410 }),
  )
  const run = await w.mas([
    'media',
    'import',
    dir,
    '--library',
    String(other),
    '-r',
    '--alias-from',
    'name',
    '--time-offset',
    '+02:00',
    '--json',
  ])
  assert.is(run.code, 0, run.stderr)
  let files = json(await w.mas(['media', 'list', '--library', String(other), '--json']))
  assert.equal(files.map((f: any) => [f.alias, f.realStartTime, f.sensor]).sort(), [
    ['20260601_000000.WAV', '2026-06-02T04:00:00', null],
    ['20260601_230000.WAV', '2026-06-02T01:00:00', null],
  ])
  const third = Number((await w.mas(['library', 'create', 'By name'])).stdout.trim())
  assert.is(
    (await w.mas(['media', 'import', dir, '--library', String(third), '-r', '--start-time-from', 'name'])).code,
    0,
  )
  files = json(await w.mas(['media', 'list', '--library', String(third), '--json']))
  assert.equal(files.map((f: any) => [f.alias, f.realStartTime]).sort(), [
    ['siteZ/20260601_000000.WAV', '2026-06-01T00:00:00'],
    ['siteZ/20260601_230000.WAV', '2026-06-01T23:00:00'],
  ])
  const fourth = Number((await w.mas(['library', 'create', 'No times'])).stdout.trim())
  assert.is(
    (await w.mas(['media', 'import', dir, '--library', String(fourth), '-r', '--start-time-from', 'none'])).code,
    0,
  )
  files = json(await w.mas(['media', 'list', '--library', String(fourth), '--json']))
  assert.equal(
    files.map((f: any) => f.realStartTime),
    [null, null],
  )
  const bad = await w.mas(['media', 'import', dir, '--library', String(fourth), '-r', '--time-offset', 'two hours'])
  assert.is(bad.code, 2)
  assert.match(bad.stderr, /--time-offset two hours: give an offset as \+hh:mm/)
})

test.run()
