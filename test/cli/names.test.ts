import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeLibrary, makeMediaFile, makeMetaData, makeTagClass } from '../helpers/records.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// Names instead of ids: tag files naming species and recordings, Raven tables as Raven writes them,
// record flags by name, and names in human output.

let w: CliWorld
let alice: TestUser
let library: number
const file: Record<string, number> = {}
const cls: Record<string, number> = {}
let out: string

const HEADER = 'mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency'
/** [media file, class, start, end, low, high] of each tag, in a stable order */
const regions = (tags: any[]) =>
  tags
    .map((t) => [t.mediaFile, t.tagClass, t.startTime, t.endTime, t.minFrequency, t.maxFrequency])
    .sort((a, b) => String(a).localeCompare(String(b)))
const tagsOf = async (set: number) =>
  (await w.t.call('GET', `/api/v0/tagSet/${set}/tags/?page_size=1000`, { as: alice })).data.results

const newTagSet = (name: string, lib = library): Promise<number> => w.tagSet(alice, name, lib)

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  library = await makeLibrary(w.t.db, alice, 'season 2026')
  // two recorders wrote files of the same name; the library knows how long each recording lasts
  const recordings: [string, string | null, number][] = [
    ['siteA/2026-05-01/20260501_050000.WAV', '2026-05-01T05:00:00', 60],
    ['siteB/2026-05-01/20260501_050000.WAV', '2026-05-01T05:00:00', 60],
    ['siteA/2026-05-01/20260501_060000.WAV', '2026-05-01T06:00:00', 30.5],
    ['siteA/2026-05-02/dawn.wav', null, 10],
  ]
  for (const [alias, start, seconds] of recordings) {
    file[alias] = await makeMediaFile(w.t.db, alice, library, {
      alias,
      file: alias.replace(/\//g, '_'),
      realStartTime: start,
    })
    await makeMetaData(w.t.db, file[alias], 'durationInSeconds', String(seconds))
  }
  for (const name of ['blackbird', 'robin', '12']) cls[name] = await makeTagClass(w.t.db, alice, library, name)
  out = mkdtempSync(join(tmpdir(), 'mas-names-'))
})
test.after(async () => {
  await w.close()
  rmSync(out, { recursive: true, force: true })
})

test('a CSV naming species and recordings (alias, bare file name, other separators) imports, and exports back the same tags', async () => {
  await newTagSet('experts')
  const csv =
    [
      HEADER,
      'siteA/2026-05-01/20260501_050000.WAV,blackbird,1,2,2000,6000',
      '20260501_060000.WAV,robin,0.5,0.75,1500,3000', // the file name alone, unique in the library
      'siteB\\2026-05-01\\20260501_050000.WAV,name:12,3,4,0,100', // a class named 12
      `${file['siteA/2026-05-02/dawn.wav']},${cls.robin},0,1,0,1`, // digits are ids
    ].join('\n') + '\n'
  const run = await w.mas(['tag', 'import', '-', '--tag-set', 'experts'], { input: csv })
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stderr, /Imported 4 tags into tag set \d+ \(experts\)/)
  const set = json(await w.mas(['tagset', 'list', '--json'])).find((s: any) => s.name === 'experts').id
  const stored = await tagsOf(set)
  assert.equal(
    regions(stored),
    regions([
      {
        mediaFile: file['siteA/2026-05-01/20260501_050000.WAV'],
        tagClass: cls.blackbird,
        startTime: 1,
        endTime: 2,
        minFrequency: 2000,
        maxFrequency: 6000,
      },
      {
        mediaFile: file['siteA/2026-05-01/20260501_060000.WAV'],
        tagClass: cls.robin,
        startTime: 0.5,
        endTime: 0.75,
        minFrequency: 1500,
        maxFrequency: 3000,
      },
      {
        mediaFile: file['siteB/2026-05-01/20260501_050000.WAV'],
        tagClass: cls['12'],
        startTime: 3,
        endTime: 4,
        minFrequency: 0,
        maxFrequency: 100,
      },
      {
        mediaFile: file['siteA/2026-05-02/dawn.wav'],
        tagClass: cls.robin,
        startTime: 0,
        endTime: 1,
        minFrequency: 0,
        maxFrequency: 1,
      },
    ]),
  )
  // round trip: the export imports into another tag set unchanged
  const exported = await w.mas(['tag', 'export', '--tag-set', 'experts'])
  const copy = await newTagSet('experts copy')
  assert.is((await w.mas(['tag', 'import', '-', '--tag-set', String(copy)], { input: exported.stdout })).code, 0)
  assert.equal(regions(await tagsOf(copy)), regions(stored))
})

test('names matching nothing or several records: every line named with its candidates, unknown classes listed once, nothing written', async () => {
  const set = await newTagSet('careful')
  const csv =
    [
      HEADER,
      `${file['siteA/2026-05-02/dawn.wav']},blackbird,0,1,0,1`, // fine on its own
      '20260501_050000.WAV,blackbird,0,1,0,1', // two folders hold this name
      'siteA/2026-05-01/20260501_050000.WAV,sparrow,0,1,0,1',
      'nosuch.wav,robin,0,1,0,1',
      'dawn.wav,wren,0,1,0,1',
      'dawn.wav,sparrow,0,1,0,1',
    ].join('\n') + '\n'
  const run = await w.mas(['tag', 'import', '-', '--tag-set', String(set)], { input: csv })
  assert.is(run.code, 1)
  assert.match(
    run.stderr,
    `line 3: mediaFile: 2 media files in library "season 2026" match "20260501_050000.WAV": ` +
      `siteA/2026-05-01/20260501_050000.WAV (id ${file['siteA/2026-05-01/20260501_050000.WAV']}), ` +
      `siteB/2026-05-01/20260501_050000.WAV (id ${file['siteB/2026-05-01/20260501_050000.WAV']})`,
  )
  assert.match(run.stderr, `line 5: mediaFile: no media file named "nosuch.wav" in library "season 2026"`)
  // the unknown classes: one error naming them all, not one per line
  assert.match(
    run.stderr,
    `no tag classes named "sparrow", "wren" in library "season 2026" (--create-classes creates them)`,
  )
  assert.not.match(run.stderr, /line 4|line 6|line 7/)
  assert.match(run.stderr, /3 errors in stdin; nothing was sent/)
  assert.equal(await tagsOf(set), [])
  const classes = json(await w.mas(['tagclass', 'list', '--library', String(library), '--json'])).map(
    (c: any) => c.className,
  )
  assert.not.ok(classes.includes('sparrow'))
  // the JSON forms take names too, and their rows are named by item
  const items = JSON.stringify([
    { mediaFile: 'dawn.wav', tagClass: 'robin', startTime: 0, endTime: 1, minFrequency: 0, maxFrequency: 1 },
    { mediaFile: 'dawn.wav', tagClass: 'nosuch:x', startTime: 0, endTime: 1, minFrequency: 0, maxFrequency: 1 },
  ])
  const bad = await w.mas(['tag', 'import', '-', '--tag-set', String(set)], { input: items })
  assert.match(bad.stderr, 'no tag class named "nosuch:x"')
  assert.equal(await tagsOf(set), [])
})

test('--create-classes creates the missing classes, then imports', async () => {
  const set = await newTagSet('new species')
  const csv = `${HEADER}\ndawn.wav,sparrow,0,1,0,1\ndawn.wav,wren,1,2,0,1\ndawn.wav,robin,2,3,0,1\n`
  const run = await w.mas(['tag', 'import', '-', '--tag-set', 'new species', '--create-classes'], { input: csv })
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stderr, `Created 2 tag classes in library "season 2026": sparrow, wren`)
  const classes = new Map<string, number>(
    json(await w.mas(['tagclass', 'list', '--library', 'season 2026', '--json'])).map((c: any) => [c.className, c.id]),
  )
  assert.equal(
    (await tagsOf(set)).map((t: any) => t.tagClass),
    [classes.get('sparrow'), classes.get('wren'), cls.robin],
  )
})

test('on a terminal, tag import asks before creating missing classes; no creates nothing', async () => {
  const set = await newTagSet('asked')
  const path = join(out, 'nightjar.csv')
  writeFileSync(path, `${HEADER}\ndawn.wav,nightjar,0,1,0,1\n`)
  const declined = await w.tty(['tag', 'import', path, '--tag-set', 'asked'])
  try {
    await declined.waitFor(new RegExp(`Create 1 tag class in library "season 2026": nightjar\\?`))
    await declined.keys('n', 'Enter')
    await declined.waitFor(/no tag class named "nightjar" .*nothing was sent/s)
    assert.is(await declined.exited(), 1)
  } finally {
    await declined.close()
  }
  assert.equal(await tagsOf(set), [])
  const accepted = await w.tty(['tag', 'import', path, '--tag-set', 'asked'])
  try {
    await accepted.waitFor(/nightjar\?/)
    await accepted.keys('y', 'Enter')
    await accepted.waitFor(/Imported 1 tag into tag set/)
    assert.is(await accepted.exited(), 0)
  } finally {
    await accepted.close()
  }
  const nightjar = json(await w.mas(['tagclass', 'list', '--library', 'season 2026', '--json'])).find(
    (c: any) => c.className === 'nightjar',
  )
  assert.equal(
    (await tagsOf(set)).map((t: any) => t.tagClass),
    [nightjar.id],
  )
})

// Raven Pro 1.6's own multi-file table: a Waveform and a Spectrogram row per selection, Begin Time
// running on across the files, Begin Path as on the computer that made it, a column mas does not read.
const RAVEN =
  [
    'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tBegin Path\tFile Offset (s)\tBegin File\tDelta Time (s)\tSpecies',
    '1\tWaveform 1\t1\t1.250000\t2.000000\t0.000\t24000.000\tC:\\Users\\ana\\season\\siteA\\2026-05-01\\20260501_050000.WAV\t1.250000\t20260501_050000.WAV\t0.7500\tblackbird',
    '1\tSpectrogram 1\t1\t1.250000\t2.000000\t2100.000\t5800.000\tC:\\Users\\ana\\season\\siteA\\2026-05-01\\20260501_050000.WAV\t1.250000\t20260501_050000.WAV\t0.7500\tblackbird',
    '2\tWaveform 1\t1\t62.500000\t63.100000\t0.000\t24000.000\tC:\\Users\\ana\\season\\siteB\\2026-05-01\\20260501_050000.WAV\t2.500000\t20260501_050000.WAV\t0.6000\trobin',
    '2\tSpectrogram 1\t1\t62.500000\t63.100000\t1400.000\t3200.000\tC:\\Users\\ana\\season\\siteB\\2026-05-01\\20260501_050000.WAV\t2.500000\t20260501_050000.WAV\t0.6000\trobin',
    '3\tSpectrogram 1\t1\t125.000000\t126.500000\t900.000\t1800.000\tC:\\Users\\ana\\season\\siteA\\2026-05-01\\20260501_060000.WAV\t5.000000\t20260501_060000.WAV\t1.5000\trobin',
  ].join('\r\n') + '\r\n'

test('a Raven multi-file table as Raven writes it: spectrogram rows, the place in each file, paths from another computer', async () => {
  const set = await newTagSet('raven')
  const run = await w.mas(['tag', 'import', '-', '--tag-set', String(set)], { input: RAVEN })
  assert.is(run.code, 0, run.stderr)
  // the column mas has no field for is kept with each tag (its annotations), not warned about
  assert.not.match(run.stderr, 'Warning')
  assert.equal((await tagsOf(set)).map((t: any) => t.annotations['Delta Time (s)']).sort(), [
    '0.6000',
    '0.7500',
    '1.5000',
  ])
  assert.equal(
    regions(await tagsOf(set)),
    regions([
      {
        mediaFile: file['siteA/2026-05-01/20260501_050000.WAV'],
        tagClass: cls.blackbird,
        startTime: 1.25,
        endTime: 2,
        minFrequency: 2100,
        maxFrequency: 5800,
      },
      {
        mediaFile: file['siteB/2026-05-01/20260501_050000.WAV'],
        tagClass: cls.robin,
        startTime: 2.5,
        endTime: 3.1,
        minFrequency: 1400,
        maxFrequency: 3200,
      },
      {
        mediaFile: file['siteA/2026-05-01/20260501_060000.WAV'],
        tagClass: cls.robin,
        startTime: 5,
        endTime: 6.5,
        minFrequency: 900,
        maxFrequency: 1800,
      },
    ]),
  )
  // --class-column: another column holds the class
  const other = RAVEN.replace('\tSpecies', '\tCall type')
  const refused = await w.mas(['tag', 'import', '-', '--tag-set', String(set)], { input: other })
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /missing a class column \(Species, Annotation, Class, Label, Tag/)
  const chosen = await newTagSet('raven call type')
  const byColumn = await w.mas(['tag', 'import', '-', '--tag-set', String(chosen), '--class-column', 'Call type'], {
    input: other,
  })
  assert.is(byColumn.code, 0, byColumn.stderr)
  assert.is((await tagsOf(chosen)).length, 3)
  const notRaven = await w.mas(['tag', 'import', '-', '--tag-set', String(chosen), '--class-column', 'Species'], {
    input: `${HEADER}\n`,
  })
  assert.is(notRaven.code, 2)
  assert.match(notRaven.stderr, '--class-column is for Raven selection tables; stdin holds csv')
})

test('export --format raven → import into another tag set is exact; Begin Time runs on across the files of each folder', async () => {
  const experts = json(await w.mas(['tagset', 'list', '--json'])).find((s: any) => s.name === 'experts').id
  // the tags lie in three folders' recordings: one table would mix them
  const mixed = await w.mas(['tag', 'export', '--tag-set', 'experts', '--format', 'raven'])
  assert.is(mixed.code, 2)
  const dir = join(out, 'sequences')
  const exported = await w.mas(['tag', 'export', '--tag-set', 'experts', '--format', 'raven', '--per-sequence', dir])
  assert.is(exported.code, 0, exported.stderr)
  const tables = Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]))
  const rowsOf = (text: string) =>
    text
      .trim()
      .split('\n')
      .map((l) => l.split('\t'))
  const header = rowsOf(tables['siteA_2026-05-01.selections.txt'])[0]
  const at = (name: string) => header.indexOf(name)
  const cells = (name: string) =>
    rowsOf(tables[name])
      .slice(1)
      .map((r) => [r[at('Begin Time (s)')], r[at('Begin File')], r[at('File Offset (s)')], r[at('Species')]])
  // siteA's files of May 1st by start time: 05:00 (60 s), then 06:00
  assert.equal(cells('siteA_2026-05-01.selections.txt'), [
    ['1', '20260501_050000.WAV', '1', 'blackbird'],
    ['60.5', '20260501_060000.WAV', '0.5', 'robin'],
  ])
  assert.equal(cells('siteB_2026-05-01.selections.txt'), [['3', '20260501_050000.WAV', '3', 'name:12']]) // a class named 12 is written as a name
  assert.equal(cells('siteA_2026-05-02.selections.txt'), [['0', 'dawn.wav', '0', 'robin']])
  const copy = await newTagSet('from raven')
  for (const text of Object.values(tables)) {
    const run = await w.mas(['tag', 'import', '-', '--tag-set', 'from raven'], { input: text })
    assert.is(run.code, 0, run.stderr)
  }
  assert.equal(regions(await tagsOf(copy)), regions(await tagsOf(experts)))

  // a table of Begin File alone (no Begin Path): the ids decide only where they name a file of that name; a table whose
  // ids mean other files (another server's) is read by the file names, and a name two files share is then an error
  const idAt = at('mas_media_file_id')
  const pathAt = at('Begin Path')
  // the three tables' rows as one table, their selections numbered anew (a table's numbers are its own)
  const rows = [
    header,
    ...['siteA_2026-05-01', 'siteB_2026-05-01', 'siteA_2026-05-02']
      .flatMap((n) => rowsOf(tables[`${n}.selections.txt`]).slice(1))
      .map((r, i) => [String(i + 1), ...r.slice(1)]),
  ]
  const foreignRows = rows.map((r, i) =>
    (i === 0 ? r : r.map((v, j) => (j === idAt ? String(900000 + i) : v))).filter((_v, j) => j !== pathAt),
  )
  const foreign = foreignRows.map((r) => r.join('\t')).join('\n') + '\n'
  const fromElsewhere = await w.mas(['tag', 'import', '-', '--tag-set', String(await newTagSet('foreign'))], {
    input: foreign,
  })
  assert.is(fromElsewhere.code, 1)
  assert.match(
    fromElsewhere.stderr,
    /line 2: mediaFile: 2 media files in library "season 2026" match "20260501_050000.WAV"/,
  )
  assert.match(fromElsewhere.stderr, /line 4: mediaFile: 2 media files/)
  assert.not.match(fromElsewhere.stderr, /line 3|line 5/)
  const unique = [foreignRows[0], foreignRows[2], foreignRows[4]].map((r) => r.join('\t')).join('\n') + '\n'
  const byName = await newTagSet('by name')
  assert.is((await w.mas(['tag', 'import', '-', '--tag-set', String(byName)], { input: unique })).code, 0)
  assert.equal(
    (await tagsOf(byName)).map((t: any) => t.mediaFile),
    [file['siteA/2026-05-01/20260501_060000.WAV'], file['siteA/2026-05-02/dawn.wav']],
  )

  // --per-file: one table per recording, in its alias's folders; each imports back exactly
  const perFile = await w.mas(['tag', 'export', '--tag-set', 'experts', '--format', 'raven', '--per-file', out])
  assert.is(perFile.code, 0, perFile.stderr)
  assert.match(perFile.stderr, `Wrote 4 selection tables below ${out}`)
  const table = readFileSync(join(out, 'siteB/2026-05-01/20260501_050000.Table.1.selections.txt'), 'utf8')
  const line = table.trim().split('\n')[1].split('\t')
  assert.equal([line[at('Begin Time (s)')], line[at('File Offset (s)')], line[at('Species')]], ['3', '3', 'name:12'])
  const one = await newTagSet('one file')
  assert.is(
    (
      await w.mas([
        'tag',
        'import',
        join(out, 'siteB/2026-05-01/20260501_050000.Table.1.selections.txt'),
        '--tag-set',
        String(one),
      ])
    ).code,
    0,
  )
  assert.equal(
    regions(await tagsOf(one)),
    regions((await tagsOf(experts)).filter((t: any) => t.mediaFile === file['siteB/2026-05-01/20260501_050000.WAV'])),
  )
})

test('record flags by name: tag create, tag set and class look-ups; ambiguous and unknown names are errors naming the flag', async () => {
  const run = await w.mas([
    'tag',
    'create',
    '--tag-set',
    'experts',
    '--media-file',
    'siteA/2026-05-02/dawn.wav',
    '--tag-class',
    'name:12',
    '--start',
    '2',
    '--end',
    '3',
    '--json',
  ])
  assert.is(run.code, 0, run.stderr)
  const tag = json(run)
  assert.equal([tag.mediaFile, tag.tagClass], [file['siteA/2026-05-02/dawn.wav'], cls['12']])
  const byId = await w.mas([
    'tag',
    'create',
    '--tag-set',
    'experts',
    '--media-file',
    String(file['siteA/2026-05-02/dawn.wav']),
    '--tag-class',
    String(cls.robin),
    '--start',
    '2',
    '--end',
    '3',
    '--json',
  ])
  assert.equal(json(byId).tagClass, cls.robin)
  const unknown = await w.mas([
    'tag',
    'create',
    '--tag-set',
    'experts',
    '--media-file',
    'dawn.wav',
    '--tag-class',
    'nightingale',
    '--start',
    '0',
    '--end',
    '1',
  ])
  assert.is(unknown.code, 1)
  // an unknown name is told with the names there are (when a few)
  assert.match(
    unknown.stderr,
    new RegExp(
      `^Error: --tag-class: no tag class named "nightingale" in library "season 2026" \\(there are: blackbird, robin, 12, .*\\)\\n$`,
    ),
  )
  const ambiguous = await w.mas([
    'tag',
    'create',
    '--tag-set',
    'experts',
    '--media-file',
    '20260501_050000.WAV',
    '--tag-class',
    'robin',
    '--start',
    '0',
    '--end',
    '1',
  ])
  assert.is(ambiguous.code, 1)
  assert.match(
    ambiguous.stderr,
    /--media-file: 2 media files in library "season 2026" match "20260501_050000.WAV": siteA\/2026-05-01\/20260501_050000.WAV \(id \d+\), siteB/,
  )
  // two tag sets of one name in two libraries: the candidates are named
  await newTagSet('shared name')
  await newTagSet('shared name', await makeLibrary(w.t.db, alice, 'another'))
  const twice = await w.mas(['tag', 'list', '--tag-set', 'shared name'])
  assert.is(twice.code, 1)
  assert.match(
    twice.stderr,
    /--tag-set: 2 tag sets match "shared name": shared name \(id \d+, library "season 2026"\), shared name \(id \d+, library "another"\); give one of them \(or its id\)/,
  )
  const noLibrary = await w.mas(['media', 'list', '--library', 'no such library'])
  assert.is(noLibrary.code, 1)
  assert.match(
    noLibrary.stderr,
    /^Error: --library: no library named "no such library" \(there are: season 2026, .*another\)\n$/,
  )
})

test('human output shows names: tag list (tag set, recording, class), tag set and media lists (library); --json keeps ids', async () => {
  const list = await w.mas(['tag', 'list', '--tag-set', 'experts', '--sort', 'start'])
  assert.is(list.code, 0, list.stderr)
  assert.match(list.stdout, /^ID\s+TAGSET\s+MEDIAFILE\s+TAGCLASS\s+START/)
  assert.match(list.stdout, /\n\d+\s+experts\s+siteA\/2026-05-02\/dawn\.wav\s+robin\s+0\s/)
  assert.match(list.stdout, /\n\d+\s+experts\s+siteB\/2026-05-01\/20260501_050000\.WAV\s+12\s+3\s/)
  const sets = await w.mas(['tagset', 'list', '--library', 'season 2026'])
  assert.match(sets.stdout, /\n\d+\s+experts\s+season 2026\s+me\s/)
  const media = await w.mas(['media', 'list', '--library', 'season 2026', '--path', 'siteB/'])
  assert.match(media.stdout, /\n\d+\s+siteB\/2026-05-01\/20260501_050000\.WAV\s+season 2026\s/)
  // a site admin may read usernames: alice's tag sets show her name
  const root = await w.t.user('root', { admin: true })
  const rootHome = w.newHome()
  await w.login(root, rootHome)
  const seenByAdmin = await w.mas(['tagset', 'list', '--library', 'season 2026'], { home: rootHome })
  assert.match(seenByAdmin.stdout, /\n\d+\s+experts\s+season 2026\s+alice\s/)
  const raw = json(await w.mas(['tag', 'list', '--tag-set', 'experts', '--json']))
  assert.ok(raw.every((t: any) => typeof t.tagClass === 'number' && typeof t.mediaFile === 'number'))
})

test.run()
