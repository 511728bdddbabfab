import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeJob, makeProject } from '../helpers/jobs.js'
import { makeLibrary, makeMediaFile, makeMetaData, makeTag, makeTagSet } from '../helpers/records.js'
import { makeRecords } from '../helpers/world.js'
import { makeWav } from '../helpers/wav.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// What a field season asks of the command line beyond imports (issue "A field season without friction"):
// tags kept within their recordings, durations and recording order in media lists, names scoped by library,
// numbers as people write them, files left out of an import, the commands that were missing.

let w: CliWorld
let alice: TestUser
let recording: number

test.before(async () => {
  w = await cliWorld()
  ;({ owner: alice, mediaFile: recording } = await makeRecords(w.t, 'alice', {
    tagSet: 'season tags',
    tagClass: { className: 'wren' },
    mediaFile: { alias: 'siteA/20260501_050000.WAV' },
  }))
  await w.login(alice)
  await makeMetaData(w.t.db, recording, 'durationInSeconds', '34.0')
  await makeMetaData(w.t.db, recording, 'sampleRate', '48000')
})
test.after(async () => {
  await w.close()
})

test('mas tag create past the end of the recording, or above half its sample rate, is refused naming the flag, the recording (by its alias) and the limit', async () => {
  const create = (start: string, end: string, maxFreq = '8000') =>
    w.mas([
      'tag',
      'create',
      '--tag-set',
      'season tags',
      '--media-file',
      'siteA/20260501_050000.WAV',
      '--tag-class',
      'wren',
      '--start',
      start,
      '--end',
      end,
      '--max-freq',
      maxFreq,
    ])
  const late = await create('40', '50')
  assert.is(late.code, 1)
  assert.match(
    late.stderr,
    new RegExp(
      `--end: endTime 50\\.0 is past the end of media file ${recording} \\(siteA/20260501_050000\\.WAV\\), at 34\\.0 s\\.`,
    ),
  )
  assert.is(late.stderr.trim().split('\n').length, 1, late.stderr)
  const high = await create('1', '2', '30000')
  assert.is(high.code, 1)
  assert.match(
    high.stderr,
    /--max-freq: maxFrequency 30000\.0 is above half the sample rate of media file \d+ \(siteA\/20260501_050000\.WAV\), 24000\.0 Hz\./,
  )
  const inside = await create('33', '34', '24000')
  assert.is(inside.code, 0, inside.stderr)
  assert.match(inside.stdout, /^\d+\n$/)
})

test('mas tag import holds a table to the same limits before it sends anything: a dry run names the rows, a batched import creates nothing', async () => {
  const dir = w.newHome()
  const table = join(dir, 'season.csv')
  // BirdNET's CSV: rows 3 and 5 (lines 4 and 6) end past the 34 s recording; a user's metadata does not move the limit
  await makeMetaData(w.t.db, recording, 'durationInSeconds', '3600', true)
  const rows = [
    [0, 3],
    [3, 6],
    [30, 36],
    [31, 34],
    [40, 43],
  ]
  writeFileSync(
    table,
    'Start (s),End (s),Scientific name,Common name,Confidence,File\n' +
      rows.map(([a, b]) => `${a},${b},wren,Wren,0.9,siteA/20260501_050000.WAV`).join('\n') +
      '\n',
  )
  const tags = async () =>
    (await w.t.db.selectFrom('tags').select('id').where('media_file_id', '=', recording).execute()).length
  const before = await tags()
  const dry = await w.mas(['tag', 'import', table, '--tag-set', 'season tags', '--dry-run'])
  assert.is(dry.code, 1, dry.stdout + dry.stderr)
  const said = dry.stdout + dry.stderr
  assert.match(
    said,
    new RegExp(
      `line 4: endTime 36\\.0 is past the end of media file ${recording} \\(siteA/20260501_050000\\.WAV\\), at 34\\.0 s\\.`,
    ),
  )
  assert.match(said, /line 6: endTime 43\.0 is past the end/)
  assert.not.match(said, /line [235]:/)
  // in batches of two, the first two rows would be created before the server refused the second batch
  const run = await w.mas(['tag', 'import', table, '--tag-set', 'season tags', '--batch-size', '2'])
  assert.is(run.code, 1, run.stderr)
  assert.match(run.stderr, /line 4: endTime 36\.0 is past the end/)
  assert.is(await tags(), before, 'nothing was created')
  // the good rows alone import
  writeFileSync(
    table,
    'Start (s),End (s),Scientific name,Common name,Confidence,File\n' +
      rows
        .filter(([, b]) => b <= 34)
        .map(([a, b]) => `${a},${b},wren,Wren,0.9,siteA/20260501_050000.WAV`)
        .join('\n') +
      '\n',
  )
  const good = await w.mas(['tag', 'import', table, '--tag-set', 'season tags', '--batch-size', '2'])
  assert.is(good.code, 0, good.stderr)
  assert.is(await tags(), before + 3)
  // a tag set of no library: its rows give ids, and each file's facts are read by its id
  const loose = await w.mas(['tagset', 'create', 'loose tags'])
  assert.is(loose.code, 0, loose.stderr)
  const tagClass = (
    await w.t.db.selectFrom('tag_classes').select('id').where('class_name', '=', 'wren').executeTakeFirstOrThrow()
  ).id
  const ids = join(dir, 'loose.json')
  const tag = (start: number, end: number) => ({
    mediaFile: recording,
    tagClass,
    startTime: start,
    endTime: end,
    minFrequency: 1000,
    maxFrequency: 4000,
  })
  writeFileSync(ids, JSON.stringify([tag(1, 2), tag(3, 4), tag(30, 36)]))
  const refused = await w.mas(['tag', 'import', ids, '--tag-set', 'loose tags', '--batch-size', '2'])
  assert.is(refused.code, 1, refused.stderr)
  assert.match(refused.stderr, /item 3: endTime 36\.0 is past the end/, refused.stderr)
  assert.is(await tags(), before + 3, 'nothing was created')
})

test('mas media list shows duration, sample rate and channels, in recording-time order; --sort and --columns', async () => {
  const lib = Number((await w.mas(['library', 'create', 'Durations'])).stdout.trim())
  const root = join(w.newHome(), 'season')
  const put = (path: string, wav: Buffer) => {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), wav)
  }
  // written in an order other than their recording times (the names give the times)
  put('siteB/20260501_070000.WAV', makeWav({ seconds: 1.5, sampleRate: 8000, frequency: 300 }))
  put('siteA/20260501_050000.WAV', makeWav({ seconds: 0.25, sampleRate: 16000, channels: 2, frequency: 400 }))
  put('siteA/20260501_060000.WAV', makeWav({ seconds: 1.2345, sampleRate: 22050, frequency: 500 }))
  const imported = await w.mas(['media', 'import', root, '--library', String(lib), '--recursive'])
  assert.is(imported.code, 0, imported.stderr)
  const list = await w.mas([
    'media',
    'list',
    '--library',
    String(lib),
    '--columns',
    'alias,started,duration,rate,channels',
    '--csv',
  ])
  assert.is(list.code, 0, list.stderr)
  assert.equal(list.stdout.trim().split('\n'), [
    'ALIAS,STARTED,DURATION,RATE,CHANNELS',
    'siteA/20260501_050000.WAV,2026-05-01T05:00:00,0.25,16000,2',
    'siteA/20260501_060000.WAV,2026-05-01T06:00:00,1.235,22050,1',
    'siteB/20260501_070000.WAV,2026-05-01T07:00:00,1.5,8000,1',
  ])
  const longest = await w.mas([
    'media',
    'list',
    '--library',
    String(lib),
    '--sort',
    '-duration',
    '--columns',
    'alias',
    '--no-header',
  ])
  assert.equal(longest.stdout.trim().split('\n'), [
    'siteB/20260501_070000.WAV',
    'siteA/20260501_060000.WAV',
    'siteA/20260501_050000.WAV',
  ])
  const asJson = json(await w.mas(['media', 'list', '--library', String(lib), '--json']))
  assert.equal(
    asJson.map((f: any) => f.alias),
    ['siteA/20260501_050000.WAV', 'siteA/20260501_060000.WAV', 'siteB/20260501_070000.WAV'],
  )
  const wrong = await w.mas(['media', 'list', '--library', String(lib), '--columns', 'length'])
  assert.is(wrong.code, 2)
  assert.match(
    wrong.stderr,
    /--columns: no column "length"; the columns are id, alias, library, sensor, started, duration, rate, channels, damage, uploaded, file/,
  )
})

test('one path in two libraries: candidates show their library, --library chooses; job parameters take names', async () => {
  const a = await makeLibrary(w.t.db, alice, 'Season A')
  const b = await makeLibrary(w.t.db, alice, 'Season B')
  const alias = 'siteC/20260502/20260502_071000.WAV'
  const inA = await makeMediaFile(w.t.db, alice, a, { alias })
  const inB = await makeMediaFile(w.t.db, alice, b, { alias })
  const both = await w.mas(['media', 'get', alias])
  assert.is(both.code, 1)
  assert.match(
    both.stderr,
    new RegExp(
      `2 media files match "${alias}": ${alias} \\(id ${inA}, library "Season A"\\), ${alias} \\(id ${inB}, library "Season B"\\)`,
    ),
  )
  const chosen = await w.mas(['media', 'get', alias, '--library', 'Season B', '--json'])
  assert.is(chosen.code, 0, chosen.stderr)
  assert.is(json(chosen).id, inB)
  const project = (await w.mas(['project', 'create', 'season survey'])).stdout.trim()
  const added = await w.mas(['project', 'add-media', project, alias, '--library', 'Season A', '--json'])
  assert.is(added.code, 0, added.stderr)
  assert.equal(
    json(added).map((r: any) => r.mediaFile),
    [inA],
  )

  await makeTagSet(w.t.db, alice, a, 'Raven expert')
  const job = await w.mas([
    'job',
    'create',
    '--project',
    project,
    '--type',
    'RandomWindowTagging',
    '--param',
    'destinationTagSet=Raven expert',
    '--param',
    `mediaFileId=${alias}`,
    '--library',
    'Season A',
    '--json',
  ])
  assert.is(job.code, 0, job.stderr)
  const params = Object.fromEntries(json(job).jobparameters_set.map((p: any) => [p.name, p.value]))
  const set = await w.t.db
    .selectFrom('tag_sets')
    .select('id')
    .where('name', '=', 'Raven expert')
    .executeTakeFirstOrThrow()
  assert.equal([params.destinationTagSet, params.mediaFileId], [String(set.id), String(inA)])
  const unknown = await w.mas([
    'job',
    'create',
    '--project',
    project,
    '--type',
    'RandomWindowTagging',
    '--param',
    'destinationTagSet=Raven novice',
  ])
  assert.is(unknown.code, 1)
  assert.match(unknown.stderr, /^Error: --param destinationTagSet: no tag set named "Raven novice"/)
})

test('human tables round times to the millisecond and strengths to three decimals; exports write times as stored, CSV with names', async () => {
  const {
    library: lib,
    tagSet: set,
    tagClass: robin,
    mediaFile: first,
  } = await makeRecords(w.t, alice, {
    library: 'Numbers',
    tagSet: 'numbers',
    tagClass: { className: 'robin' },
    mediaFile: { alias: 'siteA/20260501_050000.WAV', realStartTime: '2026-05-01 05:00:00' },
  })
  await makeMetaData(w.t.db, first, 'durationInSeconds', '98.402958')
  const second = await makeMediaFile(w.t.db, alice, lib, {
    alias: 'siteA/20260501_060000.WAV',
    realStartTime: '2026-05-01 06:00:00',
  })
  await makeMetaData(w.t.db, second, 'durationInSeconds', '60.0')
  await makeTag(
    w.t.db,
    alice,
    { tagSet: set, mediaFile: second, tagClass: robin },
    { startTime: 48.185, endTime: 50.158, minFrequency: 1000, maxFrequency: 4000, strength: 0.9824250809589824 },
  )
  await makeTag(
    w.t.db,
    alice,
    { tagSet: set, mediaFile: second, tagClass: robin },
    { startTime: 5, endTime: 5.1579999999999995, minFrequency: 1000, maxFrequency: 4000 },
  )
  const table = await w.mas(['tag', 'list', '--tag-set', 'numbers', '--columns', 'start,end,strength', '--csv'])
  assert.is(table.code, 0, table.stderr)
  // the second tag, made by hand, has no strength to show (issue 47)
  assert.equal(table.stdout.trim().split('\n'), ['START,END,STRENGTH', '48.185,50.158,0.982', '5,5.158,'])
  const csv = await w.mas(['tag', 'export', '--tag-set', 'numbers'])
  assert.is(csv.code, 0, csv.stderr)
  assert.equal(csv.stdout.trim().split('\n'), [
    'mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency,strength,machineTagged,userTagged,randomlyChosen,mediaFileAlias,tagClassName,annotations,provenance',
    `${second},${robin},48.185,50.158,1000,4000,0.9824250809589824,false,false,false,siteA/20260501_060000.WAV,robin,,`,
    `${second},${robin},5,5.1579999999999995,1000,4000,0,false,false,false,siteA/20260501_060000.WAV,robin,,`,
  ])
  // the export imports again (the names are read past, the ids used)
  const copy = await makeTagSet(w.t.db, alice, lib, 'numbers copy')
  const imported = await w.mas(['tag', 'import', '-', '--tag-set', String(copy)], { input: csv.stdout })
  assert.is(imported.code, 0, imported.stderr)
  // Begin Time runs on from the first file's 98.402958 s, written without binary noise
  const raven = await w.mas(['tag', 'export', '--tag-set', 'numbers', '--format', 'raven'])
  assert.is(raven.code, 0, raven.stderr)
  const row = raven.stdout.trim().split('\r\n')[2].split('\t')
  assert.equal(row.slice(3, 5), ['146.587958', '148.560958'])
})

test('media import leaves out hidden files, what --exclude names and what no --include names; an empty file is skipped (an error with --strict)', async () => {
  const lib = Number((await w.mas(['library', 'create', 'Left out'])).stdout.trim())
  const root = join(w.newHome(), 'season')
  const put = (path: string, bytes: Buffer) => {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), bytes)
  }
  let tone = 300
  const wav = () => makeWav({ seconds: 0.2, sampleRate: 8000, frequency: (tone += 20) })
  put('siteA/20260501_050000.WAV', wav())
  put('siteA/20260501_050000.mp3', wav())
  put('siteA/.DS_Store', Buffer.from('junk'))
  put('siteA/._20260501_050000.WAV', Buffer.from('AppleDouble'))
  put('siteB/20260501_050000.WAV', wav())
  put('siteC/20260501_050000.WAV', wav())
  put('siteC/20260501_060000.WAV', Buffer.alloc(0))
  const args = [
    'media',
    'import',
    root,
    '--library',
    String(lib),
    '--recursive',
    '--exclude',
    '*.mp3',
    '--exclude',
    'siteB/**',
  ]
  const first = await w.mas(args)
  assert.is(first.code, 0, first.stderr)
  assert.match(
    first.stderr,
    /Imported 2, skipped 0 already present, skipped 0 not media, skipped 1 empty, left out 2 by --include\/--exclude, failed 0/,
  )
  assert.match(first.stderr, /skipped .*siteC\/20260501_060000\.WAV: empty file \(0 bytes\)/)
  assert.not.match(first.stderr, /DS_Store|\._2026/)
  const aliases = async () =>
    (
      await w.t.db.selectFrom('media_files').select('alias').where('library_id', '=', lib).orderBy('alias').execute()
    ).map((r) => r.alias)
  assert.equal(await aliases(), ['siteA/20260501_050000.WAV', 'siteC/20260501_050000.WAV'])
  const again = await w.mas(args)
  assert.is(again.code, 0, again.stderr)
  assert.match(again.stderr, /Imported 0, skipped 2 already present, skipped 0 not media, skipped 1 empty/)
  const strict = await w.mas([...args, '--strict'])
  assert.is(strict.code, 1)
  assert.match(strict.stderr, /refusing .*siteC\/20260501_060000\.WAV: empty file \(0 bytes\)/)
  const only = await w.mas([
    'media',
    'import',
    root,
    '--library',
    String(lib),
    '--recursive',
    '--include',
    'siteB/**',
    '--json',
  ])
  assert.is(only.code, 0, only.stderr)
  assert.equal(
    json(only)
      .filter((r: any) => r.outcome === 'imported')
      .map((r: any) => r.path),
    [join(root, 'siteB/20260501_050000.WAV')],
  )
})

test('mas job types lists names, ids and parameters with their defaults', async () => {
  const run = await w.mas(['job', 'types', '--csv'])
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stdout, /^ID,NAME,PARAMETERS\n/)
  assert.match(run.stdout, /\n8,Test,numToComplete=10 secondsPerStep=0 numChildren=0\n/)
  assert.match(
    run.stdout,
    /\n2,RandomWindowTagging,destinationTagSet\(required\) numWindowsToTag=10 windowSizeInSeconds=1 mediaFileId\? library\? folder\? tagClass\? seed\?\n/,
  )
  // the original's types mas keeps only to name its jobs say that no worker runs them
  assert.match(run.stdout, /\n3,TagAnalysis,\(no worker of mas runs it\)\n/)
  const types = json(await w.mas(['job', 'types', '--json']))
  assert.equal(types.find((t: any) => t.id === 8).parameters.numToComplete.default, 10)
  assert.equal([types.find((t: any) => t.id === 8).runs, types.find((t: any) => t.id === 3).runs], [true, false])
})

test('mas sensor-array and mas sensor create, list and delete, by name; --library lists the folder sensors of an import', async () => {
  const array = await w.mas(['sensor-array', 'create', 'Forest grid', '--rows', '2', '--columns', '3'])
  assert.is(array.code, 0, array.stderr)
  const sensor = await w.mas(['sensor', 'create', 'SM4-03', '--array', 'Forest grid', '--row', '1', '--column', '2'])
  assert.is(sensor.code, 0, sensor.stderr)
  const arrays = await w.mas(['sensor-array', 'list', '--csv'])
  assert.match(arrays.stdout, new RegExp(`\n${array.stdout.trim()},Forest grid,2,3,SM4-03\n?`))
  const sensors = await w.mas([
    'sensor',
    'list',
    '--array',
    'Forest grid',
    '--csv',
    '--columns',
    'name,array,row,column',
  ])
  assert.equal(sensors.stdout.trim().split('\n'), ['NAME,ARRAY,ROW,COLUMN', 'SM4-03,Forest grid,1,2'])
  // an import with a sensor per recorder folder: its array is named after the library
  const lib = Number((await w.mas(['library', 'create', 'Folders'])).stdout.trim())
  const root = join(w.newHome(), 'season')
  for (const [i, site] of ['SM4-01', 'SM4-02'].entries()) {
    mkdirSync(join(root, site), { recursive: true })
    writeFileSync(
      join(root, site, '20260501_050000.WAV'),
      makeWav({ seconds: 0.2, sampleRate: 8000, frequency: 700 + i * 50 }),
    )
  }
  assert.is(
    (await w.mas(['media', 'import', root, '--library', String(lib), '--recursive', '--sensor-per-folder'])).code,
    0,
  )
  const folderSensors = await w.mas(['sensor', 'list', '--library', 'Folders', '--columns', 'name', '--no-header'])
  assert.equal(folderSensors.stdout.trim().split('\n'), ['SM4-01', 'SM4-02'])
  const gone = await w.mas(['sensor', 'delete', 'SM4-03', '--yes'])
  assert.is(gone.code, 0, gone.stderr)
  assert.is((await w.mas(['sensor-array', 'delete', 'Forest grid', '--yes'])).code, 0)
  assert.not.match((await w.mas(['sensor', 'list', '--csv'])).stdout, /SM4-03/)
  const unasked = await w.mas(['sensor', 'delete', 'SM4-01'])
  assert.is(unasked.code, 2, unasked.stderr)
})

test('mas job result list shows the result files of the job and of its children', async () => {
  const project = await makeProject(w.t.db, alice)
  const parent = await makeJob(w.t.db, alice, project, 8)
  const child = await makeJob(w.t.db, alice, project, 8)
  await w.t.db.updateTable('jobs').set({ parent_job_id: parent }).where('id', '=', child).execute()
  const file = join(w.home, 'found.csv')
  writeFileSync(file, 'a,b\n1,2\n')
  assert.is((await w.mas(['job', 'result', 'upload', String(parent), file, '--notes', 'summary'])).code, 0)
  assert.is((await w.mas(['job', 'result', 'upload', String(child), file, '--notes', 'tags of one file'])).code, 0)
  const listed = json(await w.mas(['job', 'result', 'list', String(parent), '--json']))
  assert.equal(
    listed.map((f: any) => [f.job, f.notes]),
    [
      [parent, 'summary'],
      [child, 'tags of one file'],
    ],
  )
  // -o - writes to stdout, not to a file named -
  const toStdout = await w.mas(['job', 'result', 'download', String(listed[1].id), '-o', '-'])
  assert.is(toStdout.code, 0, toStdout.stderr)
  assert.is(toStdout.stdout, 'a,b\n1,2\n')
})

test('a refused --from or --to names the flag, not the API filter', async () => {
  const run = await w.mas(['media', 'list', '--from', '2026-05-01x'])
  assert.is(run.code, 1)
  assert.match(run.stderr, /^Error: Rejected \(400\): --from: /)
  assert.not.match(run.stderr, /realStartTime__gte/)
})

test.run()
