import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { indexFileName } from '../../server/analysis/similar/libraryIndex.js'
import { EMBEDDING_SIZE } from '../../server/analysis/embedding.js'
import { Worker } from '../../server/jobs/worker.js'
import { openStorage } from '../../server/storage/index.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { waitForStatus } from '../helpers/jobs.js'
import { makeLibrary, makeTag, makeTagClass, makeTagSet } from '../helpers/records.js'
import { signal, storedWav, wavOf, type Tone } from '../helpers/signals.js'
import { energyModel } from '../helpers/onnx.js'
import { postMultipart } from '../helpers/upload.js'

// EmbedAudio stores every window's built-in embedding of a library's recordings once, and builds the library's
// index; search by a call's tag then finds the same call elsewhere, in a recording of another sample rate, and
// a short uploaded recording of the call finds them too.

const t = suiteApp(test)
let alice: TestUser
let library: number

/** a rising whistle, 2.5 to 4.5 kHz in 0.4 s */
const chirp = (at: number): Tone => ({ from: at, to: at + 0.4, frequency: 2500, toFrequency: 4500, amplitude: 0.4 })
/** a low trill, another sound altogether */
const trill = (at: number): Tone => ({ from: at, to: at + 0.6, frequency: 900, trill: 30, amplitude: 0.4 })

let first: number, second: number

test.before(async () => {
  alice = await t.user('alice')
  library = await makeLibrary(t.db, alice, 'calls')
  first = await storedWav(
    t.db,
    t.app.config,
    alice,
    library,
    signal(10, 22_050, [chirp(1.3), trill(3.3), chirp(5.3), trill(7.3), chirp(8.3)], 0.02, 7),
    22_050,
  )
  second = await storedWav(
    t.db,
    t.app.config,
    alice,
    library,
    signal(10, 44_100, [trill(1.3), chirp(4.3), trill(6.3)], 0.02, 8),
    44_100,
  )
  const worker = new Worker({ db: t.db, config: t.app.config, pollMs: 20 }).start()
  t.beforeClose(() => worker.stop())
})

async function embed(): Promise<number> {
  const res = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: { name: 'embed', type: 14, parameters: { library: String(library) } },
  })
  assert.is(res.statusCode, 201, res.body)
  const job = await waitForStatus(t.db, res.data.id, [4, 5, 6], 120)
  assert.is(
    job.status_id,
    6,
    JSON.stringify(await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', job.id).execute()),
  )
  return job.id
}

/** the window holds a good part of the call (windows start on the file's frames, a little off the hop) */
const onCall = (starts: number[], w: { startTime: number; endTime: number }) =>
  starts.some((s) => Math.min(w.endTime, s + 0.4) - Math.max(w.startTime, s) >= 0.15)

test('every window embedded once as float16, the index stored; a second job skips what is stored', async () => {
  await embed()
  const rows = await t.db
    .selectFrom('window_embeddings')
    .selectAll()
    .where('library_id', '=', library)
    .orderBy('media_file_id')
    .execute()
  assert.equal(
    rows.map((r) => [r.media_file_id, r.kind, r.window_seconds, r.hop_seconds, r.dimensions]),
    [
      [first, 'builtin', 1, 0.5, EMBEDDING_SIZE],
      [second, 'builtin', 1, 0.5, EMBEDDING_SIZE],
    ],
  )
  for (const r of rows) {
    assert.ok(
      Math.abs(r.step_seconds - 0.5) < 0.01 && Math.abs(r.length_seconds - 1) < 0.02,
      `${r.step_seconds} ${r.length_seconds}`,
    )
    // windows start every hop while a whole window fits in the 10 s: 19 (18 when the rate's frames make the window a little longer)
    assert.ok(r.windows === 19 || r.windows === 18, String(r.windows))
    assert.is(r.vectors.length, r.windows * r.dimensions * 2)
  }
  assert.ok(await openStorage(t.app.config).stat(indexFileName(library, 'builtin')))
  const again = await embed()
  const notes = await t.db
    .selectFrom('job_result_files')
    .select('notes')
    .where('job_id', '=', again)
    .executeTakeFirstOrThrow()
  assert.match(notes.notes, /0 files embedded/)
  const after = await t.db
    .selectFrom('window_embeddings')
    .select(['id', 'creation_date'])
    .where('library_id', '=', library)
    .orderBy('id')
    .execute()
  assert.equal(
    after.map((r) => r.id),
    rows.map((r) => r.id),
  )
})

test("by a call's tag: its nearest windows lie on the same call elsewhere, at another sample rate too; an uploaded clip of it finds them", async () => {
  const tagSet = await makeTagSet(t.db, alice, library)
  const tagClass = await makeTagClass(t.db, alice, library)
  const tag = await makeTag(t.db, alice, { tagSet, mediaFile: first, tagClass }, { startTime: 1.0, endTime: 2.0 })
  const res = await t.call('GET', `/api/v0/tag/${tag}/similar/?k=3`, { as: alice })
  assert.is(res.statusCode, 200, res.body)
  const calls = new Map([
    [first, [5.3, 8.3]],
    [second, [4.3]],
  ])
  for (const w of res.data.results) assert.ok(onCall(calls.get(w.mediaFile)!, w), JSON.stringify(res.data.results))
  assert.ok(
    res.data.results.some((w: { mediaFile: number }) => w.mediaFile === second),
    JSON.stringify(res.data.results),
  )
  // a second of recording holding the call, uploaded
  const clip = wavOf(signal(1, 32_000, [chirp(0.3)], 0.02, 9), 32_000)
  const byClip = await postMultipart(t, `/api/v0/library/${library}/similar/`, alice, {
    k: '3',
    file: { data: clip, filename: 'call.wav', contentType: 'audio/wav' },
  })
  assert.is(byClip.statusCode, 200, byClip.body)
  const found = JSON.parse(byClip.body).results
  calls.set(first, [1.3, 5.3, 8.3])
  assert.is(found.length, 3)
  for (const w of found) assert.ok(onCall(calls.get(w.mediaFile)!, w), JSON.stringify(found))
})

test("with a model: its embedding output stored under its own kind, searched by the model's name apart from the built-in kind", async () => {
  const admin = await t.user('operator', { admin: true })
  const added = await postMultipart(t, '/api/v0/model/', admin, {
    name: 'quarters',
    manifest: JSON.stringify({
      sampleRate: 16_000,
      windowSeconds: 0.5,
      input: { name: 'audio' },
      outputs: { scores: 'scores', embedding: 'embedding' },
      labels: ['first', 'second'],
      version: '1',
    }),
    file: { data: Buffer.from(energyModel(8000, { embedding: true })), filename: 'quarters.onnx' },
  })
  assert.is(added.statusCode, 201, added.body)
  const season = await makeLibrary(t.db, alice, 'model season')
  // a tone over the first quarter of the window at 1 s, in recordings at two rates
  const tones: Tone[] = [{ from: 1.0, to: 1.12, frequency: 1000 }]
  const files = [
    await storedWav(t.db, t.app.config, alice, season, signal(3.2, 22_050, tones, 0.001, 3), 22_050),
    await storedWav(t.db, t.app.config, alice, season, signal(3.2, 44_100, tones, 0.001, 4), 44_100),
  ]
  const res = await t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: { name: 'embed', type: 14, parameters: { library: String(season), model: 'quarters' } },
  })
  assert.is(res.statusCode, 201, res.body)
  const job = await waitForStatus(t.db, res.data.id, [4, 5, 6], 120)
  assert.is(
    job.status_id,
    6,
    JSON.stringify(await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', job.id).execute()),
  )
  const rows = await t.db
    .selectFrom('window_embeddings')
    .select(['kind', 'dimensions', 'windows', 'step_seconds'])
    .where('library_id', '=', season)
    .execute()
  assert.equal(
    rows,
    [0, 1].map(() => ({ kind: `model-${added.data.id}`, dimensions: 4, windows: 6, step_seconds: 0.5 })),
  )
  // the note names the model as the caller gave it, not its stored kind
  const note = (
    await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', job.id).executeTakeFirstOrThrow()
  ).notes
  assert.match(note, new RegExp(`^model ${added.data.id} \\(quarters\\): 2 files embedded`))
  const found = await t.call('POST', `/api/v0/library/${season}/similar/`, {
    as: alice,
    body: { mediaFile: files[0], startTime: 1, endTime: 1.5, k: 1, kind: 'quarters' },
  })
  assert.is(found.statusCode, 200, found.body)
  assert.equal(
    found.data.results.map((r: { mediaFile: number; startTime: number }) => [r.mediaFile, r.startTime]),
    [[files[1], 1]],
  )
  // the built-in kind holds nothing of this library
  const builtin = await t.call('POST', `/api/v0/library/${season}/similar/`, {
    as: alice,
    body: { mediaFile: files[0], startTime: 1, endTime: 1.5 },
  })
  assert.is(builtin.statusCode, 400)
  assert.match(JSON.stringify(builtin.data), /no stored embeddings of kind builtin/)
})

test("ModelInference with keepEmbeddings stores the windows' embeddings of its one pass, searchable, and EmbedAudio with the model then skips them", async () => {
  const admin = await t.user('keeper', { admin: true })
  const manifest = {
    sampleRate: 16_000,
    windowSeconds: 0.5,
    input: { name: 'audio' },
    outputs: { scores: 'scores', embedding: 'embedding' },
    labels: ['first', 'second'],
    version: '1',
  }
  const added = await postMultipart(t, '/api/v0/model/', admin, {
    name: 'kept quarters',
    manifest: JSON.stringify(manifest),
    file: { data: Buffer.from(energyModel(8000, { embedding: true })), filename: 'kept.onnx' },
  })
  assert.is(added.statusCode, 201, added.body)
  const season = await makeLibrary(t.db, alice, 'kept season')
  const tones: Tone[] = [{ from: 1.0, to: 1.12, frequency: 1000 }]
  const files = [
    await storedWav(t.db, t.app.config, alice, season, signal(3.2, 22_050, tones, 0.001, 5), 22_050),
    await storedWav(t.db, t.app.config, alice, season, signal(3.2, 44_100, tones, 0.001, 6), 44_100),
  ]
  const detections = await makeTagSet(t.db, alice, season, 'kept detections')
  const run = async (type: number, parameters: Record<string, string>) => {
    const res = await t.call('POST', '/api/v0/jobs/', { as: alice, body: { name: 'kept', type, parameters } })
    assert.is(res.statusCode, 201, res.body)
    return waitForStatus(t.db, res.data.id, [4, 5, 6], 120)
  }
  const inference = await run(12, {
    model: 'kept quarters',
    destinationTagSet: String(detections),
    library: String(season),
    keepEmbeddings: '1',
    createClasses: '1',
  })
  assert.is(
    inference.status_id,
    6,
    JSON.stringify(
      await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', inference.id).execute(),
    ),
  )
  const rows = await t.db
    .selectFrom('window_embeddings')
    .select(['media_file_id', 'kind', 'dimensions', 'windows', 'step_seconds'])
    .where('library_id', '=', season)
    .orderBy('media_file_id')
    .execute()
  assert.equal(
    rows,
    files.map((f) => ({
      media_file_id: f,
      kind: `model-${added.data.id}`,
      dimensions: 4,
      windows: 6,
      step_seconds: 0.5,
    })),
  )
  // searchable by the model's name, with its index brought up to date by the inference job
  const found = await t.call('POST', `/api/v0/library/${season}/similar/`, {
    as: alice,
    body: { mediaFile: files[0], startTime: 1, endTime: 1.5, k: 1, kind: 'kept quarters' },
  })
  assert.is(found.statusCode, 200, found.body)
  assert.equal(
    found.data.results.map((r: { mediaFile: number; startTime: number }) => [r.mediaFile, r.startTime]),
    [[files[1], 1]],
  )
  // EmbedAudio with the same model and hop finds them stored
  const embed = await run(14, { library: String(season), model: 'kept quarters' })
  assert.is(embed.status_id, 6)
  const note = (
    await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', embed.id).executeTakeFirstOrThrow()
  ).notes
  assert.match(note, /: 0 files embedded \(0 windows\), 2 skipped or stored already$/)
  // a model without an embedding output cannot keep one: the job says so
  const scoresOnly = await postMultipart(t, '/api/v0/model/', admin, {
    name: 'scores only',
    manifest: JSON.stringify({ ...manifest, outputs: { scores: 'scores' } }),
    file: { data: Buffer.from(energyModel(8000)), filename: 'scores.onnx' },
  })
  assert.is(scoresOnly.statusCode, 201, scoresOnly.body)
  const refused = await run(12, {
    model: 'scores only',
    destinationTagSet: String(detections),
    library: String(season),
    keepEmbeddings: '1',
  })
  assert.is(refused.status_id, 4)
  assert.match(
    JSON.stringify(
      await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', refused.id).execute(),
    ) + JSON.stringify(refused),
    /scores only has no embedding output to keep/,
  )
})

test.run()
