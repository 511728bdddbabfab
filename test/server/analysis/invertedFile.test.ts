import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { clusteredEmbeddings } from '../../../bench/clusteredEmbeddings.js'
import { InvertedFile, ownBuffer, quantised, regions } from '../../../server/analysis/similar/invertedFile.js'
import { InvertedFileBuilder, listCountFor, trainCentres } from '../../../server/analysis/similar/invertedFileBuild.js'
import { loadUsearch } from '../../../server/analysis/similar/usearch.js'
import { cosineDistance, normalised } from '../../../server/analysis/similar/vectors.js'
import { tempDir } from '../../helpers/tempDir.js'

// The inverted file a library's index is (docs/decisions.md §35), on generated clustered embeddings: built with its
// codes put in list order whatever the size of the groups they are put in order by, every window held once, the
// window asked for found first, extended with new windows in its own centres' lists, and a file of another shape
// refused.

const dir = tempDir('mas-inverted-file-')
test.after(() => rmSync(dir, { recursive: true, force: true }))
const D = 24
const N = 3000

function windows(n: number, seed: number): Float32Array {
  const vectors = new Float32Array(n * D)
  clusteredEmbeddings(D, 20, seed).draw(vectors)
  return normalised(vectors, D)
}
const keysFrom = (first: number, n: number) => BigUint64Array.from({ length: n }, (_, i) => BigInt(first + i))
const vectorAt = (vectors: Float32Array, i: number) => vectors.slice(i * D, (i + 1) * D)

async function built(vectors: Float32Array, name: string, groupBytes?: number): Promise<InvertedFile> {
  const n = vectors.length / D
  const lists = listCountFor(n)
  const centres = await trainCentres(vectors.slice(0, Math.min(n, 32 * lists) * D), D, lists)
  const builder = await InvertedFileBuilder.start(centres, D, join(dir, `${name}.spill`))
  for (let from = 0; from < n; from += 700)
    await builder.add(keysFrom(from, Math.min(700, n - from)), vectors.slice(from * D, Math.min(n, from + 700) * D))
  await builder.finish(join(dir, `${name}.ivf`), groupBytes)
  return InvertedFile.open(join(dir, `${name}.ivf`))
}

const data = windows(N, 1)

/** Every window of `data` held once, in one list, under its code. */
async function assertHeldOnce(file: InvertedFile, path: string): Promise<void> {
  assert.is(file.size, N)
  assert.is(file.shape.lists, listCountFor(N))
  assert.is(statSync(path).size, regions(file.shape).end)
  const seen = new Set<number>()
  for (let list = 0; list < file.shape.lists; list++) {
    const { keys, codes } = await file.list(list)
    for (let i = 0; i < keys.length; i++) {
      const key = Number(keys[i])
      assert.not.ok(seen.has(key), `window ${key} held twice`)
      seen.add(key)
      assert.equal(Array.from(codes.subarray(i * D, (i + 1) * D)), Array.from(quantised(vectorAt(data, key), D)))
    }
  }
  assert.is(seen.size, N)
}

test('every window is held once, in list order, however few codes are put in order at a time', async () => {
  const whole = await built(data, 'whole')
  await assertHeldOnce(whole, join(dir, 'whole.ivf'))
  const grouped = await built(data, 'grouped', 10 * D) // 10 windows at a time: 300 passes over the spill
  await assertHeldOnce(grouped, join(dir, 'grouped.ivf'))
  await whole.close()
  await grouped.close()
  assert.equal(
    readdirSync(dir).filter((name) => name.endsWith('.spill')),
    [],
    'the spills are removed',
  )
})

test('a stored window is found first, the candidates nearest first; asked for all, all are answered', async () => {
  const file = await built(data, 'search')
  for (const i of [0, 17, 1234, N - 1]) {
    const found = await file.search(vectorAt(data, i), 50)
    assert.is(found.length, 50)
    assert.is(Number(found[0].key), i)
    assert.ok(found[0].distance < 0.01, String(found[0].distance))
    for (let r = 1; r < found.length; r++) assert.ok(found[r].distance >= found[r - 1].distance)
  }
  const all = await file.search(vectorAt(data, 5), N + 10)
  assert.is(new Set(all.map((f) => Number(f.key))).size, N)
  // the exact ten nearest of a query are among the hundred candidates
  const query = vectorAt(data, 99)
  const exact = Array.from({ length: N }, (_, i) => ({ i, d: cosineDistance(query, data, i * D, D) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, 10)
  const candidates = new Set((await file.search(query, 100)).map((f) => Number(f.key)))
  assert.ok(
    exact.every((e) => candidates.has(e.i)),
    `missed ${exact.filter((e) => !candidates.has(e.i)).length}`,
  )
  await file.close()
})

test("extended: the old windows keep their lists, new ones join their centres' lists, and are found", async () => {
  const old = await built(data, 'old')
  const more = windows(500, 2)
  const builder = await InvertedFileBuilder.start(old.centres, D, join(dir, 'extended.spill'))
  const before = new Map<number, number>()
  for (let list = 0; list < old.shape.lists; list++) {
    const { keys, codes } = await old.list(list)
    for (const key of keys) before.set(Number(key), list)
    await builder.addToList(keys, codes, list)
  }
  await builder.add(keysFrom(N, 500), more)
  await builder.finish(join(dir, 'extended.ivf'))
  const extended = await InvertedFile.open(join(dir, 'extended.ivf'))
  assert.is(extended.size, N + 500)
  assert.equal(Array.from(extended.centres), Array.from(old.centres))
  for (let list = 0; list < extended.shape.lists; list++)
    for (const key of (await extended.list(list)).keys)
      if (Number(key) < N) assert.is(before.get(Number(key)), list, `window ${key} moved`)
  const found = await extended.search(vectorAt(more, 42), 10)
  assert.is(Number(found[0].key), N + 42)
  await old.close()
  await extended.close()
})

test('an index of no window (every file too short for one): no list, and every search answers nothing', async () => {
  assert.is(listCountFor(0), 0)
  const none = new Float32Array(0)
  const builder = await InvertedFileBuilder.start(await trainCentres(none, D, 0), D, join(dir, 'none.spill'))
  await builder.add(new BigUint64Array(0), none)
  await builder.finish(join(dir, 'none.ivf'))
  const file = await InvertedFile.open(join(dir, 'none.ivf'))
  assert.is(file.size, 0)
  assert.equal(await file.search(vectorAt(data, 0), 10), [])
  await file.close()
})

const refusal = (path: string) =>
  InvertedFile.open(path).then(
    () => 'opened',
    (e: Error) => e.message,
  )

test('a file cut short, or of another format, is refused when opened', async () => {
  const file = await built(data.slice(0, 300 * D), 'short')
  await file.close()
  const bytes = readFileSync(join(dir, 'short.ivf'))
  writeFileSync(join(dir, 'cut.ivf'), bytes.subarray(0, bytes.length - 1))
  assert.match(await refusal(join(dir, 'cut.ivf')), /not as long as its header says/)
  writeFileSync(join(dir, 'other.ivf'), Buffer.concat([Buffer.from('USEARCH!'), bytes.subarray(8)]))
  assert.match(await refusal(join(dir, 'other.ivf')), /not an index file of this version/)
})

test('codes: each vector scaled to ±127 at its largest value', () => {
  const v = Float32Array.from([0.5, -0.2, 0.1, 0])
  assert.equal(Array.from(quantised(v, 4)), [127, -51, 25, 0])
  assert.equal(Array.from(quantised(new Float32Array(4), 4)), [0, 0, 0, 0])
})

test("usearch's exact search reads an array from its buffer's start: a view at an offset is given as a copy", async () => {
  const { exactSearch, MetricKind } = await loadUsearch()
  const all = data.slice(0, 10 * D)
  const view = all.subarray(4 * D)
  const query = vectorAt(data, 6) // the third window of the view
  assert.is(Number(exactSearch(ownBuffer(view), query, D, 1, MetricKind.Cos).keys[0]), 2)
  assert.is(ownBuffer(all), all)
  assert.is.not(ownBuffer(view), view)
})

test.run()
