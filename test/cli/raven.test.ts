import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeWav } from '../helpers/wav.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// Raven round trips (issue "A field season without friction"): a season's folder tree imported with
// `mas media import`, a Raven Pro 1.6 table as Raven writes it imported, exported against the folders on
// the user's disk and imported again, every column compared; tables never mix sequences of recordings.

let w: CliWorld
let alice: TestUser
let root: string
const file: Record<string, number> = {}

// three sites, the same AudioMoth names at each; siteA's two recordings of May 1st are one sequence
const RECORDINGS: Array<[string, number]> = [
  ['siteA/20260501/20260501_060000.WAV', 300],
  ['siteA/20260501/20260501_061000.WAV', 400],
  ['siteB/20260501/20260501_060000.WAV', 500],
  ['siteC/20260502/20260502_071000.WAV', 600],
]
const SECONDS = 4
const RATE = 16000

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  root = join(w.newHome(), 'Field')
  for (const [path, frequency] of RECORDINGS) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), makeWav({ seconds: SECONDS, sampleRate: RATE, frequency }))
  }
  assert.is((await w.mas(['library', 'create', 'Season'])).code, 0)
  const imported = await w.mas(['media', 'import', root, '--library', 'Season', '--recursive'])
  assert.is(imported.code, 0, imported.stderr)
  for (const m of json(await w.mas(['media', 'list', '--library', 'Season', '--json']))) file[m.alias] = m.id
  assert.equal(Object.keys(file).sort(), RECORDINGS.map(([p]) => p).sort())
  for (const name of ['wren', 'robin'])
    assert.is((await w.mas(['tagclass', 'create', name, '--library', 'Season'])).code, 0)
})
test.after(async () => {
  await w.close()
})

const RAVEN_HEADER = [
  'Selection',
  'View',
  'Channel',
  'Begin Time (s)',
  'End Time (s)',
  'Low Freq (Hz)',
  'High Freq (Hz)',
  'Begin Path',
  'File Offset (s)',
  'Begin File',
  'Delta Time (s)',
  'Species',
  'Notes',
]
const path = (alias: string) => `D:\\Field\\${alias.replaceAll('/', '\\')}`
/** Raven's two rows of a selection: Waveform (the whole band) and Spectrogram; Begin Time runs on across siteA's files (4 s each). */
const selection = (
  n: number,
  alias: string,
  begin: string,
  end: string,
  low: string,
  high: string,
  offset: string,
  delta: string,
  species: string,
  notes: string,
) =>
  [
    ['Waveform 1', '0.000', '8000.000'],
    ['Spectrogram 1', low, high],
  ].map(([view, lo, hi]) =>
    [
      String(n),
      view,
      '1',
      begin,
      end,
      lo,
      hi,
      path(alias),
      offset,
      alias.split('/').pop()!,
      delta,
      species,
      notes,
    ].join('\t'),
  )
const TABLE =
  [
    RAVEN_HEADER.join('\t'),
    ...selection(
      1,
      'siteA/20260501/20260501_060000.WAV',
      '1.250000',
      '2.000000',
      '2100.000',
      '5800.000',
      '1.250000',
      '0.7500',
      'wren',
      'faint, behind the "stream"',
    ),
    ...selection(
      2,
      'siteA/20260501/20260501_061000.WAV',
      '5.500000',
      '6.100000',
      '1400.000',
      '3200.000',
      '1.500000',
      '0.6000',
      'robin',
      '',
    ),
    ...selection(
      3,
      'siteA/20260501/20260501_061000.WAV',
      '7.000000',
      '7.900000',
      '900.000',
      '1800.000',
      '3.000000',
      '0.9000',
      'wren',
      'two calls',
    ),
  ].join('\r\n') + '\r\n'

/** A table's rows as objects of its columns. */
function rowsOf(text: string): Array<Record<string, string>> {
  const [header, ...rows] = text
    .split(/\r?\n/)
    .filter((l) => l !== '')
    .map((l) => l.split('\t'))
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])))
}

/** A cell compared as Raven means it: numbers as numbers (Raven writes 1.250000, mas 1.25), the rest as text. */
const same = (a: string, b: string) =>
  a.trim() !== '' && Number.isFinite(Number(a)) ? Number(a) === Number(b) : a === b

const tagsOf = async (set: string) => {
  const id = json(await w.mas(['tagset', 'list', '--json'])).find((s: { name: string }) => s.name === set).id
  return (await w.t.call('GET', `/api/v0/tagSet/${id}/tags/?page_size=1000`, { as: alice })).data.results
}
/** file, class, times, frequencies and annotations of each tag, in a stable order */
const contents = (tags: any[]) =>
  tags
    .map((t) =>
      JSON.stringify([t.mediaFile, t.tagClass, t.startTime, t.endTime, t.minFrequency, t.maxFrequency, t.annotations]),
    )
    .sort()

async function tagSet(name: string): Promise<void> {
  await w.tagSet(alice, name, 'Season')
}

test('Raven table → import → export against the folders on disk → import: every column and value comes back', async () => {
  await tagSet('raven')
  const imported = await w.mas(['tag', 'import', '-', '--tag-set', 'raven'], { input: TABLE })
  assert.is(imported.code, 0, imported.stderr)
  assert.not.match(imported.stderr, /Warning/)
  const tags = await tagsOf('raven')
  // siteA's file of 06:00 and not siteB's, of the same name: the longest path ending; the places in each file
  assert.equal(
    tags.map((t: any) => [t.mediaFile, t.startTime, t.endTime, t.annotations]).sort((a: any, b: any) => a[1] - b[1]),
    [
      [
        file['siteA/20260501/20260501_060000.WAV'],
        1.25,
        2,
        { 'Delta Time (s)': '0.7500', Notes: 'faint, behind the "stream"' },
      ],
      // an empty cell says nothing: no Notes (the column still comes back, as other tags have it)
      [file['siteA/20260501/20260501_061000.WAV'], 1.5, 2.1, { 'Delta Time (s)': '0.6000' }],
      [file['siteA/20260501/20260501_061000.WAV'], 3, 3.9, { 'Delta Time (s)': '0.9000', Notes: 'two calls' }],
    ],
  )

  const exported = await w.mas([
    'tag',
    'export',
    '--tag-set',
    'raven',
    '--format',
    'raven',
    '--path-prefix',
    'D:\\Field',
    '--waveform-rows',
  ])
  assert.is(exported.code, 0, exported.stderr)
  const original = rowsOf(TABLE)
  const written = rowsOf(exported.stdout)
  assert.is(written.length, original.length)
  // every column of Raven's table, every row (Waveform rows made again), the same value
  original.forEach((row, i) => {
    for (const column of RAVEN_HEADER) {
      assert.ok(column in written[i], `the export has no column ${column}`)
      assert.ok(
        same(row[column], written[i][column]),
        `row ${i + 1}, ${column}: ${JSON.stringify(row[column])} became ${JSON.stringify(written[i][column])}`,
      )
    }
  })

  // imported again without the columns mas adds, its flags, ids and mas_provenance (as a table edited in Raven and
  // saved): the same tags, annotations and all
  assert.ok(!/[^\r]\n/.test(exported.stdout), 'every line ends with CRLF, as Raven writes')
  const lines = exported.stdout.split('\r\n').map((l) => l.split('\t'))
  const ids = new Set(lines[0].flatMap((h, i) => (h.startsWith('mas_') ? [i] : [])))
  assert.is(ids.size, 7)
  const withoutIds = lines.map((cells) => cells.filter((_c, i) => !ids.has(i)).join('\t')).join('\r\n')
  await tagSet('raven again')
  const again = await w.mas(['tag', 'import', '-', '--tag-set', 'raven again'], { input: withoutIds })
  assert.is(again.code, 0, again.stderr)
  assert.equal(contents(await tagsOf('raven again')), contents(tags))
})

test('tags in several sequences: exit 2 without --per-sequence or --per-file; a table per sequence, or per recording', async () => {
  await tagSet('sites')
  const csv =
    [
      'mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency',
      'siteA/20260501/20260501_061000.WAV,wren,0.5,1,1000,2000',
      'siteB/20260501/20260501_060000.WAV,robin,2,3,1500,2500',
      'siteC/20260502/20260502_071000.WAV,wren,1,1.5,800,1600',
    ].join('\n') + '\n'
  assert.is((await w.mas(['tag', 'import', '-', '--tag-set', 'sites'], { input: csv })).code, 0)
  const mixed = await w.mas(['tag', 'export', '--tag-set', 'sites', '--format', 'raven'])
  assert.is(mixed.code, 2)
  assert.is(mixed.stdout, '')
  assert.match(
    mixed.stderr,
    'the tags lie in 3 sequences of recordings (siteA/20260501, siteB/20260501, siteC/20260502)',
  )
  assert.match(mixed.stderr, '--per-sequence DIR')

  const dir = join(w.newHome(), 'tables')
  const perSequence = await w.mas(['tag', 'export', '--tag-set', 'sites', '--format', 'raven', '--per-sequence', dir])
  assert.is(perSequence.code, 0, perSequence.stderr)
  assert.match(perSequence.stderr, `Wrote 3 selection tables below ${dir}`)
  assert.equal(readdirSync(dir).sort(), [
    'siteA_20260501.selections.txt',
    'siteB_20260501.selections.txt',
    'siteC_20260502.selections.txt',
  ])
  // siteA's sequence: the tag on its second file starts after the first file's 4 s
  const siteA = rowsOf(readFileSync(join(dir, 'siteA_20260501.selections.txt'), 'utf8'))
  assert.equal(
    siteA.map((r) => [r['Begin Time (s)'], r['File Offset (s)'], r['Begin Path'], r.Species]),
    [['4.5', '0.5', 'siteA/20260501/20260501_061000.WAV', 'wren']],
  )
  const siteB = rowsOf(readFileSync(join(dir, 'siteB_20260501.selections.txt'), 'utf8'))
  assert.equal(
    siteB.map((r) => [r['Begin Time (s)'], r['Begin File']]),
    [['2', '20260501_060000.WAV']],
  )
  // each table imports back to its own tags
  await tagSet('sites back')
  for (const name of readdirSync(dir))
    assert.is((await w.mas(['tag', 'import', join(dir, name), '--tag-set', 'sites back'])).code, 0)
  assert.equal(contents(await tagsOf('sites back')), contents(await tagsOf('sites')))

  const files = join(w.newHome(), 'files')
  const perFile = await w.mas(['tag', 'export', '--tag-set', 'sites', '--format', 'raven', '--per-file', files])
  assert.is(perFile.code, 0, perFile.stderr)
  assert.match(perFile.stderr, `Wrote 3 selection tables below ${files}`)
  const one = rowsOf(readFileSync(join(files, 'siteA/20260501/20260501_061000.Table.1.selections.txt'), 'utf8'))
  assert.equal(
    one.map((r) => [r['Begin Time (s)'], r['File Offset (s)']]),
    [['0.5', '0.5']],
  )
  assert.ok(existsSync(join(files, 'siteC/20260502/20260502_071000.Table.1.selections.txt')))

  // the flags of Raven tables with another format are refused, naming the flag
  const csvWithFlag = await w.mas(['tag', 'export', '--tag-set', 'sites', '--per-sequence', dir])
  assert.is(csvWithFlag.code, 2)
  assert.match(csvWithFlag.stderr, '--per-sequence is for Raven tables: give --format raven')
})

test("a sensor's recordings are one sequence across its folders: one table, Begin Time running on, named after the sensor", async () => {
  const card = join(w.newHome(), 'card')
  for (const [alias, frequency] of [
    ['AM-7/day1/20260503_050000.WAV', 700],
    ['AM-7/day2/20260504_050000.WAV', 800],
  ] as const) {
    mkdirSync(dirname(join(card, alias)), { recursive: true })
    writeFileSync(join(card, alias), makeWav({ seconds: SECONDS, sampleRate: RATE, frequency }))
  }
  assert.is((await w.mas(['sensor', 'create', 'AM-7'])).code, 0)
  const imported = await w.mas(['media', 'import', card, '--library', 'Season', '--recursive', '--sensor', 'AM-7'])
  assert.is(imported.code, 0, imported.stderr)
  await tagSet('moth')
  const csv =
    [
      'mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency',
      'AM-7/day2/20260504_050000.WAV,robin,0.5,1,1000,2000',
      'AM-7/day1/20260503_050000.WAV,wren,1,2,1000,2000',
    ].join('\n') + '\n'
  assert.is((await w.mas(['tag', 'import', '-', '--tag-set', 'moth'], { input: csv })).code, 0)
  const exported = await w.mas(['tag', 'export', '--tag-set', 'moth', '--format', 'raven'])
  assert.is(exported.code, 0, exported.stderr)
  assert.equal(
    rowsOf(exported.stdout).map((r) => [r['Begin Time (s)'], r['Begin Path'], r['File Offset (s)']]),
    [
      ['1', 'AM-7/day1/20260503_050000.WAV', '1'],
      ['4.5', 'AM-7/day2/20260504_050000.WAV', '0.5'],
    ],
  )
  const dir = join(w.newHome(), 'tables')
  assert.is((await w.mas(['tag', 'export', '--tag-set', 'moth', '--format', 'raven', '--per-sequence', dir])).code, 0)
  assert.equal(readdirSync(dir), ['AM-7.selections.txt'])
})

test('a Begin Path matched by its longest ending; only a row that names several files alike is an error', async () => {
  await tagSet('paths')
  const header =
    'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tBegin Path\tFile Offset (s)\tSpecies'
  const row = (n: number, p: string) => `${n}\tSpectrogram 1\t1\t1\t2\t1000\t2000\t${p}\t1\twren`
  // a path from another computer whose folders go deeper than the library's aliases
  const deep =
    [
      header,
      row(1, 'E:\\backup\\2026\\Field\\siteB\\20260501\\20260501_060000.WAV'),
      row(2, '/mnt/card/siteC/20260502/20260502_071000.WAV'),
    ].join('\r\n') + '\r\n'
  const run = await w.mas(['tag', 'import', '-', '--tag-set', 'paths'], { input: deep })
  assert.is(run.code, 0, run.stderr)
  assert.equal(
    (await tagsOf('paths')).map((t: any) => t.mediaFile).sort(),
    [file['siteB/20260501/20260501_060000.WAV'], file['siteC/20260502/20260502_071000.WAV']].sort(),
  )
  // the file name alone is at siteA and siteB: ambiguous, said with the candidates, nothing sent
  const bare = [header, row(1, '20260501_060000.WAV')].join('\r\n') + '\r\n'
  const ambiguous = await w.mas(['tag', 'import', '-', '--tag-set', 'paths'], { input: bare })
  assert.is(ambiguous.code, 1)
  assert.match(
    ambiguous.stderr,
    /line 2: mediaFile: 2 media files in library "Season" match "20260501_060000.WAV": siteA\/20260501\/20260501_060000.WAV/,
  )
  assert.is((await tagsOf('paths')).length, 2)
})

test('tables of single recordings joined (Begin File, no File Offset): refused with the way out, read with --times-in-file', async () => {
  await tagSet('joined')
  const header =
    'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tBegin File\tSpecies'
  const joined =
    [
      header,
      '1\tSpectrogram 1\t1\t1.5\t2\t1000\t2000\tsiteB/20260501/20260501_060000.WAV\tWREN',
      '2\tSpectrogram 1\t1\t3\t4\t1000\t2000\tsiteC/20260502/20260502_071000.WAV\twren',
    ].join('\r\n') + '\r\n'
  const refused = await w.mas(['tag', 'import', '-', '--tag-set', 'joined'], { input: joined })
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /needs the File Offset \(s\) column .*give --times-in-file/)
  const run = await w.mas(['tag', 'import', '-', '--tag-set', 'joined', '--times-in-file'], { input: joined })
  assert.is(run.code, 0, run.stderr)
  assert.equal(
    (await tagsOf('joined'))
      .map((t: any) => [t.mediaFile, t.startTime, t.endTime])
      .sort((a: number[], b: number[]) => a[1] - b[1]),
    [
      [file['siteB/20260501/20260501_060000.WAV'], 1.5, 2],
      [file['siteC/20260502/20260502_071000.WAV'], 3, 4],
    ],
  )
})

test.run()
