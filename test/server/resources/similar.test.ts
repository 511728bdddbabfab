import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  indexFileName,
  manifestFileName,
  OpenIndexes,
  refreshIndex,
} from '../../../server/analysis/similar/libraryIndex.js'
import { listCountFor } from '../../../server/analysis/similar/invertedFileBuild.js'
import { BUILTIN_KIND, modelKind, storeEmbeddings } from '../../../server/analysis/similar/store.js'
import { Worker } from '../../../server/jobs/worker.js'
import { localTimestamp } from '../../../server/db/time.js'
import { seededRandom } from '../../../server/analysis/random.js'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { CountingStorage } from '../../helpers/countingStorage.js'
import { waitForStatus } from '../../helpers/jobs.js'
import { makeLibrary, makeMediaFile, makeTag, makeTagClass, makeTagSet } from '../../helpers/records.js'
import { makeRoleWorld, type RoleCallers } from '../../helpers/world.js'

// Search by example over stored embeddings made with a known structure: three clusters (A, B, C) along three axes
// of 16 dimensions, each window its cluster's axis plus t along a random direction of the others, so its cosine distance to the axis
// grows with t and the nearest windows, and their order, are known.

const API = '/api/v0'
let counting: CountingStorage | undefined
const t = suiteApp(test, {}, { storage: (configured) => (counting = new CountingStorage(configured)) })
const D = 16
const STEP = 0.5,
  LENGTH = 1,
  WINDOWS = 20

type Cluster = 'A' | 'B' | 'C'
const AXIS: Record<Cluster, number> = { A: 0, B: 1, C: 2 }
const random = seededRandom(45)
/** the cluster's axis plus t along a random direction of the other axes */
const windowVector = (cluster: Cluster, t: number, d = D) => {
  const v = new Float32Array(d)
  let norm = 0
  for (let j = 3; j < d; j++) {
    v[j] = random() - 0.5
    norm += v[j] * v[j]
  }
  for (let j = 3; j < d; j++) v[j] *= t / Math.sqrt(norm)
  v[AXIS[cluster]] = 1
  return v
}

let c: RoleCallers
let lib: number
let f1: number, f2: number, f3: number
let other: number, otherFile: number
/** cluster and t of each window of each file */
const layout = new Map<number, Array<{ cluster: Cluster; t: number }>>()

async function store(
  mediaFile: number,
  library: number,
  windows: Array<{ cluster: Cluster; t: number }>,
  kind = BUILTIN_KIND,
  d = D,
) {
  const vectors = new Float32Array(windows.length * d)
  windows.forEach((w, i) => vectors.set(windowVector(w.cluster, w.t, d), i * d))
  await storeEmbeddings(t.db, {
    mediaFile,
    library,
    kind,
    windowSeconds: LENGTH,
    hopSeconds: STEP,
    lengthSeconds: LENGTH,
    stepSeconds: STEP,
    duration: (windows.length - 1) * STEP + LENGTH,
    dimensions: d,
    vectors,
  })
}

const windowsOf = (spec: Array<[from: number, to: number, cluster: Cluster, t: (i: number) => number]>) => {
  const out: Array<{ cluster: Cluster; t: number }> = []
  for (const [from, to, cluster, tOf] of spec) for (let i = from; i <= to; i++) out[i] = { cluster, t: tOf(i) }
  return out
}
const small = (i: number) => 0.05 + 0.01 * i

test.before(async () => {
  let first: number
  ;({ callers: c, library: lib, mediaFile: first } = await makeRoleWorld(t, 'sim'))
  f1 = first
  f2 = await makeMediaFile(t.db, c.owner, lib, { alias: 'site-2.wav' })
  f3 = await makeMediaFile(t.db, c.owner, lib, { alias: 'site-3.wav' })
  layout.set(
    f1,
    windowsOf([
      [0, 5, 'A', () => 0],
      [6, 19, 'C', small],
    ]),
  )
  layout.set(
    f2,
    windowsOf([
      [0, 9, 'B', small],
      [10, 14, 'A', (i) => 0.1 + 0.2 * (i - 10)],
      [15, 19, 'C', small],
    ]),
  )
  layout.set(
    f3,
    windowsOf([
      [0, 1, 'C', small],
      [2, 6, 'A', (i) => 0.2 + 0.2 * (i - 2)],
      [7, 19, 'B', small],
    ]),
  )
  for (const [file, windows] of layout) await store(file, lib, windows)
  // another library, not granted: its windows lie exactly on A's axis, nearer than any of lib's
  other = await makeLibrary(t.db, c.stranger)
  otherFile = await makeMediaFile(t.db, c.stranger, other)
  await store(otherFile, other, windowsOf([[0, WINDOWS - 1, 'A', () => 0]]))
})

/** lib's A windows outside f1's first three seconds, nearest first: f2's and f3's alternate by t */
const expectedA = () =>
  [
    [f2, 10],
    [f3, 2],
    [f2, 11],
    [f3, 3],
    [f2, 12],
    [f3, 4],
    [f2, 13],
    [f3, 5],
    [f2, 14],
    [f3, 6],
  ].map(([file, i]) => ({ mediaFile: file, startTime: i * STEP, endTime: i * STEP + LENGTH }))

const places = (results: Array<{ mediaFile: number; startTime: number; endTime: number }>) =>
  results.map((r) => ({ mediaFile: r.mediaFile, startTime: r.startTime, endTime: r.endTime }))

async function similarToTag(tag: number, query: string, as: TestUser = c.owner) {
  const res = await t.call('GET', `${API}/tag/${tag}/similar/?${query}`, { as })
  assert.is(res.statusCode, 200, res.body)
  return res.data
}

test('by a tag: the nearest windows of its library, nearest first, in the list envelope', async () => {
  const tagSet = await makeTagSet(t.db, c.owner, lib)
  const tagClass = await makeTagClass(t.db, c.owner, lib)
  const tag = await makeTag(t.db, c.owner, { tagSet, mediaFile: f1, tagClass }, { startTime: 0, endTime: 3 })
  const found = await similarToTag(tag, 'k=10')
  assert.equal(Object.keys(found).sort(), ['count', 'next', 'previous', 'results'])
  assert.is(found.count, 10)
  assert.equal(places(found.results), expectedA())
  const distances = found.results.map((r: { distance: number }) => r.distance)
  assert.equal(
    distances,
    [...distances].sort((a, b) => a - b),
  )
  // the first is f2's window at t = 0.1: 1 − 1/√1.01
  assert.ok(Math.abs(distances[0] - (1 - 1 / Math.sqrt(1.01))) < 1e-3, String(distances[0]))
  // a reader of the library sees the same; the stranger's library's windows, nearer still, never appear
  const read = await similarToTag(tag, 'k=100', c.reader)
  assert.ok(read.results.every((r: { mediaFile: number }) => [f1, f2, f3].includes(r.mediaFile)))
  assert.is(read.count, 3 * WINDOWS - 6)
})

test("by a stretch of a stored file and exactly: the same answer; the index's candidates re-ranked put the exact nearest first", async () => {
  const body = { mediaFile: f1, startTime: 0, endTime: 3, k: 10 }
  const res = await t.call('POST', `${API}/library/${lib}/similar/`, { as: c.owner, body })
  assert.is(res.statusCode, 200, res.body)
  assert.equal(places(res.data.results), expectedA())
  const exact = await t.call('POST', `${API}/library/${lib}/similar/`, { as: c.owner, body: { ...body, exact: true } })
  assert.is(exact.statusCode, 200, exact.body)
  assert.equal(places(exact.data.results), expectedA())
  res.data.results.forEach((r: { distance: number }, i: number) =>
    assert.ok(Math.abs(r.distance - exact.data.results[i].distance) < 1e-6),
  )
  // over every window, approximate and exact agree on the order
  const all = await t.call('POST', `${API}/library/${lib}/similar/`, { as: c.owner, body: { ...body, k: 54 } })
  const allExact = await t.call('POST', `${API}/library/${lib}/similar/`, {
    as: c.owner,
    body: { ...body, k: 54, exact: true },
  })
  assert.equal(
    all.data.results.map((r: { distance: number }) => r.distance.toFixed(5)),
    allExact.data.results.map((r: { distance: number }) => r.distance.toFixed(5)),
  )
})

test("exclude=tagged leaves out windows already tagged in the tag's tag set", async () => {
  const tagSet = await makeTagSet(t.db, c.owner, lib)
  const tagClass = await makeTagClass(t.db, c.owner, lib)
  const tag = await makeTag(t.db, c.owner, { tagSet, mediaFile: f1, tagClass }, { startTime: 0, endTime: 3 })
  await makeTag(t.db, c.owner, { tagSet, mediaFile: f2, tagClass }, { startTime: 5, endTime: 6 })
  const found = await similarToTag(tag, 'k=3&exclude=tagged')
  // f2's windows at 5 and 5.5 hold half or more of the tag (and the one at 4.5 is of cluster B)
  assert.equal(
    places(found.results),
    expectedA()
      .filter((w) => !(w.mediaFile === f2 && w.startTime <= 5.5))
      .slice(0, 3),
  )
})

test('a caller who may not read the library gets 404, and bad input 400', async () => {
  const tagSet = await makeTagSet(t.db, c.owner, lib)
  const tagClass = await makeTagClass(t.db, c.owner, lib)
  const tag = await makeTag(t.db, c.owner, { tagSet, mediaFile: f1, tagClass }, { startTime: 0, endTime: 3 })
  assert.is((await t.call('GET', `${API}/tag/${tag}/similar/`, { as: c.stranger })).statusCode, 404)
  assert.is(
    (
      await t.call('POST', `${API}/library/${lib}/similar/`, {
        as: c.stranger,
        body: { mediaFile: f1, startTime: 0, endTime: 3 },
      })
    ).statusCode,
    404,
  )
  assert.is((await t.call('GET', `${API}/tag/${tag}/similar/`)).statusCode, 401)
  // the stranger's own library answers from its own windows only
  const own = await t.call('POST', `${API}/library/${other}/similar/`, {
    as: c.stranger,
    body: { mediaFile: otherFile, startTime: 0, endTime: 2, k: 100 },
  })
  assert.is(own.statusCode, 200, own.body)
  assert.ok(own.data.results.every((r: { mediaFile: number }) => r.mediaFile === otherFile))
  // a media file of another library, a bad k, an unknown kind
  const wrong = await t.call('POST', `${API}/library/${lib}/similar/`, {
    as: c.owner,
    body: { mediaFile: otherFile, startTime: 0, endTime: 2 },
  })
  assert.is(wrong.statusCode, 400)
  assert.ok(wrong.data.mediaFile, wrong.body)
  assert.is((await t.call('GET', `${API}/tag/${tag}/similar/?k=0`, { as: c.owner })).statusCode, 400)
  const kind = await t.call('GET', `${API}/tag/${tag}/similar/?kind=no-such-model`, { as: c.owner })
  assert.is(kind.statusCode, 400)
  assert.ok(kind.data.kind, kind.body)
})

test('refusals name the library and the media file as people know them, and give seconds to the millisecond', async () => {
  const { name } = await t.db.selectFrom('libraries').select('name').where('id', '=', lib).executeTakeFirstOrThrow()
  const wrong = await t.call('POST', `${API}/library/${lib}/similar/`, {
    as: c.owner,
    body: { mediaFile: otherFile, startTime: 0, endTime: 2 },
  })
  assert.equal(
    [wrong.statusCode, wrong.data],
    [400, { mediaFile: [`Media file ${otherFile} is not in library ${lib} (${name}).`] }],
  )
  const beyond = await t.call('POST', `${API}/library/${lib}/similar/`, {
    as: c.owner,
    body: { mediaFile: f2, startTime: 100.123456, endTime: 200.98765 },
  })
  assert.equal(
    [beyond.statusCode, beyond.data],
    [400, { startTime: [`No stored window of media file ${f2} (site-2.wav) overlaps 100.123-200.988 s.`] }],
  )
})

test("two kinds do not mix: a model's embeddings are searched apart from the built-in ones", async () => {
  const model = await t.db
    .insertInto('models')
    .values({
      name: 'sim-model',
      file: 'models/none.onnx',
      md5: '0'.repeat(32),
      size: 1,
      manifest: JSON.stringify({}),
      user_id: c.owner.id,
      creation_date: localTimestamp(),
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  // in the model's kind, f3's windows are all B but for window 9, the only one near f2's query stretch (its A windows)
  await store(f2, lib, windowsOf([[0, WINDOWS - 1, 'A', () => 0]]), modelKind(model.id), 8)
  await store(
    f3,
    lib,
    windowsOf([
      [0, 8, 'B', small],
      [9, 9, 'A', () => 0.3],
      [10, 19, 'B', small],
    ]),
    modelKind(model.id),
    8,
  )
  const res = await t.call('POST', `${API}/library/${lib}/similar/`, {
    as: c.owner,
    body: { mediaFile: f2, startTime: 0, endTime: 10.5, k: 2, kind: 'sim-model' },
  })
  assert.is(res.statusCode, 200, res.body)
  assert.equal(places(res.data.results)[0], { mediaFile: f3, startTime: 4.5, endTime: 5.5 })
  assert.ok(res.data.results[1].distance > 0.5, JSON.stringify(res.data.results))
  // a file without the model's embeddings: the refusal names the model as the caller gave it
  const none = await t.call('POST', `${API}/library/${lib}/similar/`, {
    as: c.owner,
    body: { mediaFile: f1, startTime: 0, endTime: 3, kind: 'sim-model' },
  })
  assert.equal(
    [none.statusCode, none.data],
    [
      400,
      {
        mediaFile: [
          `media file ${f1} (${(await t.db.selectFrom('media_files').select('alias').where('id', '=', f1).executeTakeFirstOrThrow()).alias}) has no stored embeddings of kind model ${model.id} (sim-model): run an EmbedAudio job over it first.`,
        ],
      },
    ],
  )
  // the built-in kind is as before
  const builtin = await t.call('POST', `${API}/library/${lib}/similar/`, {
    as: c.owner,
    body: { mediaFile: f1, startTime: 0, endTime: 3, k: 10, kind: 'builtin' },
  })
  assert.equal(places(builtin.data.results), expectedA())
})

test('asked for every window, the answer holds every window, even among identical ones', async () => {
  // 1,000 windows in three groups of identical vectors (silence embeds so): a graph index's pruning leaves some
  // without an edge to them, and k-means makes lists of them that no centre ranks first
  const crowded = await makeLibrary(t.db, c.owner)
  const clusters: Cluster[] = ['A', 'B', 'C']
  let first = 0
  for (let f = 0; f < 50; f++) {
    const file = await makeMediaFile(t.db, c.owner, crowded, { alias: `crowd-${f}.wav` })
    if (f === 0) first = file
    await store(
      file,
      crowded,
      Array.from({ length: WINDOWS }, (_, i) => ({ cluster: clusters[(f * WINDOWS + i) % 3], t: 0 })),
    )
  }
  const res = await t.call('POST', `${API}/library/${crowded}/similar/`, {
    as: c.owner,
    body: { mediaFile: first, startTime: 0, endTime: 0.5, k: 1000 },
  })
  assert.is(res.statusCode, 200, res.body)
  // every window but the query's own (the first of its file; the second begins where the stretch ends)
  assert.is(res.data.count, 50 * WINDOWS - 1)
  const distances = res.data.results.map((r: { distance: number }) => r.distance)
  assert.equal(
    distances,
    [...distances].sort((a, b) => a - b),
  )
  assert.ok(distances[0] < 1e-6, String(distances[0]))
})

test('an index replaced while a caller searches it still answers that caller; its file is closed when released', async () => {
  const storage = counting!
  const indexes = new OpenIndexes()
  const own = await makeLibrary(t.db, c.owner)
  const first = await makeMediaFile(t.db, c.owner, own, { alias: 'held-1.wav' })
  await store(first, own, windowsOf([[0, WINDOWS - 1, 'A', small]]))
  const held = (await indexes.get(t.db, storage, own, BUILTIN_KIND))!
  const query = windowVector('A', 0)
  assert.is((await held.search(query, 5)).length, 5)
  // another file embedded: the next caller gets an index holding it, and the first one is closed
  const second = await makeMediaFile(t.db, c.owner, own, { alias: 'held-2.wav' })
  await store(second, own, windowsOf([[0, WINDOWS - 1, 'B', small]]))
  const next = (await indexes.get(t.db, storage, own, BUILTIN_KIND))!
  assert.is.not(next, held)
  assert.is(next.size, 2 * WINDOWS)
  assert.is((await held.search(query, WINDOWS + 5)).length, WINDOWS, 'the first caller still searches what it held')
  await held.release()
  const closed = await held.search(query, 5).then(
    () => 'answered',
    (e: Error) => e.message,
  )
  assert.is.not(closed, 'answered', 'released by its last caller, the replaced index is closed')
  // extended, its centres kept, until it holds twice the windows they were learnt for; then built anew
  assert.is(next.manifest.trainedFor, WINDOWS)
  await next.release()
  const third = await makeMediaFile(t.db, c.owner, own, { alias: 'held-3.wav' })
  await store(third, own, windowsOf([[0, WINDOWS - 1, 'C', small]]))
  const rebuilt = (await indexes.get(t.db, storage, own, BUILTIN_KIND))!
  assert.is(rebuilt.size, 3 * WINDOWS)
  assert.is(rebuilt.manifest.trainedFor, 3 * WINDOWS)
  assert.is(rebuilt.manifest.lists, listCountFor(3 * WINDOWS))
  await rebuilt.release()
  await indexes.closeAll()
})

test('an index deleted, or of another version, is rebuilt from the stored embeddings', async () => {
  const storage = counting!
  await refreshIndex(t.db, storage, lib, BUILTIN_KIND)
  assert.ok(await storage.stat(indexFileName(lib, BUILTIN_KIND)))
  await storage.remove(indexFileName(lib, BUILTIN_KIND))
  // a new file is embedded: its windows are found, with every other
  const f4 = await makeMediaFile(t.db, c.owner, lib, { alias: 'site-4.wav' })
  await store(f4, lib, windowsOf([[0, WINDOWS - 1, 'A', () => 0.01]]))
  const body = { mediaFile: f1, startTime: 0, endTime: 3, k: 100 }
  const res = await t.call('POST', `${API}/library/${lib}/similar/`, { as: c.owner, body })
  assert.is(res.statusCode, 200, res.body)
  assert.ok(res.data.results.slice(0, WINDOWS).every((r: { mediaFile: number }) => r.mediaFile === f4))
  assert.ok(res.data.results.some((r: { mediaFile: number }) => r.mediaFile === f3))
  assert.ok(await storage.stat(indexFileName(lib, BUILTIN_KIND)), 'the index is stored again')
  // a manifest of another version: rebuilt when next needed
  const manifestName = manifestFileName(lib, BUILTIN_KIND)
  const pending = await storage.receive([
    Buffer.from(JSON.stringify({ version: 0, kind: BUILTIN_KIND, rows: [] })),
  ] as unknown as AsyncIterable<Buffer>)
  await pending.commit(manifestName)
  await refreshIndex(t.db, storage, lib, BUILTIN_KIND)
  const chunks: Buffer[] = []
  for await (const chunk of storage.read(manifestName)) chunks.push(chunk as Buffer)
  const manifest = JSON.parse(Buffer.concat(chunks).toString())
  assert.is(manifest.version, 2)
  assert.is(manifest.rows.length, 4)
  await t.db.deleteFrom('media_files').where('id', '=', f4).execute()
  // a deleted file's windows, still in the index, are never answered
  const after = await t.call('POST', `${API}/library/${lib}/similar/`, { as: c.owner, body: { ...body, k: 10 } })
  assert.equal(places(after.data.results), expectedA())
})

test('train: a classifier from decisions on stored embeddings tags the windows of the positive cluster, without reading audio', async () => {
  const source = await makeTagSet(t.db, c.owner, lib, 'sim-decided')
  const destination = await makeTagSet(t.db, c.owner, lib, 'sim-found')
  const call = await makeTagClass(t.db, c.owner, lib, 'sim-call')
  const yes = await makeTag(
    t.db,
    c.owner,
    { tagSet: source, mediaFile: f2, tagClass: call },
    { startTime: 5.1, endTime: 7.9 },
  )
  const no = await makeTag(
    t.db,
    c.owner,
    { tagSet: source, mediaFile: f2, tagClass: call },
    { startTime: 1.1, endTime: 3.9 },
  )
  for (const [tag, decision] of [
    [yes, 'yes'],
    [no, 'no'],
  ] as const) {
    const r = await t.call('POST', `${API}/tagReview/`, { as: c.owner, body: { tag, decision } })
    assert.is(r.statusCode, 201, r.body)
  }
  assert.is(
    (
      await t.call('POST', `${API}/tagSet/${source}/train/`, {
        as: c.stranger,
        body: { destinationTagSet: destination },
      })
    ).statusCode,
    404,
  )
  assert.is((await t.call('POST', `${API}/tagSet/${source}/train/`, { as: c.owner, body: {} })).statusCode, 400)
  const res = await t.call('POST', `${API}/tagSet/${source}/train/`, {
    as: c.owner,
    body: { destinationTagSet: destination },
  })
  assert.is(res.statusCode, 202, res.body)
  assert.is(res.data.type, 15)
  assert.is(res.data.name, `train from tag set ${source} (sim-decided)`)
  // a tag set nobody decided on: the job's error names it
  const undecided = await makeTagSet(t.db, c.owner, lib, 'sim-undecided')
  const idle = await t.call('POST', `${API}/tagSet/${undecided}/train/`, {
    as: c.owner,
    body: { destinationTagSet: destination },
  })
  assert.is(idle.statusCode, 202, idle.body)
  counting!.reset()
  const worker = new Worker({ db: t.db, config: t.app.config, storage: counting, pollMs: 20 }).start()
  try {
    const job = await waitForStatus(t.db, res.data.id, [4, 5, 6], 60)
    assert.is(
      job.status_id,
      6,
      JSON.stringify(await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', job.id).execute()),
    )
    assert.is((await waitForStatus(t.db, idle.data.id, [4, 5, 6], 60)).status_id, 4)
    const error = await t.db
      .selectFrom('job_result_files')
      .select('notes')
      .where('job_id', '=', idle.data.id)
      .executeTakeFirstOrThrow()
    assert.is(
      error.notes,
      `tag set ${undecided} (sim-undecided) has no tag decided yes: mark the calls sought yes (tagReview) first.`,
    )
  } finally {
    await worker.stop()
  }
  assert.is(counting!.reads.length, 0, 'no stored file was read')
  const found = await t.db
    .selectFrom('tags')
    .selectAll()
    .where('tag_set_id', '=', destination)
    .orderBy('media_file_id')
    .orderBy('start_time')
    .execute()
  assert.ok(
    found.length >= 3,
    `${found.length} tags: ${JSON.stringify(await t.db.selectFrom('job_result_files').select('notes').where('job_id', '=', res.data.id).execute())}`,
  )
  for (const g of found) {
    const windows = layout.get(g.media_file_id)!
    const i = Math.round(g.start_time / STEP)
    assert.is(windows[i].cluster, 'A', `tag on media file ${g.media_file_id} at ${g.start_time}`)
    assert.ok(g.machine_tagged)
    assert.is(g.tag_class_id, call)
    assert.is((g.provenance as { source: string }).source, 'mas TrainClassifier')
  }
  // f1's and f3's calls are found; f2's decided stretch is not tagged again
  assert.ok(found.some((g) => g.media_file_id === f1) && found.some((g) => g.media_file_id === f3))
  assert.ok(found.every((g) => g.media_file_id !== f2 || g.end_time <= 5.1 || g.start_time >= 7.9))
})

test.run()
