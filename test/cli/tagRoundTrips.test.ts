import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeWav } from '../helpers/wav.js'
import { cliWorld, type CliWorld } from './cli.js'

// `mas tag export` then `mas tag import` copies a tag set (README "Tag files", docs/decisions.md §32): a set of a
// BirdNET CSV's, a Kaleidoscope CSV's and Audacity labels' tags, and one made by hand, exported in each format and
// imported into a new set gives every field each format has room for back, compared record by record; imported
// into the set it came from, or into its copy again, it creates nothing.

let w: CliWorld
let alice: TestUser
let dir: string
const ALIASES = ['siteA/20250601_050000.WAV', 'siteB/20250601_060000.WAV']

const write = (name: string, content: string) => {
  const path = join(dir, name)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, content)
  return path
}

/** The records of a tag set, as its NDJSON export gives them. */
async function records(set: string): Promise<any[]> {
  const run = await w.mas(['tag', 'export', '--tag-set', set, '--format', 'ndjson'])
  assert.is(run.code, 0, run.stderr)
  return run.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l))
}

/** What a format carries of each tag, the tags in one order (no two share a region here). */
const carried = (tags: any[], fields: readonly string[]) =>
  tags
    .map((t) => Object.fromEntries(fields.map((f) => [f, t[f]])))
    .sort((a, b) => a.mediaFile - b.mediaFile || a.startTime - b.startTime || a.endTime - b.endTime)

const REGION = ['mediaFile', 'tagClass', 'startTime', 'endTime', 'minFrequency', 'maxFrequency'] as const
const EVERYTHING = [
  ...REGION,
  'strength',
  'machineTagged',
  'userTagged',
  'randomlyChosen',
  'annotations',
  'provenance',
] as const

const importInto = async (paths: string[], set: string) => {
  const run = await w.mas(['tag', 'import', ...paths, '--tag-set', set])
  assert.is(run.code, 0, run.stderr)
  return run
}

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  dir = w.newHome()
  const root = join(dir, 'Field')
  for (const [i, alias] of ALIASES.entries()) {
    mkdirSync(dirname(join(root, alias)), { recursive: true })
    writeFileSync(join(root, alias), makeWav({ seconds: 20, sampleRate: 48000, frequency: 500 + 300 * i }))
  }
  assert.is((await w.mas(['library', 'create', 'Season'])).code, 0)
  const imported = await w.mas(['media', 'import', root, '--library', 'Season', '--recursive'])
  assert.is(imported.code, 0, imported.stderr)
  await w.tagSet(alice, 'Detectors', 'Season')
  const birdnet = write(
    'in/20250601_050000.BirdNET.results.csv',
    [
      'Start (s),End (s),Scientific name,Common name,Confidence,File',
      '0.0,3.0,Turdus merula,Eurasian Blackbird,0.8123,D:\\Field\\siteA\\20250601_050000.WAV',
      '3.0,6.0,Parus major,"Tit, Great",0.4567,D:\\Field\\siteB\\20250601_060000.WAV',
    ].join('\r\n') + '\r\n',
  )
  const kaleidoscope = write(
    'in/id.csv',
    [
      'INDIR,FOLDER,IN FILE,CHANNEL,OFFSET,DURATION,FMIN,FMEAN,FMAX,DATE,TIME,TOP1MATCH,TOP1DIST,MANUAL ID',
      'D:\\Field,siteB,20250601_060000.WAV,0,10.5,1.25,2100,3200,4800,2025-06-01,06:00:10,Cluster 3,0.612,',
      'D:\\Field,siteA,20250601_050000.WAV,1,12,0.5,900,1100,1500,2025-06-01,05:00:12,Cluster 7,0.233,owl',
    ].join('\r\n') + '\r\n',
  )
  write('in/labels/siteA/20250601_050000.WAV.txt', '1.500000\t2.250000\tChiffchaff\n\\\t2000.000000\t6000.000000\n')
  write('in/labels/siteB/20250601_060000.WAV.txt', '4.000000\t5.000000\tChiffchaff\n\\\t0.000000\t15000.000000\n')
  const run = await w.mas([
    'tag',
    'import',
    birdnet,
    kaleidoscope,
    join(dir, 'in/labels'),
    '--tag-set',
    'Detectors',
    '--create-classes',
  ])
  assert.is(run.code, 0, run.stderr)
  // a tag made by hand, through the API: no provenance, no annotations, randomly chosen (as RandomWindowTagging's)
  const ids = async (path: string, name: string, key: string) =>
    (await w.t.call('GET', `/api/v0/${path}/?page_size=1000`, { as: alice })).data.results.find(
      (r: any) => r[key] === name,
    ).id
  const hand = await w.t.call('POST', '/api/v0/tag/', {
    as: alice,
    body: {
      tagSet: await ids('tagSet', 'Detectors', 'name'),
      mediaFile: await ids('mediaFile', ALIASES[0], 'alias'),
      tagClass: await ids('tagClass', 'Chiffchaff', 'className'),
      startTime: 7,
      endTime: 8,
      minFrequency: 100,
      maxFrequency: 200,
      randomlyChosen: true,
    },
  })
  assert.is(hand.statusCode, 201, JSON.stringify(hand.data))
})
test.after(async () => {
  await w.close()
})

test('the set holds what each tool said: flags, strengths, bands, annotations, provenance', async () => {
  const tags = await records('Detectors')
  assert.is(tags.length, 7)
  const blackbird = tags.find((t) => t.strength === 0.8123)
  assert.equal([blackbird.machineTagged, blackbird.userTagged], [true, false])
  assert.equal(blackbird.annotations, { 'Common name': 'Eurasian Blackbird' })
  const cluster = tags.find((t) => t.annotations.TOP1DIST === '0.612')
  assert.is(cluster.annotations.CHANNEL, '0')
  const labels = tags.filter((t) => t.provenance?.source === 'Audacity')
  assert.equal(
    labels.map((t) => [t.userTagged, t.machineTagged, t.minFrequency, t.maxFrequency]),
    [
      [true, false, 2000, 6000],
      [true, false, 0, 15000],
    ],
  )
  const hand = tags.find((t) => t.startTime === 7)
  assert.equal(
    [hand.provenance, hand.machineTagged, hand.userTagged, hand.randomlyChosen, hand.annotations],
    [null, false, false, true, {}],
  )
})

const FORMATS: Array<[format: string, fields: readonly string[]]> = [
  ['csv', EVERYTHING],
  ['json', EVERYTHING],
  ['ndjson', EVERYTHING],
  ['raven', EVERYTHING],
  ['birdnet', EVERYTHING],
  ['kaleidoscope', EVERYTHING],
  ['aoef', EVERYTHING],
]

for (const [format, fields] of FORMATS) {
  test(`--format ${format}: exported and imported into a new set, every field back; again into it or the set it came from, nothing new`, async () => {
    const original = await records('Detectors')
    let paths: string[]
    if (format === 'raven') {
      // two sites: a table per sequence of recordings
      const tables = join(dir, 'out', 'raven')
      const run = await w.mas([
        'tag',
        'export',
        '--tag-set',
        'Detectors',
        '--format',
        'raven',
        '--per-sequence',
        tables,
      ])
      assert.is(run.code, 0, run.stderr)
      paths = readdirSync(tables).map((n) => join(tables, n))
      assert.is(paths.length, 2)
      // Kaleidoscope's CHANNEL kept beside Raven's Channel, in a column of its own
      assert.match(readFileSync(paths[0], 'utf8'), /\tmas_annotation:CHANNEL\t/)
    } else {
      const run = await w.mas(['tag', 'export', '--tag-set', 'Detectors', '--format', format])
      assert.is(run.code, 0, run.stderr)
      paths = [write(`out/${format}.${{ json: 'json', aoef: 'json', ndjson: 'ndjson' }[format] ?? 'csv'}`, run.stdout)]
      if (format === 'birdnet')
        // the tools' columns first, as BirdNET writes them
        assert.match(run.stdout, /^Start \(s\),End \(s\),Scientific name,Common name,Confidence,File,/)
    }
    const copy = `copy ${format}`
    await w.tagSet(alice, copy, 'Season')
    await importInto(paths, copy)
    const copied = await records(copy)
    assert.equal(carried(copied, fields), carried(original, fields), format)

    // a re-run into the copy, and an import into the set the tags came from: every row is there already
    for (const set of [copy, 'Detectors']) {
      const again = await importInto(paths, set)
      assert.match(again.stderr, /Imported 0 tags .*\n7 rows were already in the tag set/, `${format} into ${set}`)
    }
    assert.is((await records(copy)).length, 7)
    assert.is((await records('Detectors')).length, 7)
  })
}

test("the tags a person made are a person's in a Camtrap DP package after a Raven round trip, as before it", async () => {
  const methods = async (set: string) => {
    const out = join(dir, 'dp', set.replace(/\W+/g, '-'))
    const run = await w.mas(['tag', 'export', '--tag-set', set, '--format', 'camtrap-dp', '-o', out])
    assert.is(run.code, 0, run.stderr)
    const [header, ...rows] = readFileSync(join(out, 'observations.csv'), 'utf8')
      .trim()
      .split(/\r?\n/)
      .map((l) => l.split(','))
    const at = (name: string) => header.indexOf(name)
    return rows.map((r) => `${r[at('startOffset')]} ${r[at('classificationMethod')]}`).sort()
  }
  const before = await methods('Detectors')
  assert.ok(before.includes('1.5 human'), before.join('; '))
  assert.equal(await methods('copy raven'), before)
})

test('-o FILE writes what stdout would, replacing a file only once whole; refused beside --json, --per-file or on a folder; its folder made', async () => {
  const out = join(dir, 'exported')
  mkdirSync(out, { recursive: true })
  for (const format of ['csv', 'ndjson', 'json', 'birdnet', 'kaleidoscope']) {
    const args = ['tag', 'export', '--tag-set', 'Detectors', '--format', format]
    const piped = await w.mas(args)
    assert.is(piped.code, 0, piped.stderr)
    const path = join(out, `tags.${format}`)
    writeFileSync(path, 'an older export\n')
    const filed = await w.mas([...args, '-o', path])
    assert.is(filed.code, 0, filed.stderr)
    assert.is(filed.stdout, '')
    assert.match(filed.stderr, new RegExp(`wrote ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n$`))
    assert.is(readFileSync(path, 'utf8'), piped.stdout, format)
  }
  // an export that fails (a Raven table of tags in two sequences) leaves the file it would have replaced as it was
  const kept = join(out, 'kept.selections.txt')
  writeFileSync(kept, 'mine\n')
  const failed = await w.mas(['tag', 'export', '--tag-set', 'Detectors', '--format', 'raven', '-o', kept])
  assert.is(failed.code, 2)
  assert.match(failed.stderr, /give --per-sequence DIR/)
  assert.is(readFileSync(kept, 'utf8'), 'mine\n')
  assert.equal(
    readdirSync(out).filter((n) => n.includes('partial')),
    [],
  )
  const refusals: Array<[string[], number, RegExp]> = [
    [['--json', '-o', join(out, 'x.json')], 2, /-o writes the format to a file, --json prints the tags as JSON/],
    [
      ['--format', 'audacity', '--per-file', join(dir, 'tracks'), '-o', join(out, 'x.txt')],
      2,
      /--per-file writes a folder of files: -o is for one file/,
    ],
    [['-o', out], 1, /-o .*exported: it is a folder; give the name of the file to write/],
    [
      ['-o', join(out, 'kept.selections.txt', 'x.csv')],
      1,
      /-o .*x\.csv: cannot write there \(a part of its path is a file, not a folder\)/,
    ],
  ]
  for (const [flags, code, message] of refusals) {
    const run = await w.mas(['tag', 'export', '--tag-set', 'Detectors', ...flags])
    assert.is(run.code, code, run.stderr)
    assert.is(run.stderr.trim().split('\n').length, 1, run.stderr)
    assert.match(run.stderr, message)
  }
  // a folder that is not there yet is made, as -o of mas eval and mas report makes it
  const nested = join(out, 'season', '2026', 'tags.csv')
  const made = await w.mas(['tag', 'export', '--tag-set', 'Detectors', '--format', 'csv', '-o', nested])
  assert.is(made.code, 0, made.stderr)
  assert.is(
    readFileSync(nested, 'utf8'),
    (await w.mas(['tag', 'export', '--tag-set', 'Detectors', '--format', 'csv'])).stdout,
  )
  rmSync(join(out, 'season'), { recursive: true })
  assert.equal(
    readdirSync(out).sort(),
    ['kept.selections.txt', ...['birdnet', 'csv', 'json', 'kaleidoscope', 'ndjson'].map((f) => `tags.${f}`)].sort(),
  )
})

test('a CSV of the first seven columns (an older export, a file made by hand) imports as before', async () => {
  await w.tagSet(alice, 'plain', 'Season')
  const csv =
    [
      'mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency,strength',
      `${ALIASES[0]},Chiffchaff,9,10,100,200,0.5`,
    ].join('\n') + '\n'
  const run = await w.mas(['tag', 'import', '-', '--tag-set', 'plain'], { input: csv })
  assert.is(run.code, 0, run.stderr)
  const [tag] = await records('plain')
  assert.equal(
    [tag.strength, tag.machineTagged, tag.userTagged, tag.randomlyChosen, tag.annotations, tag.provenance],
    [0.5, false, false, false, {}, null],
  )
})

test.run()
