import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { AppConfig } from '../../server/config.js'
import { Worker } from '../../server/jobs/worker.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { waitForStatus } from '../helpers/jobs.js'
import { energyModel } from '../helpers/onnx.js'
import { makeLibrary, makeTagClass, makeTagSet } from '../helpers/records.js'
import { signal, storedWav, type Tone } from '../helpers/signals.js'
import { postMultipart } from '../helpers/upload.js'

// ModelInference runs an operator's ONNX model over a library's recordings. The model here scores each window of
// 0.5 s at 16 kHz by the energy of its first half ("first") and of its second half ("second"), so its detections
// are known: a tone over the first half of the window at 1 s, another over the second half of the window at 2 s.
// The recordings are at 22,050 and 44,100 Hz: resampled to the model's rate, they give the same tags.

const t = suiteApp(test)
let config: AppConfig
let alice: TestUser
let library: number
let model: { id: number; md5: string }
const files: number[] = []

// a 1 kHz tone of amplitude 0.5: a mean energy of 0.125 over the half window it fills
const tones: Tone[] = [
  { from: 1.02, to: 1.23, frequency: 1000 },
  { from: 2.27, to: 2.48, frequency: 1000 },
]

test.before(async () => {
  config = t.app.config
  const admin = await t.user('operator', { admin: true })
  alice = await t.user('alice')
  library = await makeLibrary(t.db, alice, 'season')
  const added = await postMultipart(t, '/api/v0/model/', admin, {
    name: 'energy',
    manifest: JSON.stringify({
      sampleRate: 16_000,
      windowSeconds: 0.5,
      input: { name: 'audio' },
      outputs: { scores: 'scores' },
      labels: ['first', 'second'],
      version: '3.1',
    }),
    file: { data: Buffer.from(energyModel(8000)), filename: 'energy.onnx' },
  })
  assert.is(added.statusCode, 201, added.body)
  model = added.data
  for (const rate of [22_050, 44_100])
    files.push(await storedWav(t.db, config, alice, library, signal(3.2, rate, tones, 0.001, 7), rate))
  const worker = new Worker({ db: t.db, config, pollMs: 20, threads: 1 }).start()
  t.beforeClose(() => worker.stop())
})

async function infer(parameters: Record<string, string>) {
  const tagSet = await makeTagSet(t.db, alice, library)
  const res = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: {
      name: 'birdnet run',
      type: 12,
      parameters: { model: 'energy', destinationTagSet: String(tagSet), library: String(library), ...parameters },
    },
  })
  assert.is(res.statusCode, 201, res.body)
  const job = await waitForStatus(t.db, res.data.id, [4, 5, 6], 120)
  const notes = (
    await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', res.data.id).execute()
  ).map((r) => r.notes)
  const tags = await t.db
    .selectFrom('tags as g')
    .innerJoin('tag_classes as c', 'c.id', 'g.tag_class_id')
    .select([
      'g.media_file_id',
      'g.start_time',
      'g.end_time',
      'g.strength',
      'g.machine_tagged',
      'g.max_frequency',
      'g.provenance',
      'c.class_name',
    ])
    .where('g.tag_set_id', '=', tagSet)
    .orderBy('g.media_file_id')
    .orderBy('g.start_time')
    .execute()
  return { id: res.data.id as number, status: job.status_id, notes, tags }
}

const summary = (tags: Array<{ media_file_id: number; start_time: number; end_time: number; class_name: string }>) =>
  tags.map((g) => [files.indexOf(g.media_file_id), g.start_time, g.end_time, g.class_name])

test("each window scoring at least minimumStrength is a machine tag of its label, at 22,050 and 44,100 Hz alike, with the model's provenance", async () => {
  const run = await infer({ minimumStrength: '0.05', createClasses: '1' })
  assert.is(run.status, 6, run.notes.join('\n'))
  assert.equal(summary(run.tags), [
    [0, 1, 1.5, 'first'],
    [0, 2, 2.5, 'second'],
    [1, 1, 1.5, 'first'],
    [1, 2, 2.5, 'second'],
  ])
  for (const g of run.tags) {
    assert.ok(g.machine_tagged)
    assert.ok(g.strength > 0.09 && g.strength < 0.125, `strength ${g.strength}`)
    assert.is(g.max_frequency, 8000)
    assert.equal(
      [
        g.provenance?.source,
        g.provenance?.version,
        g.provenance?.checksum,
        g.provenance?.job,
        g.provenance?.parameters?.model,
      ],
      ['model energy', '3.1', `md5:${model.md5}`, run.id, model.id],
    )
  }
  assert.match(run.notes[0], /^energy: 2 files, 4 tags written$/)
})

test('species keeps only the labels named; an overlapping hop scores more windows; a label the model lacks is an error', async () => {
  const only = await infer({ minimumStrength: '0.05', createClasses: '1', species: 'second' })
  assert.equal(summary(only.tags), [
    [0, 2, 2.5, 'second'],
    [1, 2, 2.5, 'second'],
  ])
  // windows every 0.25 s: the tone at 1.02-1.23 s fills the first half of [1, 1.5) and the second half of [0.75, 1.25)
  const hop = await infer({
    minimumStrength: '0.05',
    createClasses: '1',
    hopInSeconds: '0.25',
    mediaFileId: String(files[0]),
  })
  assert.equal(summary(hop.tags), [
    [0, 0.75, 1.25, 'second'],
    [0, 1, 1.5, 'first'],
    [0, 2, 2.5, 'second'],
    [0, 2.25, 2.75, 'first'],
  ])
  const unknown = await infer({ species: 'second;Turdus merula' })
  assert.is(unknown.status, 4)
  const reason = await t.db
    .selectFrom('job_result_files')
    .select('notes')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow()
  assert.match(reason.notes, /species names a label the model does not have: Turdus merula/)
})

test('without createClasses, labels the library has no class for are counted, not written; one it has (in another case) is used', async () => {
  const other = await makeLibrary(t.db, alice, 'no classes')
  const file = await storedWav(t.db, config, alice, other, signal(3.2, 22_050, tones, 0.001, 9), 22_050)
  const first = await makeTagClass(t.db, alice, other, 'FIRST')
  const tagSet = await makeTagSet(t.db, alice, other)
  const res = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: {
      name: 'run',
      type: 12,
      parameters: {
        model: String(model.id),
        destinationTagSet: String(tagSet),
        mediaFileId: String(file),
        minimumStrength: '0.05',
      },
    },
  })
  assert.is(res.statusCode, 201, res.body)
  assert.is((await waitForStatus(t.db, res.data.id, [4, 5, 6], 120)).status_id, 6)
  const tags = await t.db
    .selectFrom('tags')
    .select(['tag_class_id', 'start_time'])
    .where('tag_set_id', '=', tagSet)
    .execute()
  assert.equal(
    tags.map((g) => [g.tag_class_id, g.start_time]),
    [[first, 1]],
  )
  const note = (
    await t.db
      .selectFrom('job_result_files')
      .select('notes')
      .where('job_id', '=', res.data.id)
      .executeTakeFirstOrThrow()
  ).notes
  assert.match(
    note,
    /1 tag written; 1 detections of labels the library has no class for were not written \(createClasses=1 creates them\)/,
  )
})

test('species may name a text file of labels uploaded as a result file: its newest upload counts; a name with no such file is refused', async () => {
  const earlier = (await infer({ minimumStrength: '0.05', createClasses: '1', species: 'first' })).id
  const upload = (text: string) =>
    postMultipart(t, '/api/v0/jobResultFile/', alice, {
      job: String(earlier),
      resultFile: { data: Buffer.from(text), filename: 'ohio may.txt' },
    })
  // as BirdNET writes a species list: one label a line; a comment, a blank line and a CRLF line end read over
  assert.is((await upload('first\n')).statusCode, 201)
  assert.is((await upload('\uFEFF# corrected list\r\nsecond\r\n\r\n')).statusCode, 201)
  const run = await infer({ minimumStrength: '0.05', createClasses: '1', species: 'ohio may.txt' })
  assert.is(run.status, 6, run.notes.join('\n'))
  assert.equal(summary(run.tags), [
    [0, 2, 2.5, 'second'],
    [1, 2, 2.5, 'second'],
  ])

  // another user's file of the same name is not read: bob has none
  const bob = await t.user('bob-species')
  const bobs = await makeLibrary(t.db, bob, 'bob season')
  const bobSet = await makeTagSet(t.db, bob, bobs)
  const refused = await t.call('POST', '/api/v0/jobs/', {
    as: bob,
    body: {
      name: 'x',
      type: 12,
      parameters: {
        model: 'energy',
        destinationTagSet: String(bobSet),
        library: String(bobs),
        species: 'ohio may.txt',
      },
    },
  })
  assert.is(refused.statusCode, 400)
  assert.match(
    JSON.stringify(refused.data.parameters ?? refused.data),
    /No result file of yours named ohio may.txt: upload the list first with mas job result upload JOB ohio may.txt/,
  )
})

test('a model named that does not exist is refused when the job is created, naming the parameter', async () => {
  const tagSet = await makeTagSet(t.db, alice, library)
  const res = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: {
      name: 'x',
      type: 12,
      parameters: { model: 'BirdNET', destinationTagSet: String(tagSet), library: String(library) },
    },
  })
  assert.is(res.statusCode, 400)
  assert.match(JSON.stringify(res.data), /No model named \\"BirdNET\\": mas model list shows those there are/)
})

test.run()
