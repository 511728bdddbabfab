import { existsSync } from 'node:fs'
import { dirname } from 'node:path'
import { Readable } from 'node:stream'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { AoefWriter } from '../../src/aoefWriter.js'
import { aoefRows } from '../../src/aoef.js'
import { ndjsonBatches, ndjsonBatchesWithText } from '../../src/ndjson.js'
import { Spool } from '../../src/spool.js'
import type { TagRecord } from '../../src/tagFormats.js'

// What a streamed export keeps between its readings: the spool gives back every record, in order, as written (text
// with line ends and quotes too), whether given as records or as the JSON lines they came as, and leaves nothing on
// disk once closed; the AOEF writer writes, from two readings,
// the document JSON.stringify would (indented by one), with its vocabulary and recordings first.

const collect = async <T>(batches: AsyncIterable<T[]>) => {
  const all: T[] = []
  for await (const b of batches) all.push(...b)
  return all
}

test('the spool gives back every record in order, however many, each time it is read; closed, its file is gone', async () => {
  const spool = Spool.open<{ id: number; note: string }>()
  const records = Array.from({ length: 2503 }, (_, i) => ({ id: i, note: i % 2 ? 'line\nend, "quoted" é' : '' }))
  for (let i = 0; i < records.length; i += 700) await spool.add(records.slice(i, i + 700))
  await spool.add([])
  assert.equal(await collect(spool.batches()), records)
  assert.equal(await collect(spool.batches()), records)
  const file = (spool as unknown as { path: string }).path
  assert.ok(existsSync(file))
  spool.close()
  assert.not.ok(existsSync(dirname(file)))
})

test('a spool given many batches larger than its buffer warns of no listener leak (each wait for the disk called off)', async () => {
  const warnings: string[] = []
  const heard = (w: Error) => warnings.push(`${w.name}: ${w.message}`)
  process.on('warning', heard)
  const spool = Spool.open<{ id: number; note: string }>()
  try {
    const note = 'x'.repeat(100)
    for (let b = 0; b < 30; b++) await spool.add(Array.from({ length: 1000 }, (_, i) => ({ id: b * 1000 + i, note })))
    assert.is((await collect(spool.batches())).length, 30_000)
    await new Promise((done) => setImmediate(done)) // a warning is emitted on the next tick
    assert.equal(warnings, [])
  } finally {
    process.off('warning', heard)
    spool.close()
  }
})

test('a spool closed before it is read, or never given a record, leaves nothing behind', async () => {
  const unread = Spool.open<number>()
  await unread.add([1, 2, 3])
  const file = (unread as unknown as { path: string }).path
  unread.close()
  assert.not.ok(existsSync(dirname(file)))
  const empty = Spool.open<number>()
  assert.equal(await collect(empty.batches()), [])
  empty.close()
})

test('NDJSON cut across chunks anywhere, with CRLF and blank lines, parses to the records', async () => {
  const text = '{"a":1}\r\n\n{"b":"é"}\n{"c":[1,2]}'
  const bytes = Buffer.from(text)
  const chunks = Array.from(bytes, (_b, i) => bytes.subarray(i, i + 1))
  assert.equal(await collect(ndjsonBatches(Readable.from(chunks), 2)), [{ a: 1 }, { b: 'é' }, { c: [1, 2] }])
})

test('each batch of NDJSON comes with the text of its lines, however the chunks cut them', async () => {
  const records = Array.from({ length: 57 }, (_, i) => ({ id: i, note: i % 3 ? `é "${i}"\\n` : '' }))
  const text = records
    .map((r, i) => JSON.stringify(r) + (i % 5 ? '\n' : '\r\n\n'))
    .join('')
    .slice(0, -1)
  const bytes = Buffer.from(text)
  for (const size of [1, 7, 64, bytes.length]) {
    const chunks: Buffer[] = []
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size))
    const batches = []
    for await (const b of ndjsonBatchesWithText<{ id: number }>(Readable.from(chunks), 10, true)) batches.push(b)
    assert.equal(
      batches.flatMap((b) => b.records),
      records,
      `chunks of ${size}`,
    )
    for (const b of batches)
      assert.equal(await collect(ndjsonBatches(Readable.from([Buffer.from(b.text ?? '')]), 1000)), b.records)
    assert.ok(batches.every((b) => b.text?.endsWith('\n')))
    const without = []
    for await (const b of ndjsonBatchesWithText(Readable.from(chunks), 10, false)) without.push(b)
    assert.ok(without.every((b) => b.text === undefined))
  }
})

test('a spool given the JSON lines the records came as gives back the same records', async () => {
  const spool = Spool.open<{ id: number; note: string }>()
  const records = Array.from({ length: 30 }, (_, i) => ({ id: i, note: `a, "b"\n${i}` }))
  await spool.add(
    records.slice(0, 10),
    records
      .slice(0, 10)
      .map((r) => JSON.stringify(r) + '\r\n')
      .join(''),
  )
  await spool.add(records.slice(10, 20))
  await spool.add(
    records.slice(20),
    records
      .slice(20)
      .map((r) => JSON.stringify(r) + '\n')
      .join(''),
  )
  assert.equal(await collect(spool.batches()), records)
  spool.close()
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

async function aoefOf(tags: TagRecord[], batch: number): Promise<string> {
  const writer = new AoefWriter({
    alias: (id) => `site/rec${id}.WAV`,
    duration: (id) => id * 60,
    sampleRate: () => 48000,
    className: (id) => (id === 5 ? 'Turdus merula' : 'Parus major'),
    review: (id) => (id === 12 ? 'yes' : undefined),
    now: '2026-06-01T05:00:00.000Z',
  })
  try {
    for (let i = 0; i < tags.length; i += batch) await writer.add(tags.slice(i, i + batch))
    const out: Buffer[] = []
    await writer.write(async (text) => {
      out.push(Buffer.from(text))
    })
    return Buffer.concat(out).toString('utf8')
  } finally {
    writer.close()
  }
}

test('the AOEF document written in pieces is the one JSON.stringify writes, and reads back as the tags', async () => {
  for (const batch of [1, 2, 10]) {
    const out = await aoefOf(TAGS, batch)
    const doc = JSON.parse(out)
    assert.is(JSON.stringify(doc, null, 1) + '\n', out)
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
    annotations: { notes: 'a "loud" call\non two lines \\ — 鳥の声', 'Common name': 'Great Tit' },
    provenance: { source: 'BirdNET-Analyzer', parameters: { min_conf: 0.1, species_list: 'list "A".txt' } },
  }
  for (const batch of [1, 3]) {
    const out = await aoefOf([...TAGS, odd], batch)
    const doc = JSON.parse(out)
    assert.is(JSON.stringify(doc, null, 1) + '\n', out)
    assert.equal(doc.data.sound_events[3].geometry.coordinates, [1e-7, 0, 0.123456789, 22050.5])
    assert.equal(doc.data.sound_events[3].features, { strength: 0 })
    assert.is(doc.data.sound_event_annotations[3].notes[0].message, 'a "loud" call\non two lines \\ — 鳥の声')
  }
})

test('an AOEF document of no tags still has its lists, empty', async () => {
  const doc = JSON.parse(await aoefOf([], 5))
  assert.equal(doc.data.sound_events, [])
  assert.equal(doc.data.sound_event_annotations, [])
  assert.equal(doc.data.recordings, [])
})

test.run()
