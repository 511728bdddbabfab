import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { csvRecords, detectFormat, parseTags, tagWriter, writeCsv, writeJsonArray, writeNdjson, writeRaven } from '../../src/tag-formats.js'

const HEADER = 'mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency,strength'
const tag = { mediaFile: 3, tagClass: 7, startTime: 0.1, endTime: 2.25, minFrequency: 100, maxFrequency: 8000.5, strength: 0.3 }

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
  assert.equal(parsed.tags, [tag, { mediaFile: 4, tagClass: 8, startTime: 1, endTime: 2, minFrequency: 0, maxFrequency: 10 }])
  assert.equal(parsed.lines, [2, 3])
  const reordered = parseTags('startTime,endTime,tagClass,mediaFile,maxFrequency,minFrequency\n1,2,8,4,10,0\n')
  assert.equal(reordered.tags, [{ mediaFile: 4, tagClass: 8, startTime: 1, endTime: 2, minFrequency: 0, maxFrequency: 10 }])
})

test('every bad row is reported with its line number and what is wrong', () => {
  const parsed = parseTags(`${HEADER}\n3,7,0,1,0,1,\nabc,7,0,1,0,1,\n3,7,5,4,0,1,\n3,7,x,1,0,1,\n3,7,0,1\n3,7,0,1,9,1,\n3,0,-1,1,0,1,1e999\n`)
  assert.equal(parsed.tags.length, 1)
  assert.equal(parsed.errors, [
    'line 3: mediaFile must be a positive integer id, not "abc"',
    'line 4: endTime (4) is before startTime (5)',
    'line 5: startTime must be a number, not "x"',
    'line 6: expected 7 fields, found 4',
    'line 7: maxFrequency (1) is below minFrequency (9)',
    'line 8: tagClass must be a positive integer id, not "0"; startTime must not be negative; strength must be a number, not "1e999"',
  ])
})

test('a bad or missing header is one error on line 1', () => {
  assert.equal(parseTags('mediaFile,tagClass,start\n1,2,3\n').errors,
    ['line 1: bad header: missing startTime, endTime, minFrequency, maxFrequency; unknown column start (expected mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency,strength)'])
  assert.equal(parseTags('').errors, ['line 1: the file is empty (expected a header row)'])
})

test('NDJSON: one object a line; extra fields of an export are ignored, flags kept; bad JSON reported by line', () => {
  const parsed = parseTags('{"id":9,"tagSet":2,"mediaFile":3,"tagClass":7,"startTime":0.1,"endTime":2.25,"minFrequency":100,"maxFrequency":8000.5,"strength":0.3,"machineTagged":true}\n\n{oops\n[1]\n')
  assert.equal(parsed.tags, [{ ...tag, machineTagged: true }])
  assert.is(parsed.errors.length, 2)
  assert.match(parsed.errors[0], /^line 3: not valid JSON/)
  assert.is(parsed.errors[1], 'line 4: expected a JSON object')
})

test('JSON: one array of objects, read whatever its layout; bad items reported by their place', () => {
  assert.is(detectFormat('  [\n{"mediaFile":3}]'), 'json')
  assert.is(detectFormat('{"mediaFile":3}\n'), 'ndjson')
  const one = JSON.stringify({ ...tag, id: 9, machineTagged: true })
  assert.equal(parseTags(`[${one},\n${one}]`).tags, [{ ...tag, machineTagged: true }, { ...tag, machineTagged: true }])
  assert.equal(parseTags(`[${one}, 3, {"mediaFile": 3}]`).errors.map((e) => e.split(':')[0]), ['item 2', 'item 3'])
  assert.match(parseTags('[{').errors[0], /^not valid JSON/)
  const paged = tagWriter('json')
  const text = paged.header + paged.rows([tag]) + paged.rows([tag, tag]) + paged.footer()
  assert.equal(JSON.parse(text), [tag, tag, tag])
  assert.is(text, writeJsonArray([tag, tag, tag]))
  const empty = tagWriter('json')
  assert.is(empty.header + empty.rows([]) + empty.footer(), '[]\n')
})

test('Raven: one tag per selection (the first of its view rows), media file from --media-file, class column', () => {
  const table = 'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tClass\n' +
    '1\tWaveform 1\t1\t0.1\t2.25\t100\t8000.5\t7\n1\tSpectrogram 1\t1\t0.1\t2.25\t100\t8000.5\t7\n2\tSpectrogram 1\t1\t3\t2\t0\t1\t7\n'
  assert.is(detectFormat(table), 'raven')
  const parsed = parseTags(table, { mediaFile: 3 })
  assert.equal(parsed.tags, [{ ...tag, strength: undefined }].map(({ strength, ...t }) => t))
  assert.equal(parsed.errors, ['line 4: endTime (2) is before startTime (3)'])
  assert.equal(parseTags(table).errors, ['line 1: bad header: missing Media File (or give --media-file)'])
})

test('writers: CSV, NDJSON and Raven read back to the same tags; paged writing numbers Raven selections on', () => {
  const tags = [tag, { ...tag, mediaFile: 4, strength: 0 }]
  for (const text of [writeCsv(tags), writeJsonArray(tags), writeNdjson(tags), writeRaven(tags)]) {
    const back = parseTags(text)
    assert.equal(back.errors, [])
    assert.equal(back.tags, tags)
  }
  assert.is(writeCsv([tag]), `${HEADER}\n3,7,0.1,2.25,100,8000.5,0.3\n`)
  const raven = tagWriter('raven')
  const text = raven.header + raven.rows([tag]) + raven.rows([tag, tag])
  assert.equal(text.trim().split('\n').slice(1).map((l) => l.split('\t')[0]), ['1', '2', '3'])
  const csv = tagWriter('csv')
  assert.is(csv.header + csv.rows([tag]), writeCsv([tag]))
})

test.run()
