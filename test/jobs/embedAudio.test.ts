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
  first = await storedWav(t.db, t.app.config, alice, library, signal(10, 22_050, [chirp(1.3), trill(3.3), chirp(5.3), trill(7.3), chirp(8.3)], 0.02, 7), 22_050)
  second = await storedWav(t.db, t.app.config, alice, library, signal(10, 44_100, [trill(1.3), chirp(4.3), trill(6.3)], 0.02, 8), 44_100)
  const worker = new Worker({ db: t.db, config: t.app.config, pollMs: 20 }).start()
  t.beforeClose(() => worker.stop())
})

async function embed(): Promise<number> {
  const res = await t.call('POST', '/api/v0/jobs/', { as: alice, body: { name: 'embed', type: 14, parameters: { library: String(library) } } })
  assert.is(res.statusCode, 201, res.body)
  const job = await waitForStatus(t.db, res.data.id, [4, 5, 6], 120)
  assert.is(job.status_id, 6, JSON.stringify(await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', job.id).execute()))
  return job.id
}

/** the window holds a good part of the call (windows start on the file's frames, a little off the hop) */
const onCall = (starts: number[], w: { startTime: number; endTime: number }) =>
  starts.some((s) => Math.min(w.endTime, s + 0.4) - Math.max(w.startTime, s) >= 0.15)

test('every window embedded once as float16, the index stored; a second job skips what is stored', async () => {
  await embed()
  const rows = await t.db.selectFrom('window_embeddings').selectAll().where('library_id', '=', library).orderBy('media_file_id').execute()
  assert.equal(rows.map((r) => [r.media_file_id, r.kind, r.window_seconds, r.hop_seconds, r.dimensions]),
    [[first, 'builtin', 1, 0.5, EMBEDDING_SIZE], [second, 'builtin', 1, 0.5, EMBEDDING_SIZE]])
  for (const r of rows) {
    assert.ok(Math.abs(r.step_seconds - 0.5) < 0.01 && Math.abs(r.length_seconds - 1) < 0.02, `${r.step_seconds} ${r.length_seconds}`)
    // windows start every hop while a whole window fits in the 10 s: 19 (18 when the rate's frames make the window a little longer)
    assert.ok(r.windows === 19 || r.windows === 18, String(r.windows))
    assert.is(r.vectors.length, r.windows * r.dimensions * 2)
  }
  assert.ok(await openStorage(t.app.config).stat(indexFileName(library, 'builtin')))
  const again = await embed()
  const notes = await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', again).executeTakeFirstOrThrow()
  assert.match(notes.notes, /0 files embedded/)
  const after = await t.db.selectFrom('window_embeddings').select(['id', 'creation_date']).where('library_id', '=', library).orderBy('id').execute()
  assert.equal(after.map((r) => r.id), rows.map((r) => r.id))
})

test('by a call\'s tag: its nearest windows lie on the same call elsewhere, at another sample rate too; an uploaded clip of it finds them', async () => {
  const tagSet = await makeTagSet(t.db, alice, library)
  const tagClass = await makeTagClass(t.db, alice, library)
  const tag = await makeTag(t.db, alice, { tagSet, mediaFile: first, tagClass }, { startTime: 1.0, endTime: 2.0 })
  const res = await t.call('GET', `/api/v0/tag/${tag}/similar/?k=3`, { as: alice })
  assert.is(res.statusCode, 200, res.body)
  const calls = new Map([[first, [5.3, 8.3]], [second, [4.3]]])
  for (const w of res.data.results) assert.ok(onCall(calls.get(w.mediaFile)!, w), JSON.stringify(res.data.results))
  assert.ok(res.data.results.some((w: { mediaFile: number }) => w.mediaFile === second), JSON.stringify(res.data.results))
  // a second of recording holding the call, uploaded
  const clip = wavOf(signal(1, 32_000, [chirp(0.3)], 0.02, 9), 32_000)
  const boundary = 'similar-boundary'
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="k"\r\n\r\n3\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="call.wav"\r\nContent-Type: audio/wav\r\n\r\n`),
    clip, Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  const byClip = await t.app.inject({ method: 'POST', url: `/api/v0/library/${library}/similar/`, payload, headers: { ...alice.auth, 'content-type': `multipart/form-data; boundary=${boundary}` } })
  assert.is(byClip.statusCode, 200, byClip.body)
  const found = JSON.parse(byClip.body).results
  calls.set(first, [1.3, 5.3, 8.3])
  assert.is(found.length, 3)
  for (const w of found) assert.ok(onCall(calls.get(w.mediaFile)!, w), JSON.stringify(found))
})

test.run()
