import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { MEDIA_EXTENSIONS, OBSERVATION_EXTENSIONS } from '../../src/camtrapDp.js'
import type { TestUser } from '../helpers/app.js'
import { descriptorErrors, packageErrors, readTable, tableErrors } from '../helpers/camtrapDp.js'
import { grant, makeMetaData } from '../helpers/records.js'
import { makeWav } from '../helpers/wav.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// mas tag export --format camtrap-dp: a season of generated recordings imported through the real binary, tags of
// a detector and of a person, reviewed; the package written is checked against the vendored Camtrap DP 1.0.2
// schemas (test/helpers/camtrapDp.ts).

let w: CliWorld
let alice: TestUser
let bob: TestUser
let work: string
const ids: Record<string, number> = {}
const tags: Record<string, number> = {}
const extensions = { media: MEDIA_EXTENSIONS, observations: OBSERVATION_EXTENSIONS }

const ok = async (args: string[]) => {
  const run = await w.mas(args)
  assert.is(run.code, 0, `mas ${args.join(' ')}: ${run.stderr}`)
  return run
}
/** `mas tag export --format camtrap-dp` of the tag set named into `dir`, its deployments placed by the flags. */
const exportPackage = (tagSet: string, dir: string) =>
  ok([
    'tag',
    'export',
    '--tag-set',
    tagSet,
    '--format',
    'camtrap-dp',
    '-o',
    dir,
    '--latitude',
    '50.1',
    '--longitude',
    '5.2',
  ])
const tableOf = (dir: string, name: string) => readTable(readFileSync(join(dir, `${name}.csv`), 'utf8')).rows
const descriptorOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'datapackage.json'), 'utf8'))

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  bob = await w.t.user('bob')
  work = w.newHome()
  ids.library = Number((await ok(['library', 'create', 'Season 2026'])).stdout.trim())
  const put = (root: string, path: string, seconds: number, frequency: number) => {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), makeWav({ seconds, sampleRate: 16000, frequency }))
  }
  const folders = join(work, 'folders')
  put(folders, 'siteA/20260501_050000.WAV', 10, 2000)
  put(folders, 'siteA/20260501_060000.WAV', 10, 2500)
  await ok(['media', 'import', folders, '--library', 'Season 2026', '--recursive'])
  const moth = join(work, 'moth')
  put(moth, '20260502_040000.WAV', 5, 3000)
  ids.sensor = Number((await ok(['sensor', 'create', 'AudioMoth-17'])).stdout.trim())
  await ok(['media', 'import', moth, '--library', 'Season 2026', '--sensor', 'AudioMoth-17'])
  const media = json(await ok(['media', 'list', '--library', 'Season 2026', '--json'])) as {
    id: number
    alias: string
  }[]
  for (const m of media) ids[m.alias] = m.id
  // siteA's place is in its recordings' metadata; the sensor's is given on the command line
  for (const alias of ['siteA/20260501_050000.WAV', 'siteA/20260501_060000.WAV']) {
    await makeMetaData(w.t.db, ids[alias], 'latitude', '51.2345', true)
    await makeMetaData(w.t.db, ids[alias], 'longitude', '4.5678', true)
  }
  await ok(['tagset', 'create', 'detector', '--library', 'Season 2026'])
  await ok(['tagset', 'create', 'nothing yet', '--library', 'Season 2026'])
  await ok(['tagclass', 'create', 'Turdus merula', '--library', 'Season 2026'])
  await ok(['tagclass', 'create', 'Erithacus rubecula', '--library', 'Season 2026'])
  const provenance = JSON.stringify({
    source: 'BirdNET-Analyzer',
    version: '2.4',
    parameters: { minConf: 0.1 },
  }).replace(/"/g, '""')
  const csv =
    [
      'mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency,strength,machineTagged,provenance',
      ...[
        [1.5, 3, 0.87],
        [4, 6.25, 0.4],
        [7, 9, 0.55],
        [2, 4, 0.3],
        [8, 9.5, 0.95],
      ].map(
        ([s, e, p], i) =>
          `${i < 3 ? 'siteA/20260501_050000.WAV' : 'siteA/20260501_060000.WAV'},Turdus merula,${s},${e},1000,4000,${p},true,"${provenance}"`,
      ),
    ].join('\n') + '\n'
  writeFileSync(join(work, 'birdnet.csv'), csv)
  await ok(['tag', 'import', join(work, 'birdnet.csv'), '--tag-set', 'detector'])
  await ok([
    'tag',
    'create',
    '--tag-set',
    'detector',
    '--media-file',
    '20260502_040000.WAV',
    '--tag-class',
    'Erithacus rubecula',
    '--start',
    '0.5',
    '--end',
    '1.75',
    '--min-freq',
    '2000',
    '--max-freq',
    '7000',
  ])
  const listed = json(await ok(['tag', 'list', '--tag-set', 'detector', '--json'])) as {
    id: number
    startTime: number
  }[]
  const at = (start: number) => listed.find((t) => t.startTime === start)!.id
  Object.assign(tags, {
    confirmed: at(1.5),
    renamed: at(4),
    unsure: at(7),
    rejected: at(2),
    undecided: at(8),
    byHand: at(0.5),
  })
  await grant(w.t.db, alice, { user: bob.id }, { library: ids.library }, ['read'])
  await grant(w.t.db, alice, { user: bob.id }, { tagSet: await tagSetId('detector') }, ['read', 'write'])
  const decide = (as: TestUser, tag: number, decision: string, tagClass?: number) =>
    w.t.call('POST', '/api/v0/tagReview/', { as, body: { tag, decision, ...(tagClass ? { tagClass } : {}) } })
  const robin = (
    json(await ok(['tagclass', 'list', '--library', 'Season 2026', '--json'])) as { id: number; className: string }[]
  ).find((c) => c.className === 'Erithacus rubecula')!.id
  await decide(alice, tags.confirmed, 'yes')
  await decide(bob, tags.confirmed, 'yes')
  await decide(alice, tags.renamed, 'no', robin)
  await decide(alice, tags.unsure, 'unsure')
  await decide(alice, tags.rejected, 'no')
  await decide(bob, tags.undecided, 'skip')
})
test.after(async () => {
  await w.close()
})

async function tagSetId(name: string): Promise<number> {
  return (json(await ok(['tagset', 'list', '--json'])) as { id: number; name: string }[]).find((s) => s.name === name)!
    .id
}

test('a season exported as Camtrap DP is valid against the vendored schemas, every tag with its review status', async () => {
  const dir = join(work, 'package')
  const run = await exportPackage('detector', dir)
  assert.match(run.stderr, new RegExp(`wrote ${dir}: 6 observations of 6 tags, 3 recordings, 2 deployments\\n$`))
  assert.equal(readdirSync(dir).sort(), ['datapackage.json', 'deployments.csv', 'media.csv', 'observations.csv'])
  assert.equal(packageErrors(dir, extensions), [])

  const deployments = tableOf(dir, 'deployments')
  assert.equal(
    deployments.map((d) => [
      d.deploymentID,
      d.locationName,
      d.latitude,
      d.longitude,
      d.deploymentStart,
      d.deploymentEnd,
      d.cameraID,
    ]),
    [
      ['folder:siteA', 'siteA', '51.2345', '4.5678', '2026-05-01T05:00:00Z', '2026-05-01T06:00:10Z', ''],
      [
        `sensor:${ids.sensor}`,
        'AudioMoth-17',
        '50.1',
        '5.2',
        '2026-05-02T04:00:00Z',
        '2026-05-02T04:00:05Z',
        String(ids.sensor),
      ],
    ],
  )
  const media = tableOf(dir, 'media')
  assert.equal(
    media.map((m) => [
      m.mediaID,
      m.deploymentID,
      m.timestamp,
      m.filePath,
      m.fileName,
      m.fileMediatype,
      m.filePublic,
      m.samplingFrequency,
      m.bitDepth,
      m.duration,
    ]),
    [
      [
        String(ids['siteA/20260501_050000.WAV']),
        'folder:siteA',
        '2026-05-01T05:00:00Z',
        'siteA/20260501_050000.WAV',
        '20260501_050000.WAV',
        'audio/wav',
        'false',
        '16000',
        '16',
        '10',
      ],
      [
        String(ids['siteA/20260501_060000.WAV']),
        'folder:siteA',
        '2026-05-01T06:00:00Z',
        'siteA/20260501_060000.WAV',
        '20260501_060000.WAV',
        'audio/wav',
        'false',
        '16000',
        '16',
        '10',
      ],
      [
        String(ids['20260502_040000.WAV']),
        `sensor:${ids.sensor}`,
        '2026-05-02T04:00:00Z',
        '20260502_040000.WAV',
        '20260502_040000.WAV',
        'audio/wav',
        'false',
        '16000',
        '16',
        '5',
      ],
    ],
  )

  const observations = new Map(tableOf(dir, 'observations').map((o) => [Number(o.observationID), o]))
  assert.is(observations.size, 6)
  const pick = (o: Record<string, string>, keys: string[]) => keys.map((k) => o[k])
  const KEYS = [
    'observationLevel',
    'observationType',
    'scientificName',
    'classificationMethod',
    'classifiedBy',
    'classificationProbability',
    'reviewStatus',
    'taggedClass',
  ]
  assert.equal(pick(observations.get(tags.confirmed)!, KEYS), [
    'media',
    'animal',
    'Turdus merula',
    'human',
    'alice | bob',
    '',
    'yes',
    'Turdus merula',
  ])
  assert.equal(pick(observations.get(tags.renamed)!, KEYS), [
    'media',
    'animal',
    'Erithacus rubecula',
    'human',
    'alice',
    '',
    'no',
    'Turdus merula',
  ])
  assert.equal(pick(observations.get(tags.unsure)!, KEYS), [
    'media',
    'unknown',
    '',
    'human',
    'alice',
    '',
    'unsure',
    'Turdus merula',
  ])
  assert.equal(pick(observations.get(tags.rejected)!, KEYS), [
    'media',
    'blank',
    '',
    'human',
    'alice',
    '',
    'no',
    'Turdus merula',
  ])
  // a skip says nothing: the detector's word stands, with its provenance
  assert.equal(pick(observations.get(tags.undecided)!, KEYS), [
    'media',
    'animal',
    'Turdus merula',
    'machine',
    'BirdNET-Analyzer 2.4',
    '0.95',
    'unreviewed',
    'Turdus merula',
  ])
  assert.equal(JSON.parse(observations.get(tags.undecided)!.provenance), {
    source: 'BirdNET-Analyzer',
    version: '2.4',
    parameters: { minConf: 0.1 },
  })
  assert.equal(pick(observations.get(tags.byHand)!, KEYS), [
    'media',
    'animal',
    'Erithacus rubecula',
    'human',
    'alice',
    '',
    'unreviewed',
    'Erithacus rubecula',
  ])
  assert.is(observations.get(tags.byHand)!.provenance, '')
  // times: whole seconds around the tag in the standard columns, the exact place in the acoustic ones
  const confirmed = observations.get(tags.confirmed)!
  assert.equal(
    pick(confirmed, [
      'deploymentID',
      'mediaID',
      'eventStart',
      'eventEnd',
      'startOffset',
      'endOffset',
      'frequencyLow',
      'frequencyHigh',
      'detectionStrength',
    ]),
    [
      'folder:siteA',
      String(ids['siteA/20260501_050000.WAV']),
      '2026-05-01T05:00:01Z',
      '2026-05-01T05:00:03Z',
      '1.5',
      '3',
      '1000',
      '4000',
      '0.87',
    ],
  )
  assert.match(confirmed.classificationTimestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/)

  const descriptor = descriptorOf(dir)
  assert.is(descriptor.profile, 'https://raw.githubusercontent.com/tdwg/camtrap-dp/1.0.2/camtrap-dp-profile.json')
  assert.is(descriptor.name, 'detector')
  assert.equal(descriptor.taxonomic, [{ scientificName: 'Erithacus rubecula' }, { scientificName: 'Turdus merula' }])
  assert.equal(descriptor.temporal, { start: '2026-05-01', end: '2026-05-02' })
  assert.equal(descriptor.spatial, {
    type: 'Polygon',
    coordinates: [
      [
        [4.5678, 50.1],
        [5.2, 50.1],
        [5.2, 51.2345],
        [4.5678, 51.2345],
        [4.5678, 50.1],
      ],
    ],
  })
  assert.equal(descriptor.contributors, [
    { title: 'alice', role: 'contact' },
    { title: 'bob', role: 'contributor' },
  ])
})

test("--reviewed-only keeps the tags reviewers confirmed; --utc-offset places the recorders' clocks", async () => {
  const dir = join(work, 'confirmed')
  const run = await ok([
    'tag',
    'export',
    '--tag-set',
    String(await tagSetId('detector')),
    '--format',
    'camtrap-dp',
    '-o',
    dir,
    '--reviewed-only',
    '--utc-offset',
    '+02:00',
    '--latitude',
    '50.1',
    '--longitude',
    '5.2',
    '--json',
  ])
  assert.equal(json(run).observations, 1)
  assert.equal(packageErrors(dir, extensions), [])
  const observations = tableOf(dir, 'observations')
  assert.equal(
    observations.map((o) => [Number(o.observationID), o.eventStart, o.eventEnd, o.reviewStatus]),
    [[tags.confirmed, '2026-05-01T05:00:01+02:00', '2026-05-01T05:00:03+02:00', 'yes']],
  )
  assert.is(tableOf(dir, 'media').length, 3, 'every recording of the season, tagged or not')
  assert.equal(descriptorOf(dir).taxonomic, [{ scientificName: 'Turdus merula' }])
})

test("a tag without a score or a band (a cluster's, a label's) leaves its probability, strength and band empty", async () => {
  await ok(['tagset', 'create', 'clusters', '--library', 'Season 2026'])
  const csv = join(work, 'clusters.csv')
  writeFileSync(
    csv,
    'mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency,strength,machineTagged\n' +
      'siteA/20260501_050000.WAV,Turdus merula,1,2,0,0,0,true\n' +
      'siteA/20260501_050000.WAV,Turdus merula,3,4,0,8000,0.5,true\n',
  )
  await ok(['tag', 'import', csv, '--tag-set', 'clusters'])
  const dir = join(work, 'clusters-package')
  await exportPackage('clusters', dir)
  assert.equal(packageErrors(dir, extensions), [])
  const cells = (o: Record<string, string>) =>
    ['classificationProbability', 'detectionStrength', 'frequencyLow', 'frequencyHigh'].map((k) => o[k])
  assert.equal(tableOf(dir, 'observations').map(cells), [
    ['', '', '', ''],
    ['0.5', '0.5', '0', '8000'],
  ])
})

test('an empty selection is still a valid package; a deployment without a place is said, and the schema refuses it', async () => {
  const dir = join(work, 'empty')
  mkdirSync(dir)
  const run = await ok(['tag', 'export', '--tag-set', 'nothing yet', '--format', 'camtrap-dp', '-o', dir])
  assert.match(
    run.stderr,
    /0 observations of 0 tags, 3 recordings, 2 deployments; 1 deployment without a location \(Camtrap DP requires latitude and longitude/,
  )
  assert.equal(tableOf(dir, 'observations'), [])
  assert.equal(descriptorOf(dir).taxonomic, [])
  const errors = packageErrors(dir, extensions)
  assert.equal(errors, [
    'deployments.csv line 3: latitude is required',
    'deployments.csv line 3: longitude is required',
  ])
  // with a place for the sensor, the empty package is valid
  const placed = join(work, 'empty-placed')
  await ok([
    'tag',
    'export',
    '--tag-set',
    'nothing yet',
    '--format',
    'camtrap-dp',
    '-o',
    placed,
    '--latitude',
    '50.1',
    '--longitude',
    '5.2',
  ])
  assert.equal(packageErrors(placed, extensions), [])
  // and the check itself refuses what the schemas refuse
  const { project: _project, ...unplanned } = descriptorOf(placed)
  assert.equal(descriptorErrors({ ...unplanned, created: 'today' }), [
    'datapackage.json/created: must match format "date-time"',
    "datapackage.json: must have required property 'project'",
  ])
  const observations = readFileSync(join(placed, 'observations.csv'), 'utf8').trim()
  const bad = `${observations}\n1,d,m,,2026-05-01T05:00:01.5Z,,media,bird,,,0${',x'.repeat(25)}\n`
  assert.equal(tableErrors('observations', bad, OBSERVATION_EXTENSIONS).slice(0, 4), [
    'observations.csv line 2: eventStart "2026-05-01T05:00:01.5Z" not a datetime of the form YYYY-MM-DDThh:mm:ss±hh:mm',
    'observations.csv line 2: eventEnd is required',
    'observations.csv line 2: observationType "bird" not one of animal, human, vehicle, blank, unknown, unclassified',
    'observations.csv line 2: count "0" below 1',
  ])
})

test("refusals: no -o, a folder that is not empty, the format's flags with another format — one line, nothing written", async () => {
  const noDir = await w.mas(['tag', 'export', '--tag-set', 'detector', '--format', 'camtrap-dp'])
  assert.is(noDir.code, 2)
  assert.is(noDir.stderr.trim().split('\n').length, 1, noDir.stderr)
  assert.match(noDir.stderr, /--format camtrap-dp writes a folder of files: give it with -o DIR/)
  const full = join(work, 'full')
  mkdirSync(full)
  writeFileSync(join(full, 'notes.txt'), 'mine\n')
  const notEmpty = await w.mas(['tag', 'export', '--tag-set', 'detector', '--format', 'camtrap-dp', '-o', full])
  assert.is(notEmpty.code, 1)
  assert.is(notEmpty.stderr.trim().split('\n').length, 1, notEmpty.stderr)
  assert.match(notEmpty.stderr, /-o .*full: the folder is not empty \(1 entry\); give a new or empty folder/)
  assert.equal(readdirSync(full), ['notes.txt'])
  assert.equal(
    readdirSync(work).filter((n) => n.includes('partial')),
    [],
  )
  const csv = await w.mas(['tag', 'export', '--tag-set', 'detector', '--reviewed-only'])
  assert.is(csv.code, 2)
  assert.match(csv.stderr, /--reviewed-only is for --format camtrap-dp only/)
  const offset = await w.mas([
    'tag',
    'export',
    '--tag-set',
    'detector',
    '--format',
    'camtrap-dp',
    '-o',
    join(work, 'y'),
    '--utc-offset',
    'CEST',
  ])
  assert.is(offset.code, 2)
  assert.match(offset.stderr, /--utc-offset: expected Z or ±hh:mm \(e\.g\. \+02:00\), not "CEST"/)
  assert.not.ok(existsSync(join(work, 'x')) || existsSync(join(work, 'y')))
})

test.run()
