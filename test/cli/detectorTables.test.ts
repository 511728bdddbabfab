import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeLibrary, makeMediaFile, makeMetaData } from '../helpers/records.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// Detectors' and labelling tools' tables in (issue 46): BirdNET-Analyzer's CSV and selection tables, Kaleidoscope's
// CSV, Audacity label tracks and AOEF JSON, each written here as its tool writes it (headers, quoting, Windows
// paths, CRLF, a UTF-8 byte order mark, UTF-16), read by `mas tag import` from files and folders in one command,
// each file's format found from its content; provenance kept, dry runs send nothing, filters, re-runs skip.

let w: CliWorld
let alice: TestUser
let dir: string
const file: Record<string, number> = {}
const ALIASES = ['siteA/20250601_050000.WAV', 'siteA/20250601_060000.WAV', 'siteB/20250601_050000.WAV']

const tagsOf = async (set: string) => {
  const run = await w.mas(['tag', 'list', '--tag-set', set, '--json'])
  assert.is(run.code, 0, run.stderr)
  return (json(run) as any[]).sort((a, b) => a.mediaFile - b.mediaFile || a.startTime - b.startTime)
}
async function newTagSet(name: string): Promise<void> {
  await w.tagSet(alice, name, 'Season')
}
const write = (name: string, content: string | Buffer) => {
  const path = join(dir, name)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, content)
  return path
}

// ---- the tools' tables, as they write them ----

/** BirdNET-Analyzer 2.x `--rtype csv`: a header, one row per detection, the audio file's full path (here a Windows
 * one), names quoted where they hold a comma; written by Python's csv module on Windows: CRLF. */
const BIRDNET_CSV =
  '\uFEFF' +
  [
    'Start (s),End (s),Scientific name,Common name,Confidence,File',
    '0.0,3.0,Turdus merula,Eurasian Blackbird,0.8123,D:\\Field\\siteA\\20250601_050000.WAV',
    '3.0,6.0,Erithacus rubecula,European Robin,0.4567,D:\\Field\\siteA\\20250601_050000.WAV',
    '12.0,15.0,Parus major,"Tit, Great",0.9512,D:\\Field\\siteA\\20250601_060000.WAV',
  ].join('\r\n') +
  '\r\n'

/** BirdNET-Analyzer's selection table (`--rtype table`): Raven's columns with Common Name, Species Code, Confidence,
 * Begin Path and File Offset (s). */
const BIRDNET_TABLE =
  [
    'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tCommon Name\tSpecies Code\tConfidence\tBegin Path\tFile Offset (s)',
    '1\tSpectrogram 1\t1\t0\t3.0\t0\t15000\tEurasian Wren\teurwre\t0.7012\t/data/Field/siteB/20250601_050000.WAV\t0',
    '2\tSpectrogram 1\t1\t9.0\t12.0\t0\t15000\tEurasian Wren\teurwre\t0.3301\t/data/Field/siteB/20250601_050000.WAV\t9.0',
  ].join('\n') + '\n'

/** Kaleidoscope's id.csv (cluster analysis): INDIR the input folder, FOLDER below it, IN FILE, OFFSET and DURATION in
 * seconds, FMIN/FMAX in Hz, TOP1MATCH with its distance TOP1DIST. */
const KALEIDOSCOPE_CSV =
  [
    'INDIR,FOLDER,IN FILE,CHANNEL,OFFSET,DURATION,FMIN,FMEAN,FMAX,DATE,TIME,HOUR,TOP1MATCH,TOP1DIST,TOP2MATCH,TOP2DIST,MANUAL ID',
    'D:\\Field,siteB,20250601_050000.WAV,0,20.5,1.25,2100,3200,4800,2025-06-01,05:00:20,5,Cluster 3,0.612,Cluster 7,1.204,',
    'D:\\Field,siteA,20250601_060000.WAV,0,2.0,0.5,900,1100,1500,2025-06-01,06:00:02,6,Cluster 7,0.233,Cluster 3,0.998,owl',
  ].join('\r\n') + '\r\n'

/** An Audacity label track: start, end and label, each spectral selection on the line after its label. */
const AUDACITY = (rows: Array<[number, number, string, number?, number?]>) =>
  rows
    .map(
      ([s, e, label, low, high]) =>
        `${s.toFixed(6)}\t${e.toFixed(6)}\t${label}` +
        (low !== undefined ? `\n\\\t${low.toFixed(6)}\t${high!.toFixed(6)}` : ''),
    )
    .join('\n') + '\n'

/** An AOEF annotation set as soundevent (Whombat) saves it. */
const AOEF = JSON.stringify({
  version: '1.1.0',
  created_on: '2025-06-02T10:00:00',
  data: {
    uuid: '6e1f2b9e-1c1a-4a43-9d7a-1a2b3c4d5e6f',
    collection_type: 'annotation_set',
    tags: [
      { id: 0, key: 'species', value: 'Strix aluco' },
      { id: 1, key: 'call_type', value: 'hoot' },
    ],
    recordings: [
      {
        uuid: 'a0000000-0000-4000-8000-000000000001',
        path: 'siteA/20250601_060000.WAV',
        duration: 60,
        channels: 1,
        samplerate: 48000,
      },
    ],
    sound_events: [
      {
        uuid: 'b0000000-0000-4000-8000-000000000001',
        recording: 'a0000000-0000-4000-8000-000000000001',
        geometry: { type: 'BoundingBox', coordinates: [30.5, 300, 31.75, 900] },
      },
    ],
    sound_event_annotations: [
      {
        uuid: 'c0000000-0000-4000-8000-000000000001',
        sound_event: 'b0000000-0000-4000-8000-000000000001',
        tags: [0, 1],
        notes: [{ uuid: 'd0000000-0000-4000-8000-000000000001', message: 'far away', is_issue: false }],
      },
    ],
    clips: [],
    clip_annotations: [],
  },
})

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  dir = w.newHome()
  const library = await makeLibrary(w.t.db, alice, 'Season')
  for (const alias of ALIASES) {
    file[alias] = await makeMediaFile(w.t.db, alice, library, { alias, file: alias.replace('/', '_') })
    await makeMetaData(w.t.db, file[alias], 'durationInSeconds', '7200')
  }
})
test.after(async () => {
  await w.close()
})

test("BirdNET's CSV (BOM, CRLF, Windows paths, quoted names): scientific names as classes, Confidence as strength, machine tags with provenance", async () => {
  await newTagSet('birdnet')
  const path = write('birdnet/20250601_050000.BirdNET.results.csv', BIRDNET_CSV)
  const run = await w.mas([
    'tag',
    'import',
    path,
    '--tag-set',
    'birdnet',
    '--create-classes',
    '--source',
    'BirdNET-Analyzer 2.4.0',
  ])
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stderr, /Created 3 tag classes in library "Season": Turdus merula, Erithacus rubecula, Parus major/)
  const tags = await tagsOf('birdnet')
  assert.equal(
    tags.map((t) => [t.mediaFile, t.startTime, t.endTime, t.strength, t.machineTagged]),
    [
      [file['siteA/20250601_050000.WAV'], 0, 3, 0.8123, true],
      [file['siteA/20250601_050000.WAV'], 3, 6, 0.4567, true],
      [file['siteA/20250601_060000.WAV'], 12, 15, 0.9512, true],
    ],
  )
  assert.equal(tags[0].provenance, { source: 'BirdNET-Analyzer', version: '2.4.0', format: 'birdnet' })
  assert.equal(tags[2].annotations, { 'Common name': 'Tit, Great' })
  const classes = json(await w.mas(['tagclass', 'list', '--library', 'Season', '--json']))
  assert.is(classes.find((c: any) => c.className === 'Parus major').displayName, 'Tit, Great')
  // a re-run skips what is there
  const again = await w.mas(['tag', 'import', path, '--tag-set', 'birdnet'])
  assert.is(again.code, 0, again.stderr)
  assert.match(again.stderr, /Imported 0 tags .*\n3 rows were already in the tag set/)
  // and a dry run says so beforehand, as the server finds them
  const dry = await w.mas(['tag', 'import', path, '--tag-set', 'birdnet', '--dry-run'])
  assert.is(dry.code, 0, dry.stderr)
  assert.match(
    dry.stderr,
    /Dry run: 0 tags would be imported; 3 rows already in the tag set \(--again imports them again\); nothing was sent/,
  )
  const dryAgain = await w.mas(['tag', 'import', path, '--tag-set', 'birdnet', '--dry-run', '--again'])
  assert.match(dryAgain.stderr, /Dry run: 3 tags would be imported; nothing was sent/)
})

test('several files and a folder in one command, each format found on its own: BirdNET table, Kaleidoscope, Audacity, AOEF', async () => {
  await newTagSet('mixed')
  const table = write('mixed/siteB.BirdNET.selection.table.txt', BIRDNET_TABLE)
  const kaleidoscope = write('mixed/id.csv', KALEIDOSCOPE_CSV)
  const aoef = write('mixed/whombat.json', AOEF)
  // Audacity's labels below a folder, named after their recordings; UTF-16 with its byte order mark, as Windows saves "Unicode"
  write(
    'labels/siteA/20250601_050000.WAV.txt',
    AUDACITY([
      [1.5, 2.25, 'Chiffchaff', 3000, 6500],
      [4, 4, 'Chiffchaff'],
    ]),
  )
  write(
    'labels/siteB/20250601_050000.WAV.txt',
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(AUDACITY([[8, 9.5, 'Rotkehlchen']]), 'utf16le')]),
  )
  write('labels/README.md', 'how we label\n')
  write('labels/BirdNET_analysis_params.csv', 'Parameter,Value\nsensitivity,1.0\n')
  write('labels/cluster.csv', 'INDIR,FOLDER,IN FILE,OFFSET,DURATION,CLUSTER\nD:\\Field,siteA,x.WAV,0,1,3\n')
  const run = await w.mas([
    'tag',
    'import',
    table,
    kaleidoscope,
    aoef,
    join(dir, 'labels'),
    '--tag-set',
    'mixed',
    '--create-classes',
  ])
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stderr, /README\.md: passed over/)
  assert.match(run.stderr, /BirdNET_analysis_params\.csv: passed over: no table mas reads/)
  assert.match(run.stderr, /cluster\.csv: passed over: bad header: missing a class column/)
  assert.match(run.stderr, /Imported 8 tags/)
  const tags = await tagsOf('mixed')
  const classes = new Map(
    json(await w.mas(['tagclass', 'list', '--library', 'Season', '--json'])).map((c: any) => [c.id, c.className]),
  )
  const seen = tags.map((t) => [
    ALIASES.find((a) => file[a] === t.mediaFile),
    classes.get(t.tagClass),
    t.startTime,
    t.endTime,
    t.minFrequency,
    t.maxFrequency,
    t.strength,
    t.machineTagged,
    t.userTagged,
    t.provenance?.source,
  ])
  // a row without a score (Kaleidoscope's, a label) is stored with the strength 0, as the server gives a tag without one
  assert.equal(seen, [
    ['siteA/20250601_050000.WAV', 'Chiffchaff', 1.5, 2.25, 3000, 6500, 0, false, true, 'Audacity'],
    ['siteA/20250601_050000.WAV', 'Chiffchaff', 4, 4, 0, 0, 0, false, true, 'Audacity'],
    ['siteA/20250601_060000.WAV', 'Cluster 7', 2, 2.5, 900, 1500, 0, true, false, 'Kaleidoscope'],
    ['siteA/20250601_060000.WAV', 'Strix aluco', 30.5, 31.75, 300, 900, 0, false, true, 'soundevent AOEF'],
    ['siteB/20250601_050000.WAV', 'Eurasian Wren', 0, 3, 0, 15000, 0.7012, true, false, 'BirdNET-Analyzer'],
    ['siteB/20250601_050000.WAV', 'Rotkehlchen', 8, 9.5, 0, 0, 0, false, true, 'Audacity'],
    ['siteB/20250601_050000.WAV', 'Eurasian Wren', 9, 12, 0, 15000, 0.3301, true, false, 'BirdNET-Analyzer'],
    ['siteB/20250601_050000.WAV', 'Cluster 3', 20.5, 21.75, 2100, 4800, 0, true, false, 'Kaleidoscope'],
  ])
  const kaleido = tags.find((t) => classes.get(t.tagClass) === 'Cluster 7')
  assert.is(kaleido.annotations.TOP1DIST, '0.233')
  assert.is(kaleido.annotations['MANUAL ID'], 'owl')
  const owl = tags.find((t) => classes.get(t.tagClass) === 'Strix aluco')
  assert.equal(owl.annotations, { call_type: 'hoot', notes: 'far away' })
  assert.is(owl.provenance.version, '1.1.0')
  assert.is(tags.find((t) => classes.get(t.tagClass) === 'Eurasian Wren').annotations['Species Code'], 'eurwre')
})

test('each format exported and imported again keeps every column it holds, the provenance too; decisions go in mas_review', async () => {
  const tags = await tagsOf('mixed')
  const wren = tags.find((t) => t.strength === 0.7012)
  const decided = await w.t.call('POST', '/api/v0/tagReview/', { as: alice, body: { tag: wren.id, decision: 'yes' } })
  assert.is(decided.statusCode, 201, JSON.stringify(decided.data))
  const pick = (list: any[], fields: string[], leave: string[] = []) =>
    list.map((t) =>
      Object.fromEntries(
        fields.map((f) => [
          f,
          f === 'annotations'
            ? Object.fromEntries(Object.entries(t.annotations ?? {}).filter(([k]) => !leave.includes(k)))
            : t[f],
        ]),
      ),
    )
  const place = ['mediaFile', 'tagClass', 'startTime', 'endTime']
  const cases: Array<[string, string[], string[]]> = [
    ['birdnet', [...place, 'strength', 'annotations', 'provenance'], ['Common name']],
    ['kaleidoscope', [...place, 'minFrequency', 'maxFrequency', 'annotations', 'provenance'], []],
    ['aoef', [...place, 'minFrequency', 'maxFrequency', 'strength', 'annotations', 'provenance'], []],
  ]
  for (const [format, fields, leave] of cases) {
    // streamed: the tags wait on disk for the header or vocabulary, in a temporary folder gone when the export ends
    const scratch = join(dir, `tmp-${format}`)
    mkdirSync(scratch)
    const exported = await w.mas(['tag', 'export', '--tag-set', 'mixed', '--format', format], {
      env: { TMPDIR: scratch },
    })
    assert.is(exported.code, 0, exported.stderr)
    assert.equal(readdirSync(scratch), [], format)
    if (format !== 'aoef') assert.match(exported.stdout, /,yes,"\{""source"":""BirdNET-Analyzer""/)
    await newTagSet(`again ${format}`)
    const imported = await w.mas([
      'tag',
      'import',
      write(`round/${format}.${format === 'aoef' ? 'json' : 'csv'}`, exported.stdout),
      '--tag-set',
      `again ${format}`,
    ])
    assert.is(imported.code, 0, imported.stderr)
    assert.equal(pick(await tagsOf(`again ${format}`), fields, leave), pick(tags, fields, leave), format)
  }
  // Audacity: a track per recording, below a folder, named after it; imported from that folder
  const tracks = join(dir, 'tracks')
  const exported = await w.mas(['tag', 'export', '--tag-set', 'mixed', '--format', 'audacity', '--per-file', tracks])
  assert.is(exported.code, 0, exported.stderr)
  assert.match(exported.stderr, /Wrote 3 label tracks/)
  assert.match(
    readFileSync(join(tracks, 'siteA/20250601_050000.WAV.txt'), 'utf8'),
    /^1\.500000\t2\.250000\tChiffchaff\n\\\t3000\.000000\t6500\.000000\n/,
  )
  await newTagSet('again audacity')
  const imported = await w.mas(['tag', 'import', tracks, '--tag-set', 'again audacity'])
  assert.is(imported.code, 0, imported.stderr)
  const fields = [...place, 'minFrequency', 'maxFrequency']
  assert.equal(pick(await tagsOf('again audacity'), fields), pick(tags, fields))
})

test('--dry-run says what matches, what does not and why, and writes nothing', async () => {
  await newTagSet('dry')
  const bad = write(
    'dry/other.BirdNET.results.csv',
    [
      'Start (s),End (s),Scientific name,Common name,Confidence,File',
      '0.0,3.0,Turdus merula,Eurasian Blackbird,0.9,D:\\Field\\siteC\\20250601_050000.WAV',
      '3.0,6.0,Turdus merula,Eurasian Blackbird,0.8,D:\\Field\\siteA\\20250601_050000.WAV',
      '6.0,9.0,Sylvia atricapilla,Blackcap,0.7,D:\\Field\\siteA\\20250601_050000.WAV',
    ].join('\r\n'),
  )
  // errors of both kinds (a row that does not read, a recording not found) in the order of their lines
  const both = write(
    'dry/both.BirdNET.results.csv',
    [
      'Start (s),End (s),Scientific name,Common name,Confidence,File',
      '0.0,3.0,Turdus merula,Eurasian Blackbird,0.9,D:\\Field\\siteC\\20250601_050000.WAV',
      '3.0,6.0,Turdus merula,Eurasian Blackbird,abc,D:\\Field\\siteA\\20250601_050000.WAV',
    ].join('\r\n'),
  )
  const ordered = await w.mas(['tag', 'import', both, '--tag-set', 'dry', '--dry-run'])
  assert.is(ordered.code, 1)
  const lines = ordered.stderr.split('\n').filter((l) => /^\s+line \d+:/.test(l))
  assert.equal(
    lines.map((l) => l.trim().split(':')[0]),
    ['line 2', 'line 3'],
    ordered.stderr,
  )
  // a cell's error names the table's column, as the user sees it in the file
  assert.match(ordered.stderr, /line 3: Confidence \(strength\) must be a number, not "abc"/)
  // a table of one recording (no File column) without --media-file: no row is read, so none is counted as not matched
  const oneRecording = write(
    'dry/20250601_050000.BirdNET.results.csv',
    ['Start (s),End (s),Scientific name,Common name,Confidence', '0.0,3.0,Turdus merula,Eurasian Blackbird,0.9'].join(
      '\r\n',
    ),
  )
  const unread = await w.mas(['tag', 'import', oneRecording, '--tag-set', 'dry', '--dry-run'])
  assert.is(unread.code, 1)
  assert.match(unread.stdout, /20250601_050000\.BirdNET\.results\.csv\s+BirdNET-Analyzer CSV\s+unreadable\s+0\s+0\s+-/)
  assert.match(unread.stderr, /bad header: missing File \(a table of one recording: give --media-file\)/)
  assert.match(unread.stderr, /1 error: the import would be refused/)
  const run = await w.mas(['tag', 'import', bad, '--tag-set', 'dry', '--dry-run'])
  assert.is(run.code, 1)
  assert.match(
    run.stdout,
    /other\.BirdNET\.results\.csv\s+BirdNET-Analyzer CSV\s+3\s+2\s+1\s+1/,
    run.stdout + run.stderr,
  )
  assert.match(run.stderr, /line 2: mediaFile: no media file named "D:\\Field\\siteC\\20250601_050000.WAV"/)
  assert.match(run.stderr, /no tag class named "Sylvia atricapilla" \(--create-classes would create them\)/)
  assert.match(run.stderr, /Dry run: 2 tags would be imported; nothing was sent/)
  const creating = await w.mas(['tag', 'import', bad, '--tag-set', 'dry', '--dry-run', '--create-classes'])
  assert.match(creating.stderr, /would create the tag class "Sylvia atricapilla"\n/)
  assert.not.match(creating.stderr, /--create-classes would/)
  assert.equal(await tagsOf('dry'), [])
  const classes = json(await w.mas(['tagclass', 'list', '--library', 'Season', '--json'])).map((c: any) => c.className)
  assert.not.ok(classes.includes('Sylvia atricapilla'))
  // without --dry-run the same file is refused as a whole
  const refused = await w.mas(['tag', 'import', bad, '--tag-set', 'dry', '--create-classes'])
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /1 error in .*other\.BirdNET\.results\.csv; nothing was sent/)
  assert.equal(await tagsOf('dry'), [])
})

test('--min-score and --top N --per 1h keep the best rows of each file and hour', async () => {
  await newTagSet('best')
  const rows = ['Start (s),End (s),Scientific name,Common name,Confidence,File']
  // siteA/050000: hour 0 scores .1 .. .9 at 0, 300, 600…; hour 1 scores .95 and .2
  const scores = [0.1, 0.5, 0.9, 0.3, 0.7]
  scores.forEach((s, i) =>
    rows.push(`${i * 300},${i * 300 + 3},Turdus merula,Eurasian Blackbird,${s},siteA/20250601_050000.WAV`),
  )
  rows.push(
    '3600,3603,Turdus merula,Eurasian Blackbird,0.95,siteA/20250601_050000.WAV',
    '3900,3903,Turdus merula,Eurasian Blackbird,0.2,siteA/20250601_050000.WAV',
  )
  rows.push('0,3,Turdus merula,Eurasian Blackbird,0.6,siteB/20250601_050000.WAV')
  const path = write('best/a.csv', rows.join('\n') + '\n')
  const dry = await w.mas([
    'tag',
    'import',
    path,
    '--tag-set',
    'best',
    '--min-score',
    '0.25',
    '--top',
    '2',
    '--per',
    '1h',
    '--dry-run',
  ])
  assert.is(dry.code, 0, dry.stderr)
  assert.match(
    dry.stderr,
    /Dry run: 4 tags would be imported \(4 of 8 left out by --min-score 0.25 and --top 2 --per 1h\)/,
  )
  const run = await w.mas([
    'tag',
    'import',
    path,
    '--tag-set',
    'best',
    '--min-score',
    '0.25',
    '--top',
    '2',
    '--per',
    '1h',
  ])
  assert.is(run.code, 0, run.stderr)
  assert.equal(
    (await tagsOf('best')).map((t) => [t.mediaFile, t.startTime, t.strength]),
    [
      [file['siteA/20250601_050000.WAV'], 600, 0.9],
      [file['siteA/20250601_050000.WAV'], 1200, 0.7],
      [file['siteA/20250601_050000.WAV'], 3600, 0.95],
      [file['siteB/20250601_050000.WAV'], 0, 0.6],
    ],
  )
})

test('--media-file names the recording of an Audacity label track from stdin; --format forces a format', async () => {
  await newTagSet('stdin')
  const run = await w.mas(
    [
      'tag',
      'import',
      '-',
      '--tag-set',
      'stdin',
      '--media-file',
      'siteB/20250601_050000.WAV',
      '--format',
      'audacity',
      '--create-classes',
    ],
    {
      input: AUDACITY([
        [0.5, 1, 'Blackcap', 2000, 8000],
        [2, 3, 'Blackcap'],
      ]).replaceAll('\n', '\r\n'),
    },
  )
  assert.is(run.code, 0, run.stderr)
  assert.equal(
    (await tagsOf('stdin')).map((t) => [t.mediaFile, t.startTime, t.endTime, t.minFrequency, t.maxFrequency]),
    [
      [file['siteB/20250601_050000.WAV'], 0.5, 1, 2000, 8000],
      [file['siteB/20250601_050000.WAV'], 2, 3, 0, 0],
    ],
  )
  // a tag set of one recording is exported as its track on stdout, labels in time order; of several, refused in one line
  const track = await w.mas(['tag', 'export', '--tag-set', 'stdin', '--format', 'audacity'])
  assert.is(track.code, 0, track.stderr)
  assert.is(track.stdout, '0.500000\t1.000000\tBlackcap\n\\\t2000.000000\t8000.000000\n2.000000\t3.000000\tBlackcap\n')
  const several = await w.mas(['tag', 'export', '--tag-set', 'mixed', '--format', 'audacity'])
  assert.is(several.code, 2, several.stderr)
  assert.match(
    several.stderr,
    /the tags lie on 3 recordings, and an Audacity label track is of one: give --per-file DIR/,
  )
})

test('a folder with no table of the --format asked is refused, as one with no table at all, and nothing is imported', async () => {
  const only = join(dir, 'kaleidoscope-only')
  mkdirSync(only)
  writeFileSync(
    join(only, 'id.csv'),
    'INDIR,FOLDER,IN FILE,OFFSET,DURATION,TOP1MATCH,TOP1DIST\nD:\\Field,siteA,20250601_050000.WAV,1,2,Turdus merula,0.4\n',
  )
  for (const extra of [[], ['--dry-run']]) {
    const run = await w.mas(['tag', 'import', only, '--tag-set', 'mixed', '--format', 'birdnet', ...extra])
    assert.is(run.code, 1, run.stderr)
    assert.match(run.stderr, /id\.csv: passed over: bad header/)
    assert.match(run.stderr, /Error: no table to import in .*kaleidoscope-only\n$/)
  }
})

test('an Audacity label file not named after a recording is refused with the way to name it', async () => {
  const folder = join(dir, 'unnamed-labels')
  mkdirSync(folder)
  writeFileSync(join(folder, 'Label 1.txt'), AUDACITY([[1, 2, 'Blackcap']]))
  const run = await w.mas(['tag', 'import', folder, '--tag-set', 'mixed'])
  assert.is(run.code, 1, run.stderr)
  assert.match(run.stderr, /no media file named "Label 1"/)
  assert.match(run.stderr, /a label file is named after its recording, .*; else give --media-file/)
})

test("a row past the server's size for annotations is refused by the check, dry run or not, and nothing is sent", async () => {
  const big = write(
    'big/notes.BirdNET.results.csv',
    'Start (s),End (s),Scientific name,Common name,Confidence,File,Notes\n' +
      `0,3,Turdus merula,Eurasian Blackbird,0.9,siteA/20250601_050000.WAV,short\n` +
      `3,6,Turdus merula,Eurasian Blackbird,0.9,siteA/20250601_050000.WAV,${'x'.repeat(12_000)}\n`,
  )
  for (const extra of [['--dry-run'], []]) {
    const run = await w.mas(['tag', 'import', big, '--tag-set', 'mixed', ...extra])
    assert.is(run.code, 1, run.stderr)
    assert.match(run.stderr, /line 3: annotations: Ensure this object has no more than 10000 characters as JSON\./)
  }
  assert.not.ok((await tagsOf('mixed')).some((t) => t.annotations?.Notes === 'short'))
})

test.run()
