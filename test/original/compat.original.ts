import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { json, type Run } from '../cli/cli.js'
import { originalWorld, type OriginalWorld } from './original.js'

// The original ignores every query filter and answers every record: the `mas` CLI checks each filter it
// sends on the records it gets back and prints (or acts on) only those that match.

let world: Promise<OriginalWorld> | undefined
const setup = () => (world ??= originalWorld())
test.after(async () => {
  if (world) (await world.catch(() => undefined))?.close()
})

const ok = (run: Run) => assert.is(run.code, 0, `exit ${run.code}: ${run.stderr}`)
const ids = (records: Array<{ id: number }>) => records.map((r) => r.id).sort((a, b) => a - b)

interface Media {
  id: number
  alias: string
  realStartTime: string | null
  library: number
}

test('media list --path, --from, --to print only the files that match, though the original ignored the filters', async () => {
  const w = await setup()
  const every = await w.alice.api.all<Media>('mediaFile/')
  assert.ok(every.length > 20, `${w.alice.username} needs the seeded media files`)
  const prefix = every[0].alias.slice(0, -5) // e.g. alice_0000 of alice_00001.wav: ten files
  const byPath = await w.mas(w.alice, ['media', 'list', '--path', prefix, '--json'])
  ok(byPath)
  const expected = every.filter((m) => m.alias.startsWith(prefix))
  assert.ok(expected.length < every.length)
  assert.equal(ids(json(byPath)), ids(expected))
  const times = every
    .map((m) => m.realStartTime)
    .filter((t): t is string => t !== null)
    .sort()
  const [from, to] = [times[3], times[7]]
  const byTime = await w.mas(w.alice, ['media', 'list', '--from', from, '--to', to, '--json'])
  ok(byTime)
  assert.equal(
    ids(json(byTime)),
    ids(every.filter((m) => m.realStartTime !== null && m.realStartTime >= from && m.realStartTime <= to)),
  )
  const inLibrary = await w.mas(w.alice, [
    'media',
    'list',
    '--library',
    String(every[0].library),
    '--path',
    prefix,
    '--json',
  ])
  ok(inLibrary)
  assert.equal(ids(json(inLibrary)), ids(expected.filter((m) => m.library === every[0].library)))
  const array = await w.alice.api.post('sensorArray/', { name: w.unique('array') })
  const sensor = await w.alice.api.post('sensor/', { sensorArray: array.id, name: w.unique('recorder') })
  const bySensor = await w.mas(w.alice, ['media', 'list', '--sensor', String(sensor.id), '--json'])
  ok(bySensor)
  assert.equal(
    ids(json(bySensor)),
    ids(every.filter((m) => (m as Media & { sensor: number | null }).sensor === sensor.id)),
  )
})

test('tagclass list and tagset list --library, and a tag class name used in two libraries, go by the library', async () => {
  const w = await setup()
  const made = async (args: string[]) => {
    const run = await w.mas(w.alice, [...args, '--json'])
    ok(run)
    return json(run).id as number
  }
  const [first, second] = [
    await made(['library', 'create', w.unique('one')]),
    await made(['library', 'create', w.unique('two')]),
  ]
  const name = w.unique('wren')
  const classes = [
    await made(['tagclass', 'create', name, '--library', String(first)]),
    await made(['tagclass', 'create', name, '--library', String(second)]),
  ]
  const sets = [
    await made(['tagset', 'create', w.unique('set'), '--library', String(first)]),
    await made(['tagset', 'create', w.unique('set'), '--library', String(second)]),
  ]
  const listed = await w.mas(w.alice, ['tagclass', 'list', '--library', String(second), '--json'])
  ok(listed)
  assert.equal(ids(json(listed)), [classes[1]])
  const setList = await w.mas(w.alice, ['tagset', 'list', '--library', String(first), '--json'])
  ok(setList)
  assert.equal(ids(json(setList)), [sets[0]])
  // the class is found by name in the tag set's library, not called ambiguous
  const media = (await w.alice.api.get<{ results: { id: number }[] }>('mediaFile/', { page_size: 1 })).results[0].id
  const tag = await w.mas(w.alice, [
    'tag',
    'create',
    '--tag-set',
    String(sets[1]),
    '--media-file',
    String(media),
    '--tag-class',
    name,
    '--start',
    '1',
    '--end',
    '2',
    '--json',
  ])
  ok(tag)
  assert.is(json(tag).tagClass, classes[1])
})

test('job list --project and --status show only those jobs', async () => {
  const w = await setup()
  const made = async (args: string[]) => {
    const run = await w.mas(w.alice, [...args, '--json'])
    ok(run)
    return json(run).id as number
  }
  const project = await made(['project', 'create', w.unique('p')])
  const job = await made(['job', 'create', '--project', String(project), '--type', 'Test'])
  const listed = await w.mas(w.alice, ['job', 'list', '--project', String(project), '--json'])
  ok(listed)
  assert.equal(ids(json(listed)), [job])
  const queued = await w.mas(w.alice, ['job', 'list', '--status', '6', '--json'])
  ok(queued)
  assert.ok(json(queued).every((j: { status: number }) => j.status === 6))
})

test('job watch after job stop on the original (nothing applies the stop): says so, and --timeout ends it', async () => {
  const w = await setup()
  const made = async (args: string[]) => {
    const run = await w.mas(w.alice, [...args, '--json'])
    ok(run)
    return json(run).id as number
  }
  const job = await made([
    'job',
    'create',
    '--project',
    String(await made(['project', 'create', w.unique('p')])),
    '--type',
    'Test',
  ])
  ok(await w.mas(w.alice, ['job', 'stop', String(job)]))
  const watch = await w.mas(w.alice, [
    'job',
    'watch',
    String(job),
    '--interval',
    '1',
    '--stale-after',
    '1',
    '--timeout',
    '3',
  ])
  assert.is(watch.code, 1, watch.stderr)
  // the original leaves a new job in status 1 (Unknown), whatever a client asks
  assert.match(watch.stderr, /nothing has changed for \d+ s \(\w+; a stop was asked and nothing has applied it\)/)
  assert.match(watch.stderr, /still \w+ after 3 s \(--timeout\)/)
  // an external worker ends it: the watch ends with it
  await w.alice.api.patch(`jobs/${job}/`, { status: 5, wasStopped: true })
  const ended = await w.mas(w.alice, ['job', 'watch', String(job), '--json'])
  assert.is(ended.code, 1)
  assert.is(json(ended).status, 5)
})

test('project add-media of a media file the caller cannot read names the media file, not the project', async () => {
  const w = await setup()
  const project = (await w.alice.api.post('project/', { name: w.unique('p') })).id
  const bobs =
    (await w.bob.api.get<{ results: { id: number }[] }>('mediaFile/', { page_size: 1 })).results[0]?.id ?? 999999999
  const run = await w.mas(w.alice, ['project', 'add-media', String(project), String(bobs)])
  assert.is(run.code, 1, run.stderr)
  assert.match(run.stderr, new RegExp(`^Error: media file ${bobs} not found\\n$`))
})

test.run()
