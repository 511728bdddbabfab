import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeLibrary, makeMediaFile, makeMetaData, makeTagClass } from '../helpers/records.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// Tag class names whatever their case (issue 47): a Raven row's CHIRP is the library's chirp, a name several
// classes share but for case is an error naming them, and --create-classes makes no class differing only in
// case from another without --force. Messages name the library by its name.

let w: CliWorld
let alice: TestUser
let library: number
let recording: number
const cls: Record<string, number> = {}

const RAVEN_HEADER = [
  'Selection',
  'View',
  'Channel',
  'Begin Time (s)',
  'End Time (s)',
  'Low Freq (Hz)',
  'High Freq (Hz)',
  'Species',
]
/** A Raven table of one recording, a selection a row: [begin, end, species]. */
const raven = (rows: Array<[number, number, string]>) =>
  [
    RAVEN_HEADER,
    ...rows.map(([begin, end, species], i) => [i + 1, 'Spectrogram 1', 1, begin, end, 1000, 4000, species]),
  ]
    .map((r) => r.join('\t'))
    .join('\r\n') + '\r\n'

const tagsOf = async (set: number) =>
  (await w.t.call('GET', `/api/v0/tagSet/${set}/tags/?page_size=1000`, { as: alice })).data.results
const classNames = async () =>
  json(await w.mas(['tagclass', 'list', '--library', 'Dawn chorus', '--json']))
    .map((c: any) => c.className)
    .sort()

const newTagSet = (name: string): Promise<number> => w.tagSet(alice, name, library)

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  library = await makeLibrary(w.t.db, alice, 'Dawn chorus')
  recording = await makeMediaFile(w.t.db, alice, library, { alias: 'siteA/0500.wav', file: 'siteA_0500.wav' })
  await makeMetaData(w.t.db, recording, 'durationInSeconds', '60.0')
  // chirp alone; Trill and TRILL differ only in case (made before the command line refused such twins)
  for (const name of ['chirp', 'Trill', 'TRILL']) cls[name] = await makeTagClass(w.t.db, alice, library, name)
})
test.after(async () => {
  await w.close()
})

test("a Raven row CHIRP is filed under the library's chirp: exact names first, then the one class differing only in case", async () => {
  const set = await newTagSet('raven')
  const run = await w.mas(['tag', 'import', '-', '--tag-set', 'raven', '--media-file', 'siteA/0500.wav'], {
    input: raven([
      [1, 2, 'CHIRP'],
      [3, 4, 'chirp'],
      [5, 6, 'Chirp'],
      [7, 8, 'TRILL'],
      [9, 10, 'Trill'],
    ]),
  })
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stderr, /Imported 5 tags into tag set \d+ \(raven\)/)
  assert.equal(
    (await tagsOf(set)).map((t: any) => t.tagClass),
    [cls.chirp, cls.chirp, cls.chirp, cls.TRILL, cls.Trill],
  )
  assert.equal(await classNames(), ['TRILL', 'Trill', 'chirp'])
})

test("a name several classes share but for case: the row's error names them, the library by its name; nothing is sent", async () => {
  const set = await newTagSet('ambiguous')
  const run = await w.mas(
    ['tag', 'import', '-', '--tag-set', 'ambiguous', '--media-file', 'siteA/0500.wav', '--create-classes'],
    {
      input: raven([
        [1, 2, 'chirp'],
        [3, 4, 'trill'],
      ]),
    },
  )
  assert.is(run.code, 1)
  assert.match(
    run.stderr,
    `line 3: tagClass: 2 tag classes in library "Dawn chorus" differ from "trill" only in case: Trill (id ${cls.Trill}), TRILL (id ${cls.TRILL}); give one of them as it is written (or its id)\n`,
  )
  assert.match(run.stderr, /Error: 1 error in stdin; nothing was sent\n$/)
  assert.equal(await tagsOf(set), [])
  assert.equal(await classNames(), ['TRILL', 'Trill', 'chirp'])
})

test('mas tag create --tag-class finds classes as tag import does', async () => {
  await newTagSet('by hand')
  const create = (tagClass: string) =>
    w.mas([
      'tag',
      'create',
      '--tag-set',
      'by hand',
      '--media-file',
      'siteA/0500.wav',
      '--tag-class',
      tagClass,
      '--start',
      '1',
      '--end',
      '2',
      '--json',
    ])
  const upper = await create('CHIRP')
  assert.is(upper.code, 0, upper.stderr)
  assert.is(json(upper).tagClass, cls.chirp)
  const twins = await create('trill')
  assert.is(twins.code, 1)
  assert.is(
    twins.stderr,
    `Error: --tag-class: 2 tag classes in library "Dawn chorus" differ from "trill" only in case: Trill (id ${cls.Trill}), TRILL (id ${cls.TRILL}); give one of them as it is written (or its id)\n`,
  )
  const none = await create('warble')
  assert.match(
    none.stderr,
    /^Error: --tag-class: no tag class named "warble" in library "Dawn chorus" \(there are: chirp, Trill, TRILL\)\n$/,
  )
})

test('--create-classes makes no class differing only in case from another new one without --force, and says so in one line', async () => {
  const set = await newTagSet('new calls')
  const table = raven([
    [1, 2, 'Whistle'],
    [3, 4, 'WHISTLE'],
    [5, 6, 'rattle'],
  ])
  const refused = await w.mas(
    ['tag', 'import', '-', '--tag-set', 'new calls', '--media-file', 'siteA/0500.wav', '--create-classes'],
    { input: table },
  )
  assert.is(refused.code, 1)
  assert.is(
    refused.stderr,
    '  tag classes "Whistle" and "WHISTLE" differ only in case: correct the file, or give --force to create each as a class of its own\n' +
      'Error: 1 error in stdin; nothing was sent\n',
  )
  assert.equal(await classNames(), ['TRILL', 'Trill', 'chirp'])
  assert.equal(await tagsOf(set), [])
  // without --create-classes the missing classes are named with the library's name
  const missing = await w.mas(['tag', 'import', '-', '--tag-set', 'new calls', '--media-file', 'siteA/0500.wav'], {
    input: raven([[5, 6, 'rattle']]),
  })
  assert.match(missing.stderr, 'no tag class named "rattle" in library "Dawn chorus" (--create-classes creates them)')
  // --force: names match exactly, and each new name is a class of its own, CHIRP beside chirp too
  const forced = await w.mas(
    ['tag', 'import', '-', '--tag-set', 'new calls', '--media-file', 'siteA/0500.wav', '--create-classes', '--force'],
    {
      input: raven([
        [1, 2, 'Whistle'],
        [3, 4, 'WHISTLE'],
        [5, 6, 'CHIRP'],
        [7, 8, 'chirp'],
      ]),
    },
  )
  assert.is(forced.code, 0, forced.stderr)
  assert.match(forced.stderr, 'Created 3 tag classes in library "Dawn chorus": Whistle, WHISTLE, CHIRP')
  assert.equal(await classNames(), ['CHIRP', 'TRILL', 'Trill', 'WHISTLE', 'Whistle', 'chirp'])
  const ids = new Map<string, number>(
    json(await w.mas(['tagclass', 'list', '--library', 'Dawn chorus', '--json'])).map((c: any) => [c.className, c.id]),
  )
  assert.equal(
    (await tagsOf(set)).map((t: any) => t.tagClass),
    [ids.get('Whistle'), ids.get('WHISTLE'), ids.get('CHIRP'), cls.chirp],
  )
  // --force only means something with --create-classes
  const alone = await w.mas(
    ['tag', 'import', '-', '--tag-set', 'new calls', '--media-file', 'siteA/0500.wav', '--force'],
    { input: table },
  )
  assert.is(alone.code, 2)
})

test.run()
