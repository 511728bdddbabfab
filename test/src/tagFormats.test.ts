import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { beginPath, parseRaven, perFileName, perSequenceName, ravenTable, sequencesOf } from '../../src/raven.js'
import {
  csvRecords,
  detectFormat,
  tagWriter,
  writeCsv,
  writeJsonArray,
  writeNdjson,
  type ParsedRows,
  type TagRecord,
} from '../../src/tagFormats.js'
import { parseTags } from '../../src/tagTables.js'

const HEADER = 'mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency,strength'
const tag = {
  mediaFile: 3,
  tagClass: 7,
  startTime: 0.1,
  endTime: 2.25,
  minFrequency: 100,
  maxFrequency: 8000.5,
  strength: 0.3,
}

/** The rows with ids as numbers and names as `name:X` strings, to compare with plain tags. */
const plain = (parsed: ParsedRows) =>
  parsed.rows.map((r) => ({
    ...r,
    mediaFile: 'id' in r.mediaFile ? r.mediaFile.id : `name:${r.mediaFile.name}`,
    tagClass: 'id' in r.tagClass ? r.tagClass.id : `name:${r.tagClass.name}`,
  }))

/** What a writer makes of a page of tags, as one text. */
const rowsText = (writer: ReturnType<typeof tagWriter>, tags: TagRecord[]) => {
  let text = ''
  writer.rows(tags, (piece) => (text += piece))
  return text
}

test('CSV records: quotes, escaped quotes, CRLF, a BOM and the line each record starts on', () => {
  const recs = csvRecords('\uFEFFa,b\r\n"x,1","say ""hi"""\n"multi\nline",z\n\n')
  assert.equal(recs, [
    { line: 1, fields: ['a', 'b'] },
    { line: 2, fields: ['x,1', 'say "hi"'] },
    { line: 3, fields: ['multi\nline', 'z'] },
  ])
})

test('CSV parses into tags; strength optional; columns in any order', () => {
  const parsed = parseTags(`${HEADER}\n3,7,0.1,2.25,100,8000.5,0.3\n4,8,1,2,0,10,\n`)
  assert.equal(parsed.errors, [])
  assert.equal(plain(parsed), [
    tag,
    { mediaFile: 4, tagClass: 8, startTime: 1, endTime: 2, minFrequency: 0, maxFrequency: 10 },
  ])
  assert.equal(parsed.lines, [2, 3])
  const reordered = parseTags('startTime,endTime,tagClass,mediaFile,maxFrequency,minFrequency\n1,2,8,4,10,0\n')
  assert.equal(plain(reordered), [
    { mediaFile: 4, tagClass: 8, startTime: 1, endTime: 2, minFrequency: 0, maxFrequency: 10 },
  ])
})

test('every bad row is reported with its line number and what is wrong', () => {
  const parsed = parseTags(
    `${HEADER}\n3,7,0,1,0,1,\nabc,7,0,1,0,1,\n3,7,5,4,0,1,\n3,7,x,1,0,1,\n3,7,0,1\n3,7,0,1,9,1,\n3,0,-1,1,0,1,1e999\n`,
  )
  assert.equal(parsed.rows.length, 2)
  assert.equal(parsed.errors, [
    'line 4: endTime (4) is before startTime (5)',
    'line 5: startTime must be a number, not "x"',
    'line 6: expected 7 fields, found 4',
    'line 7: maxFrequency (1) is below minFrequency (9)',
    'line 8: tagClass must be a positive integer id or a name, not "0"; startTime must not be negative; strength must be a number, not "1e999"',
  ])
})

test('a bad or missing header is one error on line 1', () => {
  assert.equal(parseTags('mediaFile,tagClass,start\n1,2,3\n').errors, [
    'line 1: bad header: missing startTime, endTime, minFrequency, maxFrequency; unknown column start (expected mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency,strength)',
  ])
  assert.equal(parseTags('').errors, ['line 1: the file is empty (expected a header row)'])
})

test('NDJSON: one object a line; extra fields of an export are ignored, flags kept; bad JSON reported by line', () => {
  const parsed = parseTags(
    '{"id":9,"tagSet":2,"mediaFile":3,"tagClass":7,"startTime":0.1,"endTime":2.25,"minFrequency":100,"maxFrequency":8000.5,"strength":0.3,"machineTagged":true}\n\n{oops\n[1]\n',
  )
  assert.equal(plain(parsed), [{ ...tag, machineTagged: true }])
  assert.is(parsed.errors.length, 2)
  assert.match(parsed.errors[0], /^line 3: not valid JSON/)
  assert.is(parsed.errors[1], 'line 4: expected a JSON object')
})

test('JSON: one array of objects, read whatever its layout; bad items reported by their place', () => {
  assert.is(detectFormat('  [\n{"mediaFile":3}]'), 'json')
  assert.is(detectFormat('{"mediaFile":3}\n'), 'ndjson')
  const one = JSON.stringify({ ...tag, id: 9, machineTagged: true })
  assert.equal(plain(parseTags(`[${one},\n${one}]`)), [
    { ...tag, machineTagged: true },
    { ...tag, machineTagged: true },
  ])
  assert.equal(
    parseTags(`[${one}, 3, {"mediaFile": 3}]`).errors.map((e) => e.split(':')[0]),
    ['item 2', 'item 3'],
  )
  assert.match(parseTags('[{').errors[0], /^not valid JSON/)
  const paged = tagWriter('json')
  const text = paged.header + rowsText(paged, [tag]) + rowsText(paged, [tag, tag]) + paged.footer()
  assert.equal(JSON.parse(text), [tag, tag, tag])
  assert.is(text, writeJsonArray([tag, tag, tag]))
  const empty = tagWriter('json')
  assert.is(empty.header + rowsText(empty, []) + empty.footer(), '[]\n')
})

test('names: text is a name, digits an id, name: forces a name; a JSON number is an id', () => {
  const parsed = parseTags(`${HEADER}\nsiteA/20260501_050000.WAV,blackbird,0,1,0,1,\n12,name:12,0,1,0,1,\n`)
  assert.equal(parsed.errors, [])
  assert.equal(
    plain(parsed).map((r) => [r.mediaFile, r.tagClass]),
    [
      ['name:siteA/20260501_050000.WAV', 'name:blackbird'],
      [12, 'name:12'],
    ],
  )
  const json = parseTags(
    '{"mediaFile":"a.wav","tagClass":7,"startTime":0,"endTime":1,"minFrequency":0,"maxFrequency":1}\n{"mediaFile":1.5,"tagClass":{},"startTime":0,"endTime":1,"minFrequency":0,"maxFrequency":1}\n',
  )
  assert.equal(
    plain(json).map((r) => [r.mediaFile, r.tagClass]),
    [['name:a.wav', 7]],
  )
  assert.equal(json.errors, [
    'line 2: mediaFile must be a positive integer id or a name, not 1.5; tagClass must be a positive integer id or a name, not {}',
  ])
})

// A multi-file table as Raven Pro 1.6 saves it: a Waveform and a Spectrogram row per selection,
// Begin Time running on across the files, the files' paths on the computer that made it.
const RAVEN_HEADER =
  'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tBegin Path\tFile Offset (s)\tDelta Time (s)\tSpecies\tNotes'
const ravenRows = [
  '1\tWaveform 1\t1\t1.5\t2.5\t0.000\t11025.000\tC:\\Data\\siteA\\20260501_050000.WAV\t1.5\t1.0\tblackbird\t',
  '1\tSpectrogram 1\t1\t1.5\t2.5\t2000.000\t6000.000\tC:\\Data\\siteA\\20260501_050000.WAV\t1.5\t1.0\tblackbird\t',
  '2\tWaveform 1\t1\t61.25\t62\t0.000\t11025.000\tC:\\Data\\siteB\\20260501_050000.WAV\t1.25\t0.75\trobin\tfaint',
  '2\tSpectrogram 1\t1\t61.25\t62\t1500.000\t3000.000\tC:\\Data\\siteB\\20260501_050000.WAV\t1.25\t0.75\trobin\tfaint',
]

test('Raven multi-file table: spectrogram rows only, the place in each file, the path kept for lookup, one warning', () => {
  const table = [RAVEN_HEADER, ...ravenRows].join('\r\n') + '\r\n'
  assert.is(detectFormat(table), 'raven')
  const parsed = parseTags(table)
  assert.equal(parsed.errors, [])
  // the columns mas has no field for are kept with each tag, in the table's order
  assert.equal(parsed.warnings, [])
  assert.equal(plain(parsed), [
    {
      mediaFile: 'name:C:\\Data\\siteA\\20260501_050000.WAV',
      tagClass: 'name:blackbird',
      startTime: 1.5,
      endTime: 2.5,
      minFrequency: 2000,
      maxFrequency: 6000,
      annotations: { 'Delta Time (s)': '1.0' }, // an empty Notes cell says nothing
    },
    {
      mediaFile: 'name:C:\\Data\\siteB\\20260501_050000.WAV',
      tagClass: 'name:robin',
      startTime: 1.25,
      endTime: 2,
      minFrequency: 1500,
      maxFrequency: 3000,
      annotations: { 'Delta Time (s)': '0.75', Notes: 'faint' },
    },
  ])
  assert.equal(parsed.lines, [3, 5])
  // --class-column picks another column; a missing one is named
  assert.equal(
    plain(parseRaven(table, { classColumn: 'notes' })).map((r) => [r.tagClass, r.annotations]),
    [['name:faint', { 'Delta Time (s)': '0.75', Species: 'robin' }]],
  )
  assert.match(parseRaven(table, { classColumn: 'Call' }).errors[0], /^line 1: no column "Call" \(--class-column\)/)
})

test('Raven table of one recording: --media-file, a class column, selections kept once', () => {
  const table =
    'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tClass\n' +
    '1\tWaveform 1\t1\t0.1\t2.25\t100\t8000.5\t7\n1\tSpectrogram 1\t1\t0.1\t2.25\t100\t8000.5\t7\n2\tSpectrogram 1\t1\t3\t2\t0\t1\t7\n'
  const parsed = parseTags(table, { mediaFile: '3' })
  assert.equal(
    plain(parsed),
    [{ ...tag, strength: undefined }].map(({ strength, ...t }) => t),
  )
  assert.equal(parsed.errors, ['line 4: End Time (s) (2) is before Begin Time (s) (3)'])
  assert.equal(parseTags(table).errors, [
    'line 1: bad header: missing Begin File or Begin Path (a table of one recording: give --media-file)',
  ])
  const several =
    'Begin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tBegin File\tSpecies\n0\t1\t0\t1\ta.wav\tx\n0\t1\t0\t1\tb.wav\tx\n'
  assert.match(parseRaven(several).errors[0], /needs the File Offset \(s\) column .*give --times-in-file$/)
  // tables of single recordings joined: each Begin Time is within its own file
  const joined =
    'Begin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tBegin File\tSpecies\n0.5\t1\t0\t1\ta.wav\tx\n2\t3.5\t0\t1\tb.wav\tx\n'
  const joinedRows = parseRaven(joined, { timesInFile: true })
  assert.equal(joinedRows.errors, [])
  assert.equal(
    joinedRows.rows.map((r) => [r.mediaFile, r.startTime, r.endTime]),
    [
      [{ name: 'a.wav' }, 0.5, 1],
      [{ name: 'b.wav' }, 2, 3.5],
    ],
  )
})

test("Raven writing: Begin Time running on within each folder's recordings by start time, Begin Path, ids for an exact read back", () => {
  const files = [
    { id: 4, alias: 'siteB/20260501_050000.WAV', realStartTime: '2026-05-01T05:00:00', duration: 60 },
    { id: 3, alias: 'siteA/20260501_050000.WAV', realStartTime: '2026-05-01T05:00:00', duration: 60.5 },
    { id: 5, alias: 'siteA/20260430_050000.WAV', realStartTime: '2026-04-30T05:00:00', duration: 30 },
  ]
  const tags = [
    { ...tag, id: 20, mediaFile: 4, startTime: 0.3, endTime: 0.7 },
    { ...tag, id: 21 },
    { ...tag, id: 22, mediaFile: 5, tagClass: 8, strength: undefined },
  ]
  const text = ravenTable(tags, files, (id) => (({ 7: 'blackbird', 8: 'robin' }) as Record<number, string>)[id])
  assert.ok(text.endsWith('\r\n') && !/[^\r]\n/.test(text), 'every line ends with CRLF, as Raven writes')
  const lines = text
    .trim()
    .split('\r\n')
    .map((l) => l.split('\t'))
  assert.equal(lines[0], [
    'Selection',
    'View',
    'Channel',
    'Begin Time (s)',
    'End Time (s)',
    'Low Freq (Hz)',
    'High Freq (Hz)',
    'Begin Path',
    'Begin File',
    'File Offset (s)',
    'Species',
    'Strength',
    'mas_machine_tagged',
    'mas_user_tagged',
    'mas_randomly_chosen',
    'mas_tag_id',
    'mas_media_file_id',
    'mas_tag_class_id',
    'mas_provenance',
  ])
  // siteA's two recordings are one sequence (30 s, then 60.5 s); siteB's starts again at 0
  assert.equal(
    lines.slice(1).map((l) => [l[0], l[3], l[7], l[8], l[9], l[10], l[15]]),
    [
      ['1', '0.1', 'siteA/20260430_050000.WAV', '20260430_050000.WAV', '0.1', 'robin', '22'],
      ['2', '30.1', 'siteA/20260501_050000.WAV', '20260501_050000.WAV', '0.1', 'blackbird', '21'],
      ['3', '0.3', 'siteB/20260501_050000.WAV', '20260501_050000.WAV', '0.3', 'blackbird', '20'],
    ],
  )
  const back = parseTags(text)
  assert.equal(back.errors, [])
  // the file by its path, with the id written beside it as the hint that tells two files of one name apart
  assert.equal(
    plain(back).map((r) => [r.mediaFile, r.mediaFileHint, r.tagClass, r.startTime, r.endTime, r.strength]),
    [
      ['name:siteA/20260430_050000.WAV', 5, 'name:robin', 0.1, 2.25, undefined],
      ['name:siteA/20260501_050000.WAV', 3, 'name:blackbird', 0.1, 2.25, 0.3],
      ['name:siteB/20260501_050000.WAV', 4, 'name:blackbird', 0.3, 0.7, 0.3],
    ],
  )
  // a tag made by hand (the API's strength 0, not machine-tagged) has no Strength to write, as tables show none;
  // a machine tag's 0 is a detector's word and is written
  const strengths = ravenTable(
    [
      { ...tag, id: 30, strength: 0 },
      { ...tag, id: 31, strength: 0, machineTagged: true, startTime: 5, endTime: 6 },
    ],
    files,
    () => 'x',
  )
    .trim()
    .split('\r\n')
    .slice(1)
    .map((l) => l.split('\t')[11])
  assert.equal(strengths, ['', '0'])
  assert.is(
    perFileName('siteA/2026-05-01/20260501_050000.WAV'),
    'siteA/2026-05-01/20260501_050000.Table.1.selections.txt',
  )
  assert.is(perFileName('../../etc/x.wav'), 'etc/x.Table.1.selections.txt')
})

test("Raven sequences: a sensor's recordings across folders, else a folder's, each in recording order", () => {
  const files = [
    { id: 1, alias: 'a/2.wav', realStartTime: '2026-05-01T06:00:00', sensor: 9 },
    { id: 2, alias: 'b/1.wav', realStartTime: '2026-05-01T05:00:00', sensor: 9 },
    { id: 3, alias: 'a/3.wav', realStartTime: '2026-05-01T04:00:00', sensor: null },
    { id: 4, alias: 'top.wav', realStartTime: null },
  ]
  assert.equal(
    sequencesOf(files, (id) => (id === 9 ? 'SM4-01' : undefined)).map((q) => [q.name, q.files.map((f) => f.id)]),
    [
      ['a', [3]],
      ['SM4-01', [2, 1]],
      ['top', [4]],
    ],
  )
  assert.equal(
    sequencesOf(files).map((q) => q.name),
    ['a', 'sensor-9', 'top'],
  )
  assert.is(perSequenceName('siteA/2026-05-01'), 'siteA_2026-05-01.selections.txt')
  assert.is(perSequenceName('../x:y'), 'x_y.selections.txt')
  assert.is(beginPath('siteA/x.WAV'), 'siteA/x.WAV')
  assert.is(beginPath('siteA/x.WAV', 'D:\\Field\\'), 'D:\\Field\\siteA\\x.WAV')
  assert.is(beginPath('siteA/x.WAV', 'D:'), 'D:\\siteA\\x.WAV')
  assert.is(beginPath('siteA/x.WAV', '/home/ana/season/'), '/home/ana/season/siteA/x.WAV')
})

test('Raven writing: annotations back in their columns, Waveform rows on asking, a --path-prefix in Begin Path', () => {
  const files = [{ id: 3, alias: 'siteA/x.WAV', realStartTime: null, duration: 10 }]
  const tags: TagRecord[] = [
    { ...tag, id: 1, annotations: { Notes: 'faint\tcall', 'Call type': 'song' } },
    {
      ...tag,
      id: 2,
      startTime: 3,
      endTime: 4,
      annotations: { Verdict: 'yes', Species: 'from another class column', CHANNEL: '0' },
      machineTagged: true,
      userTagged: false,
    },
    { ...tag, id: 3, startTime: 5, endTime: 6, annotations: { Notes: '' }, userTagged: true },
  ]
  const text = ravenTable(tags, files, () => 'robin', undefined, { pathPrefix: 'D:\\Field', waveformRows: true })
  const lines = text
    .split('\r\n')
    .slice(0, -1)
    .map((l) => l.split('\t'))
  const at = (name: string) => lines[0].indexOf(name)
  // an annotation named like a column mas writes (Species, Kaleidoscope's CHANNEL beside Raven's Channel) in its own
  // mas_annotation: column
  assert.equal(lines[0].slice(-5), [
    'Notes',
    'Call type',
    'Verdict',
    'mas_annotation:Species',
    'mas_annotation:CHANNEL',
  ])
  assert.equal(
    lines
      .slice(1)
      .map((l) => [
        l[0],
        l[1],
        l[at('Begin Path')],
        l[at('Notes')],
        l[at('Call type')],
        l[at('Verdict')],
        l[at('mas_annotation:CHANNEL')],
        l[at('mas_machine_tagged')],
        l[at('mas_user_tagged')],
      ]),
    [
      ['1', 'Waveform 1', 'D:\\Field\\siteA\\x.WAV', 'faint call', 'song', '', '', '', ''],
      ['1', 'Spectrogram 1', 'D:\\Field\\siteA\\x.WAV', 'faint call', 'song', '', '', '', ''],
      ['2', 'Waveform 1', 'D:\\Field\\siteA\\x.WAV', '', '', 'yes', '0', 'true', 'false'],
      ['2', 'Spectrogram 1', 'D:\\Field\\siteA\\x.WAV', '', '', 'yes', '0', 'true', 'false'],
      ['3', 'Waveform 1', 'D:\\Field\\siteA\\x.WAV', '', '', '', '', '', 'true'],
      ['3', 'Spectrogram 1', 'D:\\Field\\siteA\\x.WAV', '', '', '', '', '', 'true'],
    ],
  )
  // read back: one tag per selection, its flags, and the annotations it had: an empty cell says nothing (a table
  // names every column for every row), so an annotation of the empty text does not come back
  const back = parseTags(text)
  assert.equal(back.errors, [])
  assert.equal(
    plain(back).map((r) => [r.annotations, r.machineTagged, r.userTagged]),
    [
      [{ Notes: 'faint call', 'Call type': 'song' }, undefined, undefined],
      [{ Verdict: 'yes', Species: 'from another class column', CHANNEL: '0' }, true, false],
      [undefined, undefined, true],
    ],
  )
})

test('annotations in JSON and NDJSON: an object of texts, sent only when not empty', () => {
  const parsed = parseTags(
    JSON.stringify([
      { ...tag, annotations: { Notes: 'a' } },
      { ...tag, annotations: {} },
      { ...tag, annotations: { n: 1 } },
    ]),
  )
  assert.equal(
    plain(parsed).map((r) => r.annotations),
    [{ Notes: 'a' }, undefined],
  )
  assert.equal(parsed.errors, ['item 3: annotations must be an object of texts, not {"n":1}'])
})

test('writers: CSV and NDJSON read back to the same tags', () => {
  const tags = [tag, { ...tag, mediaFile: 4, strength: 0 }]
  for (const text of [writeCsv(tags), writeJsonArray(tags), writeNdjson(tags)]) {
    const back = parseTags(text)
    assert.equal(back.errors, [])
    assert.equal(plain(back), tags)
  }
  assert.is(
    writeCsv([tag]),
    `${HEADER},machineTagged,userTagged,randomlyChosen,annotations,provenance\n3,7,0.1,2.25,100,8000.5,0.3,,,,,\n`,
  )
  const csv = tagWriter('csv')
  assert.is(csv.header + rowsText(csv, [tag]), writeCsv([tag]))
})

test('CSV: the flags and the annotations (one cell of JSON text) read back; a CSV of the first seven columns as before', () => {
  const tags = [
    {
      ...tag,
      machineTagged: true,
      userTagged: false,
      randomlyChosen: false,
      annotations: { 'Common name': 'Eurasian Blackbird', notes: 'a "quote", a comma\nand a line' },
    },
    { ...tag, startTime: 1, machineTagged: false, userTagged: true, randomlyChosen: true },
  ]
  const text = writeCsv(tags)
  assert.match(text, /,true,false,false,"\{""Common name"":""Eurasian Blackbird""/)
  const back = parseTags(text)
  assert.equal(back.errors, [])
  assert.equal(plain(back), tags)
  // an older export, or a file made by hand: the API's defaults
  const old = parseTags(`${HEADER}\n3,7,0.1,2.25,100,8000.5,0.3\n`)
  assert.equal(old.errors, [])
  assert.equal(plain(old), [tag])
  const bad = parseTags(
    `${HEADER},annotations\n3,7,0.1,2.25,100,8000.5,0.3,not json\n3,7,0.1,2.25,100,8000.5,0.3,"{""n"":1}"\n`,
  )
  assert.equal(bad.errors, [
    'line 2: annotations must be an object of texts, not "not json"',
    'line 3: annotations must be an object of texts, not "{\\"n\\":1}"',
  ])
})

test('provenance: kept as given through CSV (one cell of JSON text), JSON and NDJSON; refused when not an object', () => {
  const provenance = {
    source: 'BirdNET-Analyzer',
    version: '2.4',
    parameters: { minConfidence: 0.25, 'week, of year': 23 },
  }
  const other = { source: 'Kaleidoscope', version: '5.6.8' }
  // each tag's own, where several tags share one (whose cell is made once) and another comes between them
  const tags = [{ ...tag, provenance }, tag, { ...tag, provenance: other }, { ...tag, provenance }]
  const csv = tagWriter('csv')
  for (const text of [writeCsv(tags), csv.header + rowsText(csv, tags), writeJsonArray(tags), writeNdjson(tags)]) {
    const back = parseTags(text)
    assert.equal(back.errors, [])
    assert.equal(
      plain(back).map((r) => r.provenance),
      [provenance, undefined, other, provenance],
    )
  }
  assert.match(writeCsv(tags), /,"\{""source"":""BirdNET-Analyzer""/)
  // a Raven table holds it in mas_provenance, and reads it back
  const table = ravenTable(
    [
      { ...tags[0], id: 1 },
      { ...tags[1], id: 2 },
    ],
    [{ id: 3, alias: 'a.wav', duration: 60 }],
    () => 'robin',
  )
  assert.equal(
    plain(parseTags(table)).map((r) => r.provenance),
    [provenance, undefined],
  )
  const bad = parseTags(`${HEADER},provenance\n3,7,0.1,2.25,100,8000.5,0.3,not json\n3,7,0.1,2.25,100,8000.5,0.3,[1]\n`)
  assert.equal(bad.errors, [
    'line 2: provenance must be a JSON object, not "not json"',
    'line 3: provenance must be a JSON object, not "[1]"',
  ])
})

test.run()
