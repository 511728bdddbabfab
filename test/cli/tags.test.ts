import { readdirSync } from 'node:fs'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeLibrary, makeMediaFile, makeTag, makeTagClass } from '../helpers/records.js'
import { tempDir } from '../helpers/tempDir.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// Tag sets, tag classes, one tag, and bulk tags: CSV, NDJSON and Raven in, the same out.

let w: CliWorld
let alice: TestUser
let library: number
let media: number[]
let tagSet: number
let classes: number[]

const region = (t: any) => [t.mediaFile, t.tagClass, t.startTime, t.endTime, t.minFrequency, t.maxFrequency, t.strength]
const tagsOf = async (set: number) =>
  (await w.t.call('GET', `/api/v0/tagSet/${set}/tags/?page_size=1000`, { as: alice })).data.results

async function newTagSet(name: string): Promise<number> {
  const run = await w.mas(['tagset', 'create', name, '--library', String(library)])
  assert.is(run.code, 0, run.stderr)
  return Number(run.stdout.trim())
}

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  library = await makeLibrary(w.t.db, alice)
  // named in the order they were made: a Raven table lists a library's files in name order, and warns of a file of no
  // known duration before a tagged one (the tests' own counter's names, media-9 then media-10, would not sort so
  // whatever ran before in the same process)
  media = [
    await makeMediaFile(w.t.db, alice, library, { file: 'dawn-1.wav' }),
    await makeMediaFile(w.t.db, alice, library, { file: 'dawn-2.wav' }),
  ]
})
test.after(async () => {
  await w.close()
})

test('tagset and tagclass create print ids; their lists show them', async () => {
  tagSet = await newTagSet('experts')
  classes = []
  for (const name of ['blackbird', 'robin']) {
    const run = await w.mas([
      'tagclass',
      'create',
      name,
      '--library',
      String(library),
      '--display-name',
      name.toUpperCase(),
    ])
    assert.is(run.code, 0, run.stderr)
    classes.push(Number(run.stdout.trim()))
  }
  const sets = json(await w.mas(['tagset', 'list', '--json']))
  assert.equal(
    sets.map((s: any) => [s.id, s.name, s.library]),
    [[tagSet, 'experts', library]],
  )
  const table = await w.mas(['tagclass', 'list', '--library', String(library)])
  assert.match(table.stdout, /^ID\s+CLASSNAME\s+DISPLAYNAME\s+LIBRARY\s+USER\n/)
  assert.match(table.stdout, new RegExp(`\\n${classes[1]}\\s+robin\\s+ROBIN\\s+library-\\d+\\s+me\\n`)) // names, not ids
})

test('tag create prints the new id, or the full record with --json', async () => {
  const run = await w.mas([
    'tag',
    'create',
    '--tag-set',
    String(tagSet),
    '--media-file',
    String(media[0]),
    '--tag-class',
    String(classes[0]),
    '--start',
    '1.5',
    '--end',
    '2',
    '--min-freq',
    '2000',
    '--max-freq',
    '8000',
    '--strength',
    '0.75',
  ])
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stdout, /^\d+\n$/)
  const full = await w.mas([
    'tag',
    'create',
    '--tag-set',
    String(tagSet),
    '--media-file',
    String(media[1]),
    '--tag-class',
    String(classes[1]),
    '--start',
    '0',
    '--end',
    '0.25',
    '--json',
  ])
  const tag = json(full)
  assert.equal(
    [tag.tagSet, tag.mediaFile, tag.tagClass, tag.startTime, tag.endTime],
    [tagSet, media[1], classes[1], 0, 0.25],
  )
  const bad = await w.mas([
    'tag',
    'create',
    '--tag-set',
    String(tagSet),
    '--media-file',
    String(media[0]),
    '--tag-class',
    String(classes[0]),
    '--start',
    'x',
    '--end',
    '1',
  ])
  assert.is(bad.code, 2)
})

test('tag import reads CSV from stdin in batches; a bad row is reported by line and nothing is sent', async () => {
  const rows = ['mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency,strength']
  for (let i = 0; i < 7; i++)
    rows.push(`${media[i % 2]},${classes[i % 2]},${i},${i + 0.5},${100 * i},${100 * i + 50},${i / 10}`)
  const before = (await tagsOf(tagSet)).length
  const broken = [...rows.slice(0, 4), `${media[0]},${classes[0]},5,4,0,10,`, ...rows.slice(4)].join('\n') + '\n'
  const bad = await w.mas(['tag', 'import', '-', '--tag-set', String(tagSet)], { input: broken })
  assert.is(bad.code, 1)
  assert.match(bad.stderr, /line 5: endTime \(4\) is before startTime \(5\)/)
  assert.match(bad.stderr, /nothing was sent/)
  assert.is((await tagsOf(tagSet)).length, before)

  const run = await w.mas(['tag', 'import', '-', '--tag-set', String(tagSet), '--batch-size', '3', '--json'], {
    input: rows.join('\r\n'),
  })
  assert.is(run.code, 0, run.stderr)
  const created = json(run)
  assert.is(created.length, 7)
  assert.match(run.stderr, /Imported 7 tags into tag set/)
  const stored = await tagsOf(tagSet)
  assert.is(stored.length, before + 7)
  assert.equal(region(stored[stored.length - 1]), [media[0], classes[0], 6, 6.5, 600, 650, 0.6])
})

test('a batch the server refuses names the input line of each bad item', async () => {
  const csv = `mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency\n${media[0]},${classes[0]},0,1,0,1\n999999,${classes[0]},0,1,0,1\n`
  const run = await w.mas(['tag', 'import', '-', '--tag-set', String(tagSet)], { input: csv })
  assert.is(run.code, 1)
  assert.match(run.stderr, /line 3: mediaFile: Invalid pk "999999" - object does not exist\. \(nothing was created\)/)
})

test('batches go one after another in input order; a later batch refused stops the import and says what was created', async () => {
  const set = await newTagSet('in order')
  const rows = ['mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency']
  for (let i = 0; i < 9; i++) rows.push(`${i === 6 ? 999999 : media[i % 2]},${classes[0]},${i},${i + 1},0,10`)
  const run = await w.mas(['tag', 'import', '-', '--tag-set', String(set), '--batch-size', '2'], {
    input: rows.join('\n') + '\n',
  })
  assert.is(run.code, 1)
  assert.match(run.stderr, /line 8: mediaFile: Invalid pk "999999" - object does not exist\. \(6 tags were created\)/)
  const stored = await tagsOf(set)
  // the three batches before the refused one, in input order and id order; nothing after it
  assert.equal(
    stored.map((t: any) => t.startTime),
    [0, 1, 2, 3, 4, 5],
  )
  assert.equal(
    stored.map((t: any) => t.id),
    [...stored.map((t: any) => t.id)].sort((a: number, b: number) => a - b),
  )
})

for (const format of ['csv', 'json', 'ndjson', 'raven'] as const) {
  test(`tag export --format ${format} | tag import copies every tag`, async () => {
    const exported = await w.mas(['tag', 'export', '--tag-set', String(tagSet), '--format', format])
    assert.is(exported.code, 0, exported.stderr)
    const copy = await newTagSet(`copy-${format}`)
    const run = await w.mas(['tag', 'import', '-', '--tag-set', String(copy)], { input: exported.stdout })
    assert.is(run.code, 0, run.stderr)
    // a Raven table lists selections by recording, then time: compare the tags in one order
    const inOrder = (tags: any[]) => tags.map(region).sort((x, y) => String(x).localeCompare(String(y)))
    assert.equal(inOrder(await tagsOf(copy)), inOrder(await tagsOf(tagSet)))
  })
}

test('export writes the header and formats expected by other tools; --json gives every record', async () => {
  const csv = await w.mas(['tag', 'export', '--tag-set', String(tagSet)])
  assert.match(
    csv.stdout,
    /^mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency,strength,machineTagged,userTagged,randomlyChosen,mediaFileAlias,tagClassName,annotations,provenance\n/,
  )
  const raven = await w.mas(['tag', 'export', '--tag-set', String(tagSet), '--format', 'raven'])
  const lines = raven.stdout.trim().split('\r\n')
  assert.is(
    lines[0],
    'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tBegin Path\tBegin File\tFile Offset (s)\tSpecies\tStrength\tmas_machine_tagged\tmas_user_tagged\tmas_randomly_chosen\tmas_tag_id\tmas_media_file_id\tmas_tag_class_id\tmas_provenance',
  )
  assert.is(lines[1].split('\t')[0], '1')
  const all = json(await w.mas(['tag', 'export', '--tag-set', String(tagSet), '--json']))
  assert.equal(
    all.map((t: any) => t.id),
    (await tagsOf(tagSet)).map((t: any) => t.id),
  )
  // --format json is one JSON array; ndjson one record a line
  const array = JSON.parse((await w.mas(['tag', 'export', '--tag-set', String(tagSet), '--format', 'json'])).stdout)
  assert.equal(array, all)
  const ndjson = (await w.mas(['tag', 'export', '--tag-set', String(tagSet), '--format', 'ndjson'])).stdout
    .trim()
    .split('\n')
  assert.equal(
    ndjson.map((l) => JSON.parse(l)),
    all,
  )
  const empty = await w.mas(['tag', 'export', '--tag-set', String(await newTagSet('empty')), '--format', 'json'])
  assert.equal(JSON.parse(empty.stdout), [])
})

test('a Raven export holds every tag of the set, those on recordings and classes of another library too', async () => {
  const set = await newTagSet('across')
  const other = await makeLibrary(w.t.db, alice)
  const file = await makeMediaFile(w.t.db, alice, other)
  const wren = await makeTagClass(w.t.db, alice, other, 'wren')
  const here = await makeTag(w.t.db, alice, { tagSet: set, mediaFile: media[0], tagClass: classes[0] })
  const there = await makeTag(w.t.db, alice, { tagSet: set, mediaFile: file, tagClass: wren })
  const raven = await w.mas(['tag', 'export', '--tag-set', String(set), '--format', 'raven'])
  assert.is(raven.code, 0, raven.stderr)
  const [header, ...rows] = raven.stdout
    .trim()
    .split('\r\n')
    .map((l) => l.split('\t'))
  assert.equal(
    rows.map((r) => Number(r[header.indexOf('mas_tag_id')])).sort((a, b) => a - b),
    [here, there],
  )
  assert.ok(
    rows.some((r) => r[header.indexOf('Species')] === 'wren'),
    raven.stdout,
  )
  assert.match(raven.stderr, /1 tagged recording outside library "[^"]+": included/)
})

test('export into a reader that stops early (| head) ends quietly with exit 0', async () => {
  const set = await newTagSet('long')
  const tag = {
    tagSet: set,
    mediaFile: media[0],
    tagClass: classes[0],
    startTime: 0,
    endTime: 1,
    minFrequency: 0,
    maxFrequency: 100,
  }
  const created = await w.t.call('POST', '/api/v0/tag/', { as: alice, body: Array.from({ length: 2500 }, () => tag) })
  assert.is(created.statusCode, 201)
  for (const format of ['csv', 'json', 'ndjson', 'raven']) {
    const run = await w.mas(['tag', 'export', '--tag-set', String(set), '--format', format], { stdoutUpTo: 1 })
    assert.is(run.code, 0, `${format}: ${run.stderr}`)
    assert.is(run.stderr, '', format)
  }
  const all = await w.mas(['tag', 'export', '--tag-set', String(set), '--json'], { stdoutUpTo: 1 })
  assert.is(all.code, 0, all.stderr)
  assert.is(all.stderr, '')
})

test('a Raven table of one recording: --media-file, one tag per selection, from its spectrogram row', async () => {
  const table = [
    'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tTag Class',
    `1\tWaveform 1\t1\t0.5\t1.5\t0\t0\t${classes[0]}`,
    `1\tSpectrogram 1\t1\t0.5\t1.5\t1200\t4800\t${classes[0]}`,
    `2\tSpectrogram 1\t1\t3\t3.25\t900\t2000\t${classes[1]}`,
  ].join('\n')
  const set = await newTagSet('raven')
  const run = await w.mas(['tag', 'import', '-', '--tag-set', String(set), '--media-file', String(media[1])], {
    input: table,
  })
  assert.is(run.code, 0, run.stderr)
  assert.equal((await tagsOf(set)).map(region), [
    [media[1], classes[0], 0.5, 1.5, 1200, 4800, 0],
    [media[1], classes[1], 3, 3.25, 900, 2000, 0],
  ])
})

test('an interrupted import says what was created; a re-run of the same input creates only the rest, ids in input order', async () => {
  const set = await newTagSet('interrupted')
  const rows = ['mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency']
  for (let i = 0; i < 300; i++) rows.push(`${media[i % 2]},${classes[0]},${i},${i + 0.5},0,10`)
  const input = rows.join('\n') + '\n'
  let signalled = false
  // standard input is spooled to a temporary folder: the interrupted process removes it as it exits
  const temporary = tempDir('mas-spool-')
  const first = await w.mas(['tag', 'import', '-', '--tag-set', String(set), '--batch-size', '1'], {
    input,
    env: { TMPDIR: temporary },
    onStderr: (text, child) => {
      if (!signalled && /sent (5\d|[6-9]\d|\d{3})\/300 tags/.test(text)) {
        signalled = true
        child.kill('SIGINT')
      }
    },
  })
  assert.ok(signalled, first.stderr)
  assert.is(first.code, 130, first.stderr)
  assert.equal(readdirSync(temporary), [], 'the spooled input is removed')
  const done = Number(
    /interrupted: (\d+) of 300 tags created; re-run the same command to create the rest/.exec(first.stderr)?.[1],
  )
  assert.ok(done >= 50 && done < 300, first.stderr)
  assert.is((await tagsOf(set)).length, done)

  const again = await w.mas(['tag', 'import', '-', '--tag-set', String(set), '--json'], { input })
  assert.is(again.code, 0, again.stderr)
  assert.match(
    again.stderr,
    new RegExp(`Imported 300 tags into tag set ${set} \\(.*\\); ${done} of them were created by an earlier run`),
  )
  const stored = await tagsOf(set)
  assert.equal(
    stored.map((t: any) => t.startTime),
    Array.from({ length: 300 }, (_v, i) => i),
  )
  assert.equal(
    json(again).map((t: any) => t.id),
    stored.map((t: any) => t.id),
  )
  // done: the same input again is a new import, whose rows are all in the tag set already; --again makes them again
  const third = await w.mas(['tag', 'import', '-', '--tag-set', String(set)], { input })
  assert.is(third.code, 0, third.stderr)
  assert.match(
    third.stderr,
    new RegExp(`Imported 0 tags into tag set ${set} \\([^)]*\\)\n300 rows were already in the tag set`),
  )
  assert.is((await tagsOf(set)).length, 300)
  const fourth = await w.mas(['tag', 'import', '-', '--tag-set', String(set), '--again'], { input })
  assert.is(fourth.code, 0, fourth.stderr)
  assert.match(fourth.stderr, new RegExp(`Imported 300 tags into tag set ${set} \\([^)]*\\)\n`))
  assert.is((await tagsOf(set)).length, 600)
})

test.run()
