import { existsSync } from 'node:fs'
import { dirname } from 'node:path'
import { Readable } from 'node:stream'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { AoefWriter } from '../../src/aoefWriter.js'
import { aoefRows } from '../../src/aoef.js'
import { ndjsonBatches } from '../../src/ndjson.js'
import { Spool } from '../../src/spool.js'
import { DetectorTable, type CsvColumns, type TableOptions } from '../../src/detectorTable.js'
import { annotationsOf, csvField, type TagRecord } from '../../src/tagFormats.js'

// What a streamed export keeps between its readings: the spool gives back every record, in order, as written (text
// with line ends and quotes too), whether given as records or as the JSON lines they came as, and leaves nothing on
// disk once closed; the AOEF writer writes, from two readings,
// the document JSON.stringify would (without indentation, as soundevent's own writer; each sound event and
// annotation on a line), its annotations first, written as their tags come, then the events kept on disk, the
// recordings and the vocabulary.

const collect = async <T>(batches: AsyncIterable<T[]>) => {
  const all: T[] = []
  for await (const b of batches) all.push(...b)
  return all
}

const textOf = async (chunks: AsyncIterable<Buffer>) => {
  const all: Buffer[] = []
  for await (const c of chunks) all.push(c)
  return Buffer.concat(all).toString('utf8')
}

test('the spool gives back its text, whole or from one byte to before another, each time it is read; closed, its file is gone', async () => {
  const spool = Spool.open()
  const pieces = Array.from({ length: 2503 }, (_, i) => (i % 2 ? 'line\nend, "quoted" é\n' : `${i}\n`))
  for (let i = 0; i < pieces.length; i += 700) spool.append(pieces.slice(i, i + 700).join(''))
  spool.append('')
  const text = pieces.join('')
  assert.is(await textOf(spool.bytes()), text)
  assert.is(await textOf(spool.bytes()), text)
  const bytes = Buffer.from(text)
  assert.is(await textOf(spool.bytes(5, 100_000)), bytes.subarray(5, 100_000).toString('utf8'))
  assert.is(await textOf(spool.bytes(100_000)), bytes.subarray(100_000).toString('utf8'))
  assert.is(await textOf(spool.bytes(7, 7)), '')
  const file = (spool as unknown as { path: string }).path
  assert.ok(existsSync(file))
  spool.close()
  assert.not.ok(existsSync(dirname(file)))
})

test('a spool keeps pieces larger than its buffer, and text beyond ASCII, whole; its length is the bytes kept', async () => {
  const spool = Spool.open()
  try {
    const pieces = ['x'.repeat(100_000), 'é鳥🐦'.repeat(400_000), 'y'.repeat(3_000_000), '\n']
    let bytes = 0
    for (let b = 0; b < 3; b++)
      for (const p of pieces) {
        spool.append(p)
        bytes += Buffer.byteLength(p)
        assert.is(spool.length, bytes)
      }
    const text = await textOf(spool.bytes())
    assert.is(text.length, 3 * pieces.reduce((n, p) => n + p.length, 0))
    assert.is(text, pieces.join('').repeat(3))
  } finally {
    spool.close()
  }
})

test('a spool closed before it is read, or never given any text, leaves nothing behind', async () => {
  const unread = Spool.open()
  unread.append('1\n2\n')
  const file = (unread as unknown as { path: string }).path
  unread.close()
  assert.not.ok(existsSync(dirname(file)))
  const empty = Spool.open()
  assert.is(await textOf(empty.bytes()), '')
  empty.close()
})

test('NDJSON cut across chunks anywhere, with CRLF and blank lines, parses to the records', async () => {
  const text = '{"a":1}\r\n\n{"b":"é"}\n{"c":[1,2]}'
  const bytes = Buffer.from(text)
  const chunks = Array.from(bytes, (_b, i) => bytes.subarray(i, i + 1))
  assert.equal(await collect(ndjsonBatches(Readable.from(chunks), 2)), [{ a: 1 }, { b: 'é' }, { c: [1, 2] }])
})

test('NDJSON records whose last field repeats share its value, and are each what JSON.parse makes of its line', async () => {
  const provenance = '{"source":"BirdNET-Analyzer","parameters":{"min_conf":0.1}}'
  const lines = [
    `{"id":1,"annotations":{},"provenance":${provenance}}`,
    `{"id":2,"annotations":{"a":"b"},"provenance":${provenance}}`,
    `{"id":3,"provenance":${provenance}}`,
    // the same text closing an object inside the record, and inside a string: not the record's own field
    `{"id":4,"annotations":{"x":{"y":1,"provenance":${provenance}}}}`,
    `{"id":5,"note":"a,\\"provenance\\":${provenance.replace(/"/g, '\\"')}}","provenance":${provenance}}`,
    `{"id":6,"provenance":${provenance}}\r`,
    // an integer-like key comes first in a parsed record whatever its place in the line
    `{"id":7,"provenance":{"source":"x"},"12":{"a":1}}`,
    `{"id":8,"provenance":{"source":"x"},"12":{"a":1}}`,
    `{"id":9,"provenance":{"source":"x"},"provenance":{"source":"y"}}`,
    `{"id":10,"provenance":{"source":"x"},"provenance":{"source":"y"}}`,
    `{"id":11,"provenance":null}`,
    `{"id":12,"provenance":[1,2]}`,
    `{"id":13,"provenance":[1,2]}`,
    `{"id":14,"provenance":[1,2]}`,
    `{"id":15,"__proto__":{"polluted":true}}`,
    `{"id":16,"__proto__":{"polluted":true}}`,
  ]
  const expected = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
  for (const cut of [1, 7, 100, 100_000]) {
    const bytes = Buffer.from(lines.join('\n') + '\n')
    const chunks = Array.from({ length: Math.ceil(bytes.length / cut) }, (_c, i) =>
      bytes.subarray(i * cut, (i + 1) * cut),
    )
    const records = await collect(ndjsonBatches<Record<string, unknown>>(Readable.from(chunks), 4))
    assert.equal(records, expected)
    for (let i = 0; i < records.length; i++)
      assert.equal(Object.keys(records[i]), Object.keys(expected[i]), `keys of ${i + 1}`)
    assert.is(Object.getPrototypeOf(records[15]), Object.prototype)
    assert.equal(Object.getOwnPropertyNames(records[15]), ['id', '__proto__'])
    // parsed once for the records after the first that ends so
    assert.ok(records[1].provenance === records[2].provenance)
    assert.ok(records[12].provenance === records[13].provenance)
  }
})

const TAGS: TagRecord[] = [
  {
    id: 11,
    mediaFile: 2,
    tagClass: 5,
    startTime: 1.5,
    endTime: 3,
    minFrequency: 1000,
    maxFrequency: 4000,
    strength: 0.8,
    annotations: { 'Common name': 'Blackbird', notes: 'faint' },
    provenance: { source: 'BirdNET-Analyzer' },
  },
  { id: 12, mediaFile: 3, tagClass: 6, startTime: 0, endTime: 1, minFrequency: 0, maxFrequency: 0, annotations: {} },
  { id: 13, mediaFile: 2, tagClass: 5, startTime: 7, endTime: 9, minFrequency: 200, maxFrequency: 900, strength: 0.1 },
]

/** What a writer of an export that waits for its last tag writes of `tags`, handed to it `batch` at a time. */
async function textWritten(
  writer: {
    add(tags: readonly TagRecord[]): void
    write(out: (text: string | Uint8Array) => Promise<void>): Promise<void>
    close(): void
  },
  tags: TagRecord[],
  batch: number,
): Promise<string> {
  try {
    for (let i = 0; i < tags.length; i += batch) writer.add(tags.slice(i, i + batch))
    const out: Buffer[] = []
    await writer.write(async (text) => {
      out.push(Buffer.from(text))
    })
    return Buffer.concat(out).toString('utf8')
  } finally {
    writer.close()
  }
}

/** What the AOEF writer writes of `tags`, handed to it `batch` at a time: its annotations as they come (`early`: the
 * text written before the last tag was handed over), the rest when it finishes. */
async function aoefWritten(tags: TagRecord[], batch: number): Promise<{ text: string; early: string }> {
  const out: Buffer[] = []
  const writer = new AoefWriter(
    {
      alias: (id) => `site/rec${id}.WAV`,
      duration: (id) => id * 60,
      sampleRate: () => 48000,
      className: (id) => (id === 5 ? 'Turdus merula' : 'Parus major'),
      review: (id) => (id === 12 ? 'yes' : undefined),
      now: '2026-06-01T05:00:00.000Z',
    },
    async (bytes) => {
      out.push(Buffer.from(bytes))
    },
  )
  try {
    let early = ''
    for (let i = 0; i < tags.length; i += batch) {
      early = Buffer.concat(out).toString('utf8')
      await writer.add(tags.slice(i, i + batch))
    }
    await writer.finish()
    return { text: Buffer.concat(out).toString('utf8'), early }
  } finally {
    writer.close()
  }
}

const aoefOf = async (tags: TagRecord[], batch: number) => (await aoefWritten(tags, batch)).text

test('the AOEF document written in pieces is the one JSON.stringify writes, and reads back as the tags', async () => {
  for (const batch of [1, 2, 10]) {
    const out = await aoefOf(TAGS, batch)
    const doc = JSON.parse(out)
    assert.is(JSON.stringify(doc) + '\n', out.replace(/\n(?!$)/g, ''))
    assert.is(out.split('\n').length, 2 * doc.data.sound_events.length + 4)
    assert.equal(
      doc.data.recordings.map((r: { path: string; duration: number }) => [r.path, r.duration]),
      [
        ['site/rec2.WAV', 120],
        ['site/rec3.WAV', 180],
      ],
    )
    assert.equal(
      doc.data.tags.map((t: { key: string; value: string }) => `${t.key}=${t.value}`),
      ['class=Turdus merula', 'Common name=Blackbird', 'class=Parus major', 'review=yes'],
    )
    assert.is(doc.data.sound_events.length, 3)
    assert.equal(doc.data.sound_event_annotations[1].tags, [2, 3])
    // no annotation or note claims a time of making: mas keeps none apart from the tag's
    assert.equal(Object.keys(doc.data.sound_event_annotations[0]), ['uuid', 'sound_event', 'tags', 'notes'])
    assert.equal(Object.keys(doc.data.sound_event_annotations[0].notes[0]), ['uuid', 'message'])
    const read = aoefRows(out, {})
    assert.equal(read.errors, [])
    assert.equal(
      read.rows.map((r) => [r.raw.startTime, r.raw.endTime, r.raw.strength, r.raw.annotations]),
      [
        [1.5, 3, 0.8, { 'Common name': 'Blackbird', notes: 'faint' }],
        [0, 1, undefined, {}],
        [7, 9, 0.1, {}],
      ],
    )
    assert.equal(read.rows[0].raw.provenance, { source: 'BirdNET-Analyzer' })
  }
})

test('an AOEF document of notes and provenance with quotes, line breaks and any script is the one JSON.stringify writes', async () => {
  const odd: TagRecord = {
    id: 14,
    mediaFile: 2,
    tagClass: 6,
    startTime: 1e-7,
    endTime: 0.123456789,
    minFrequency: 0,
    maxFrequency: 22050.5,
    strength: 0,
    machineTagged: true,
    annotations: { notes: 'a "loud" call\non two lines \\ — 鳥の声', 'Common name': 'Great Tit' },
    provenance: { source: 'BirdNET-Analyzer', parameters: { min_conf: 0.1, species_list: 'list "A".txt' } },
  }
  for (const batch of [1, 3]) {
    const out = await aoefOf([...TAGS, odd], batch)
    const doc = JSON.parse(out)
    assert.is(JSON.stringify(doc) + '\n', out.replace(/\n(?!$)/g, ''))
    assert.is(out.split('\n').length, 2 * doc.data.sound_events.length + 4)
    assert.equal(doc.data.sound_events[3].geometry.coordinates, [1e-7, 0, 0.123456789, 22050.5])
    // the flags as numbers, as AOEF's features are (a flag not given is false)
    assert.equal(doc.data.sound_events[3].features, {
      strength: 0,
      mas_machine_tagged: 1,
      mas_user_tagged: 0,
      mas_randomly_chosen: 0,
    })
    assert.is(doc.data.sound_event_annotations[3].notes[0].message, 'a "loud" call\non two lines \\ — 鳥の声')
  }
})

test('an AOEF document is written as its tags come: its annotations before the last tag is read, its events after', async () => {
  const many: TagRecord[] = Array.from({ length: 5000 }, (_t, i) => ({
    ...TAGS[0],
    id: 100 + i,
    startTime: i,
    endTime: i + 3,
  }))
  const { text, early } = await aoefWritten(many, 1000)
  assert.ok(early.length > 1_000_000, `written before the last batch: ${early.length} bytes`)
  assert.ok(text.startsWith(early))
  assert.ok(early.includes('"sound_event_annotations":[\n{"uuid":"00000000-0000-4000-8300-000000000064"'))
  assert.not.ok(early.includes('"sound_events"'))
  const doc = JSON.parse(text)
  assert.is(doc.data.sound_events.length, 5000)
  assert.is(doc.data.sound_event_annotations[4999].sound_event, doc.data.sound_events[4999].uuid)
})

test('an AOEF document of no tags still has its lists, empty', async () => {
  const doc = JSON.parse(await aoefOf([], 5))
  assert.equal(doc.data.sound_events, [])
  assert.equal(doc.data.sound_event_annotations, [])
  assert.equal(doc.data.recordings, [])
})

/** A detector's CSV as the format says it is, made from every tag at once: the format's columns, every other
 * annotation in the order first seen (one named like a column the table fills otherwise in its `mas_annotation:`
 * column), mas's columns, mas_review and mas_provenance. */
function tableOf(
  columns: CsvColumns,
  tags: TagRecord[],
  review: (id: number) => string | undefined,
  options: TableOptions = {},
): string {
  const mas = options.masColumns ?? []
  const taken = new Set([
    ...columns.filter(([, cell]) => cell).map(([c]) => c),
    ...mas.map(([c]) => c),
    'mas_review',
    'mas_provenance',
  ])
  const own = new Set(columns.filter(([, cell]) => !cell).map(([c]) => c))
  const extra = [
    ...new Set([...(options.annotationColumns ?? []), ...tags.flatMap((t) => Object.keys(annotationsOf(t)))]),
  ].filter((k) => !own.has(k))
  const rows = tags.map((t) => {
    const notes = annotationsOf(t)
    return [
      ...columns.map(([c, cell]) => cell?.(t) ?? notes[c]),
      ...extra.map((c) => notes[c]),
      ...mas.map(([, cell]) => cell?.(t)),
      review(Number(t.id)),
      t.provenance ? JSON.stringify(t.provenance) : '',
    ]
  })
  return [
    [
      ...columns.map(([c]) => c),
      ...extra.map((k) => (taken.has(k) ? `mas_annotation:${k}` : k)),
      ...mas.map(([c]) => c),
      'mas_review',
      'mas_provenance',
    ],
    ...rows,
  ]
    .map((cells) => cells.map(csvField).join(',') + '\r\n')
    .join('')
}

const detectorTableOf = (
  columns: CsvColumns,
  tags: TagRecord[],
  review: (id: number) => string | undefined,
  batch: number,
  options?: TableOptions,
) => textWritten(new DetectorTable(columns, review, options), tags, batch)

test("a detector's CSV made as its tags come is the one made from all of them: columns first seen late are put into the rows before", async () => {
  const columns: CsvColumns = [
    ['Start (s)', (t) => t.startTime],
    ['Common name', (t) => (t.id === 3 ? undefined : `name "${t.tagClass}", é`)],
    ['TOP1DIST', undefined],
  ]
  const late = (id: number) => ({ 5: 'site', 1800: 'notes', 2999: 'last' })[id]
  const tags: TagRecord[] = Array.from({ length: 3000 }, (_, id) => ({
    id,
    mediaFile: 1,
    tagClass: id % 7,
    startTime: id / 3,
    endTime: id / 3 + 1,
    minFrequency: 0,
    maxFrequency: 0,
    strength: id % 2 ? 0.5 : undefined,
    annotations:
      id === 4
        ? undefined
        : {
            ...(id % 3 ? { TOP1DIST: '0.1' } : {}),
            ...(id >= 3 ? { 'Common name': 'own', mas_review: 'not a column' } : {}),
            ...(late(id) ? { [late(id)!]: `line one\r\nline "two" 鳥 ${id}, ${'x'.repeat(id % 50)}` } : {}),
            ...(id > 2000 && id % 11 === 0 ? { site: `s${id}` } : {}),
          },
    provenance: id % 5 ? { source: 'BirdNET-Analyzer', version: `2.${id % 4}` } : undefined,
  }))
  const review = (id: number) => (id % 13 === 0 ? 'yes;no' : id % 17 === 0 ? 'unsure' : undefined)
  const expected = tableOf(columns, tags, review)
  assert.match(
    expected.split('\r\n')[0],
    /^Start \(s\),Common name,TOP1DIST,mas_annotation:Common name,mas_annotation:mas_review,site,notes,last,mas_review,mas_provenance$/,
  )
  for (const batch of [1, 7, 1000, 5000])
    assert.is(await detectorTableOf(columns, tags, review, batch), expected, `batches of ${batch}`)
  // mas's columns after the annotations, and an annotation's column every table has, the first of them
  const options: TableOptions = {
    masColumns: [
      ['mas_strength', (t) => t.strength],
      ['mas_machine_tagged', (t) => t.id !== 7],
    ],
    annotationColumns: ['Common name'],
  }
  const withMas = tableOf(columns, tags, review, options)
  assert.match(
    withMas.split('\r\n')[0],
    /^Start \(s\),Common name,TOP1DIST,mas_annotation:Common name,mas_annotation:mas_review,site,notes,last,mas_strength,mas_machine_tagged,mas_review,mas_provenance$/,
  )
  for (const batch of [1, 1000])
    assert.is(await detectorTableOf(columns, tags, review, batch, options), withMas, `batches of ${batch}`)
  // no late column: the rows are copied as made
  const early = tags.slice(0, 5)
  assert.is(await detectorTableOf(columns, early, review, 2), tableOf(columns, early, review))
  assert.is(
    await detectorTableOf(columns, [], review, 2),
    'Start (s),Common name,TOP1DIST,mas_review,mas_provenance\r\n',
  )
})

test.run()
