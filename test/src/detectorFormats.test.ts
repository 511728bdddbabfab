import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { boxOf } from '../../src/aoef.js'
import { parseRaven } from '../../src/raven.js'
import { AudacityReader, audacityMediaName, detectTable } from '../../src/detectorFormats.js'
import { parseDuration, RowFilter } from '../../src/importFilters.js'
import { readHead, recordBatches } from '../../src/tableReader.js'
import { tableRows, type TableItem } from '../../src/tableRows.js'
import { tempDir } from '../helpers/tempDir.js'

// The detectors' formats told apart by their beginnings, files read a chunk at a time in their encodings, and the
// import's filters (issue 46).

const dir = tempDir('mas-detector-formats-')
test.after(() => rmSync(dir, { recursive: true, force: true }))
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

test('each format is told from its first line', () => {
  assert.is(
    detectTable('\uFEFFStart (s),End (s),Scientific name,Common name,Confidence,File\r\n0,3,A b,C,0.5,x.wav'),
    'birdnet',
  )
  assert.is(
    detectTable(
      'filepath,start,end,scientific_name,common_name,confidence,lat,lon,week,overlap,sensitivity,min_conf,species_list,model\n',
    ),
    'birdnet',
  )
  assert.is(
    detectTable(
      'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tCommon Name\tSpecies Code\tConfidence\tBegin Path\tFile Offset (s)\n',
    ),
    'birdnet-raven',
  )
  assert.is(
    detectTable('Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tSpecies\n'),
    'raven',
  )
  assert.is(
    detectTable('INDIR,FOLDER,IN FILE,CHANNEL,OFFSET,DURATION,FMIN,FMEAN,FMAX,TOP1MATCH,TOP1DIST\r\n'),
    'kaleidoscope',
  )
  assert.is(
    detectTable(
      'INDIR,FOLDER,IN FILE,OFFSET,DURATION,scientific_name,common_name,confidence,lat,lon,week,overlap,sensitivity\n',
    ),
    'kaleidoscope',
  )
  assert.is(detectTable('1.500000\t2.250000\tChiffchaff\n\\\t3000.000000\t6500.000000\n'), 'audacity')
  assert.is(detectTable('0.5\t0.5\t\n'), 'audacity')
  assert.is(
    detectTable(
      '{"version": "1.1.0", "created_on": "2025-06-02", "data": {"uuid": "x", "collection_type": "annotation_set"}}',
    ),
    'aoef',
  )
  assert.is(
    detectTable(
      '{"mediaFile": 1, "tagClass": 2, "startTime": 0, "endTime": 1, "minFrequency": 0, "maxFrequency": 1}\n',
    ),
    'ndjson',
  )
  assert.is(detectTable('[{"mediaFile": 1}]'), 'json')
  assert.is(detectTable('mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency\n'), 'csv')
})

test("Audacity's -1 for a bound left undefined: no low bound is 0 Hz, no high bound no band", () => {
  const reader = new AudacityReader({ mediaFile: 'name:a.wav', provenance: {} })
  const bands: unknown[] = []
  const take = (r: ReturnType<AudacityReader['line']>) => {
    if (r && 'raw' in r) bands.push([r.raw.minFrequency, r.raw.maxFrequency])
  }
  for (const line of [
    ['1', '2', 'a'],
    ['\\', '-1.000000', '4000.000000'],
    ['3', '4', 'b'],
    ['\\', '1500.000000', '-1.000000'],
    ['5', '6', 'c'],
    ['\\', '1500.000000', '4000.000000'],
  ])
    take(reader.line(line))
  take(reader.end())
  assert.equal(bands, [
    [0, '4000.000000'],
    [0, 0],
    ['1500.000000', '4000.000000'],
  ])
})

test('an Audacity label file names its recording by its path without .txt', () => {
  assert.is(audacityMediaName('siteA/20250601_050000.WAV.txt'), 'siteA/20250601_050000.WAV')
  assert.is(audacityMediaName('siteA\\20250601_050000.WAV.TXT'), 'siteA/20250601_050000.WAV')
})

test('records over chunks: UTF-16 with its mark, CRLF, a quoted field over lines, the line each starts on', async () => {
  const text = 'a,b\r\n"x,1","two\r\nlines"\r\n\r\nlast,"say ""hi"""\r\n'
  const path = file('utf16.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]))
  assert.is((await readHead(path)).slice(0, 3), 'a,b')
  const records = []
  for await (const batch of recordBatches(path, ',')) records.push(...batch)
  assert.equal(records, [
    { line: 1, fields: ['a', 'b'] },
    { line: 2, fields: ['x,1', 'two\nlines'] },
    { line: 5, fields: ['last', 'say "hi"'] },
  ])
})

test('a BirdNET row: class the scientific name, strength the confidence, the file named, machine tag, settings in the provenance', async () => {
  const path = file(
    'rtable.csv',
    'filepath,start,end,scientific_name,common_name,confidence,lat,lon,week,overlap,sensitivity,min_conf,species_list,model\n' +
      'C:\\rec\\x.wav,3.0,6.0,Parus major,Great Tit,0.91,52.1,5.2,22,0.0,1.0,0.1,,BirdNET_GLOBAL_6K_V2.4_Model_FP32\n' +
      'C:\\rec\\x.wav,6.0,oops,Parus major,Great Tit,0.5,52.1,5.2,22,0.0,1.0,0.1,,BirdNET_GLOBAL_6K_V2.4_Model_FP32\n',
  )
  const items: TableItem[] = []
  for await (const batch of tableRows(
    { name: 'rtable.csv', file: path, format: 'birdnet' },
    { provenance: { source: 'BirdNET-Analyzer', format: 'birdnet' } },
  ))
    items.push(...batch)
  assert.equal(items[0], {
    line: 2,
    displayName: 'Great Tit',
    row: {
      mediaFile: { name: 'C:\\rec\\x.wav' },
      tagClass: { name: 'Parus major' },
      startTime: 3,
      endTime: 6,
      minFrequency: 0,
      maxFrequency: 0,
      strength: 0.91,
      machineTagged: true,
      annotations: { common_name: 'Great Tit' },
      provenance: {
        source: 'BirdNET-Analyzer',
        format: 'birdnet',
        parameters: {
          lat: 52.1,
          lon: 5.2,
          week: 22,
          overlap: 0,
          sensitivity: 1,
          min_conf: 0.1,
          model: 'BirdNET_GLOBAL_6K_V2.4_Model_FP32',
        },
      },
    },
  })
  assert.equal(items[1], { error: 'line 3: end (endTime) must be a number, not "oops"' })
})

test("a row's error names the table's own column, and the field it is read as", async () => {
  const read = async (name: string, format: 'birdnet' | 'kaleidoscope', text: string) => {
    const items: TableItem[] = []
    for await (const batch of tableRows({ name, file: file(name, text), format }, { provenance: {} }))
      items.push(...batch)
    return items.flatMap((i) => ('error' in i ? [i.error] : []))
  }
  assert.equal(
    await read(
      'birdnet.csv',
      'birdnet',
      'Start (s),End (s),Scientific name,Common name,Confidence,File\n' +
        '3.0,6.0,Parus major,Great Tit,abc,x.wav\n' +
        '9.0,6.0,Parus major,Great Tit,0.5,x.wav\n',
    ),
    ['line 2: Confidence (strength) must be a number, not "abc"', 'line 3: End (s) (6) is before Start (s) (9)'],
  )
  assert.equal(
    await read(
      'id.csv',
      'kaleidoscope',
      'INDIR,FOLDER,IN FILE,OFFSET,DURATION,TOP1MATCH\n' +
        'D:\\in,a,x.wav,-1,2.5,MYOLUC\n' +
        'D:\\in,a,x.wav,1,long,MYOLUC\n',
    ),
    ['line 2: OFFSET (startTime) must not be negative', 'line 3: DURATION (endTime) must be a number, not "long"'],
  )
})

test("a Raven table's row errors name its columns", () => {
  const parsed = parseRaven(
    'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tSpecies\n' +
      '1\tSpectrogram 1\t1\t1.0\t2.0\t-5\t900\tWren\n' +
      '2\tSpectrogram 1\t1\t1.0\t2.0\t800\t700\tWren\n',
    { mediaFile: 'x.wav' },
  )
  assert.equal(parsed.errors, [
    'line 2: Low Freq (Hz) (minFrequency) must not be negative',
    'line 3: High Freq (Hz) (700) is below Low Freq (Hz) (800)',
  ])
})

test('--media-file is the recording of a Raven table of one recording, also one whose Begin File names it by a shared name', () => {
  const table = (file: string) =>
    'Selection\tView\tChannel\tBegin File\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tSpecies\n' +
    `1\tSpectrogram 1\t1\t${file}\t1.0\t2.0\t100\t900\tWren\n` +
    `2\tSpectrogram 1\t1\t${file}\t3.0\t4.0\t100\t900\tWren\n`
  const given = parseRaven(table('20250601_050000.WAV'), { mediaFile: 'siteA/20250601_050000.WAV' })
  assert.equal(given.errors, [])
  assert.equal(
    given.rows.map((r) => r.mediaFile),
    [{ name: 'siteA/20250601_050000.WAV' }, { name: 'siteA/20250601_050000.WAV' }],
  )
  // without it, the table's own name is looked up (and is an error where two sites hold it)
  assert.equal(
    parseRaven(table('20250601_050000.WAV')).rows.map((r) => r.mediaFile),
    [{ name: '20250601_050000.WAV' }, { name: '20250601_050000.WAV' }],
  )
})

test("a table read whole gives its rows and their errors in the order of the file's lines", async () => {
  const name = 'order.selections.txt'
  const path = file(
    name,
    'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tSpecies\n' +
      '1\tSpectrogram 1\t1\t1.0\t2.0\t100\t900\tWren\n' +
      '2\tSpectrogram 1\t1\t1.0\t2.0\t800\t700\tWren\n' +
      '3\tSpectrogram 1\t1\t3.0\t4.0\t100\t900\tWren\n',
  )
  const items: TableItem[] = []
  for await (const batch of tableRows({ name, file: path, format: 'raven', mediaFile: 'x.wav' }, { provenance: {} }))
    items.push(...batch)
  assert.equal(
    items.map((i) => ('error' in i ? i.error.split(':')[0] : `row ${i.line}`)),
    ['row 2', 'line 3', 'row 4'],
  )
})

test('AOEF geometries as boxes', () => {
  assert.equal(boxOf({ type: 'BoundingBox', coordinates: [1, 200, 2, 800] }), { start: 1, end: 2, low: 200, high: 800 })
  assert.equal(boxOf({ type: 'TimeInterval', coordinates: [1, 2] }), { start: 1, end: 2, low: 0, high: 0 })
  assert.equal(
    boxOf({
      type: 'Polygon',
      coordinates: [
        [
          [1, 300],
          [2, 900],
          [1.5, 100],
        ],
      ],
    }),
    { start: 1, end: 2, low: 100, high: 900 },
  )
  assert.is(boxOf({ type: 'Polygon', coordinates: [] }), undefined)
})

test('--per durations, and --min-score with --top 2 --per 1h keeping the strongest of each file and hour', () => {
  assert.equal(
    [
      parseDuration('1h'),
      parseDuration('30min'),
      parseDuration('10m'),
      parseDuration('90s'),
      parseDuration('1d'),
      parseDuration('45'),
    ],
    [3600, 1800, 600, 90, 86_400, 45],
  )
  assert.is(parseDuration('soon'), undefined)
  const filter = new RowFilter({ minScore: 0.2, top: 2, per: 3600 })
  const rows: Array<[number, number, number | undefined]> = [
    [1, 0, 0.5],
    [1, 10, 0.9],
    [1, 20, 0.5],
    [1, 30, 0.1],
    [1, 4000, 0.3],
    [2, 0, undefined],
    [2, 5, 0.25],
  ]
  rows.forEach(([file, start, strength], n) => filter.see(n, file, start, strength))
  filter.finish(rows.length)
  assert.equal(
    rows.map((_r, n) => filter.keeps(n)),
    [true, true, false, false, true, false, true],
  )
  assert.is(filter.keptCount(), 4)
  assert.is(filter.belowScore, 2)
  const all = new RowFilter({})
  all.see(0, 1, 0, undefined)
  all.finish(1)
  assert.ok(all.keeps(0))
})

/** The checked rows of a table file, in order. */
async function rowsOf(name: string, content: string, format: 'birdnet' | 'kaleidoscope'): Promise<TableItem[]> {
  const items: TableItem[] = []
  for await (const batch of tableRows({ name, file: file(name, content), format }, { provenance: { source: 'x' } }))
    items.push(...batch)
  return items
}

test("mas's columns of a BirdNET or Kaleidoscope table it wrote read back as the tag's: band, strength, flags, an annotation beside its format's column", async () => {
  const birdnet = await rowsOf(
    'mas.BirdNET.results.csv',
    'Start (s),End (s),Scientific name,Common name,Confidence,File,site,mas_annotation:Common name,' +
      'mas_min_frequency,mas_max_frequency,mas_machine_tagged,mas_user_tagged,mas_review,mas_provenance\r\n' +
      '0,3,Turdus merula,Eurasian Blackbird,0.8123,a.wav,,Eurasian Blackbird,2000,6000,true,false,yes,"{""source"":""BirdNET-Analyzer""}"\r\n' +
      '1,2,blackbird,blackbird,0,a.wav,A,,0,15000,false,true,,"{""source"":""Audacity""}"\r\n',
    'birdnet',
  )
  assert.equal(
    birdnet.map((i) => ('row' in i ? i.row : i)),
    [
      {
        mediaFile: { name: 'a.wav' },
        tagClass: { name: 'Turdus merula' },
        startTime: 0,
        endTime: 3,
        minFrequency: 2000,
        maxFrequency: 6000,
        strength: 0.8123,
        machineTagged: true,
        userTagged: false,
        annotations: { 'Common name': 'Eurasian Blackbird' },
        provenance: { source: 'BirdNET-Analyzer' },
      },
      // Common name is the class's display name here, not the tag's annotation: mas_annotation:Common name is empty
      {
        mediaFile: { name: 'a.wav' },
        tagClass: { name: 'blackbird' },
        startTime: 1,
        endTime: 2,
        minFrequency: 0,
        maxFrequency: 15000,
        strength: 0,
        machineTagged: false,
        userTagged: true,
        annotations: { site: 'A' },
        provenance: { source: 'Audacity' },
      },
    ],
  )
  const kaleidoscope = await rowsOf(
    'mas.id.csv',
    'INDIR,FOLDER,IN FILE,OFFSET,DURATION,FMIN,FMAX,TOP1MATCH,TOP1DIST,CHANNEL,mas_strength,mas_machine_tagged,mas_user_tagged,mas_review,mas_provenance\r\n' +
      ',siteA,a.wav,20.5,1.25,2100,4800,Cluster 3,0.612,0,0.8123,true,false,,\r\n' +
      ',siteA,a.wav,1,2,0,0,owl,,,,false,true,,\r\n',
    'kaleidoscope',
  )
  assert.equal(
    kaleidoscope.map((i) =>
      'row' in i ? [i.row.strength, i.row.machineTagged, i.row.userTagged, i.row.annotations] : i,
    ),
    [
      [0.8123, true, false, { TOP1DIST: '0.612', CHANNEL: '0' }],
      [undefined, false, true, undefined],
    ],
  )
  // the tools' own tables, without mas's columns: machine tags, as before
  const own = await rowsOf(
    'own.csv',
    'Start (s),End (s),Scientific name,Common name,Confidence,File\n0,3,A b,C d,0.5,a.wav\n',
    'birdnet',
  )
  assert.equal(
    own.map((i) => ('row' in i ? [i.row.machineTagged, i.row.userTagged, i.row.annotations] : i)),
    [[true, undefined, { 'Common name': 'C d' }]],
  )
})

test.run()
