import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { candidatesFor } from '../server/analysis/similar/libraryIndex.js'
import { InvertedFile, PROBES } from '../server/analysis/similar/invertedFile.js'
import {
  InvertedFileBuilder,
  listCountFor,
  SAMPLE_PER_LIST,
  trainCentres,
} from '../server/analysis/similar/invertedFileBuild.js'
import { decodeHalves, encodeHalves } from '../server/analysis/similar/float16.js'
import { loadUsearch } from '../server/analysis/similar/usearch.js'
import { cosineDistance, meanDirection, normalised } from '../server/analysis/similar/vectors.js'
import { seededRandom } from '../server/analysis/random.js'
import { clusteredEmbeddings, WITHIN_CLUSTER } from './clusteredEmbeddings.js'
import { currawongPrecision } from './similarCurrawong.js'
import { trainAndRescore } from './similarTrain.js'

// npm run bench:similar [-- --windows 100000 --dimensions 1536 --queries 500 --probes 8,16 | --currawong | --train]
//
// Search by example at scale (docs/decisions.md §35), on generated embeddings: 1,000 Gaussian clusters whose
// per-dimension variance decays as a real embedding's spectrum does, λ_j = 1 / (1 + j) for dimension j; cluster
// centres drawn from N(0, diag λ), each window its cluster's centre plus N(0, 0.7² diag λ) (clusters overlap, so
// approximate search is neither trivial nor hopeless). Built, saved and served as the server does (libraryIndex.ts:
// an inverted file over about 2√n centres learnt from a sample, 8-bit codes, the nearest 32 lists read), each query a tag's stretch (the mean of 3 windows of one cluster); its
// top 100 asked with the server's candidate count and re-ranked by the float16 vectors (held in memory here: the
// server reads them from the database, one statement). Reported: build rate, disk, resident memory with the index
// open, p50/p99 latency of a top-100 search with re-ranking, and recall@100 of the first 100 queries against exact
// search (over every vector, a million at a time). Only the float16 vectors are kept, in parts, so 10^7 windows of the
// built-in kind fit in memory (5.2 GB at d = 261).

const text = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}

/**
 * Built as the server builds a library's index (libraryIndex.ts): centres learnt from a sample of windows drawn at
 * random, then every window put in its list, a stored row (here a batch) at a time; timed from the sample's first
 * read to the file written. A function of its own, so that nothing of the build is still referenced when the open
 * index's memory is measured.
 */
async function buildIndex(
  n: number,
  d: number,
  parts: Buffer[],
  batch: number,
  vectorOf: (i: number, into?: Float32Array<ArrayBuffer>) => Float32Array,
  dir: string,
  path: string,
) {
  const t0 = performance.now(),
    c0 = process.cpuUsage()
  const lists = listCountFor(n)
  const sampled = Math.min(n, SAMPLE_PER_LIST * lists)
  const sample = new Float32Array(sampled * d)
  const pick = seededRandom(11)
  for (let s = 0; s < sampled; s++)
    vectorOf(Math.floor(pick() * n), sample.subarray(s * d, (s + 1) * d) as Float32Array<ArrayBuffer>)
  normalised(sample, d)
  const centres = await trainCentres(sample, d, lists)
  const trained = performance.now() - t0
  const builder = await InvertedFileBuilder.start(centres, d, join(dir, 'spill'))
  for (let from = 0, b = 0; from < n; from += batch, b++) {
    const m = Math.min(batch, n - from)
    await builder.add(
      BigUint64Array.from({ length: m }, (_, i) => BigInt(from + i)),
      normalised(decodeHalves(parts[b]), d),
    )
  }
  await builder.finish(path)
  const building = performance.now() - t0
  const spent = process.cpuUsage(c0)
  return { building, buildingCpu: (spent.user + spent.system) / 1000, trained, lists, sampled }
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0)

/** The anonymous memory of a process of its own that opens the index at `path` and searches it for `queries`. */
function servedMemory(path: string, queries: Float32Array, d: number, candidates: number, dir: string) {
  const file = join(dir, 'queries.f32')
  writeFileSync(file, new Uint8Array(queries.buffer, queries.byteOffset, queries.byteLength))
  const serve = join(dirname(fileURLToPath(import.meta.url)), 'similarServe.js')
  const out = execFileSync(process.execPath, [serve, path, file, String(d), String(candidates)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  return JSON.parse(out) as { before: number; opened: number; searched: number }
}

async function main(): Promise<void> {
  if (process.argv.includes('--currawong')) return currawongPrecision()
  if (process.argv.includes('--train')) return trainAndRescore(arg('windows', 1_000_000), arg('dimensions', 261))
  const n = arg('windows', 100_000),
    d = arg('dimensions', 1536),
    queries = arg('queries', 500),
    probesList = [...new Set([PROBES, ...(text('probes')?.split(',').map(Number) ?? [])])],
    k = 100
  const generator = clusteredEmbeddings(d)
  const clusters = generator.clusters
  const clusterOf = new Uint16Array(n)
  const { exactSearch, MetricKind } = await loadUsearch()
  const batch = 10_000
  // the float16 vectors as stored, a part per batch (one Buffer cannot hold 10^7 of them); nothing else of the
  // generator is kept, so the size is bounded by what the server would store
  const parts: Buffer[] = []
  const vectorOf = (i: number, into?: Float32Array<ArrayBuffer>) =>
    decodeHalves(parts[Math.floor(i / batch)], (i % batch) * d, d, into)
  for (let from = 0; from < n; from += batch) {
    const vectors = new Float32Array(Math.min(batch, n - from) * d)
    clusterOf.set(generator.draw(vectors), from)
    parts.push(encodeHalves(vectors))
  }
  const dir = mkdtempSync(join(tmpdir(), 'mas-similar-bench-'))
  const path = join(dir, 'index.ivf')
  const { building, buildingCpu, trained, lists, sampled } = await buildIndex(n, d, parts, batch, vectorOf, dir, path)
  const indexBytes = statSync(path).size
  const served = await InvertedFile.open(path)
  // the queries, each a tag's stretch: the mean of 3 windows of one cluster
  const random = seededRandom(7)
  const asked = new Float32Array(queries * d)
  for (let q = 0; q < queries; q++) {
    const c = clusterOf[Math.floor(random() * n)]
    const members: Float32Array[] = []
    for (let i = Math.floor(random() * n); members.length < 3; i = (i + 1) % n)
      if (clusterOf[i] === c) members.push(normalised(vectorOf(i), d))
    asked.set(meanDirection(members, d), q * d)
  }
  const checked = Math.min(queries, 100)
  const memory = servedMemory(path, asked.subarray(0, checked * d), d, candidatesFor(k), dir)
  // the exact top k of the first queries, over every vector, a million at a time: each query's best of each chunk,
  // merged
  const best: Array<Array<{ i: number; distance: number }>> = Array.from({ length: checked }, () => [])
  const chunk = 100 * batch
  for (let from = 0; from < n; from += chunk) {
    const m = Math.min(chunk, n - from)
    const vectors = new Float32Array(m * d)
    for (let i = 0; i < m; i++) normalised(vectorOf(from + i, vectors.subarray(i * d, (i + 1) * d)), d)
    const exact = exactSearch(vectors, asked.slice(0, checked * d), d, Math.min(k, m), MetricKind.Cos) as {
      keys: BigUint64Array
      distances: Float32Array
      counts: BigUint64Array
      k: number
    }
    for (let q = 0; q < checked; q++)
      for (let r = 0; r < Number(exact.counts[q]); r++)
        best[q].push({ i: from + Number(exact.keys[q * exact.k + r]), distance: exact.distances[q * exact.k + r] })
    for (const list of best) list.sort((a, b) => a.distance - b.distance).splice(k)
  }
  const truth = best.map((b) => new Set(b.map((x) => x.i)))
  // each count of lists read, the server's first: latency of a top-k with re-ranking, and recall
  const measure = async (probes: number): Promise<string> => {
    const times: number[] = [],
      cpuTimes: number[] = []
    let recalled = 0
    for (let q = 0; q < queries; q++) {
      const query = asked.subarray(q * d, (q + 1) * d)
      const t0 = performance.now(),
        c0 = process.cpuUsage()
      const found = await served.search(query, candidatesFor(k), probes)
      const ranked = found
        .map(({ key }) => {
          const i = Number(key)
          return { i, distance: cosineDistance(query, vectorOf(i), 0, d) }
        })
        .sort((a, b) => a.distance - b.distance)
        .slice(0, k)
      times.push(performance.now() - t0)
      const spent = process.cpuUsage(c0)
      cpuTimes.push((spent.user + spent.system) / 1000)
      if (q < checked) recalled += ranked.filter((r) => truth[q].has(r.i)).length / k
    }
    times.sort((a, b) => a - b)
    cpuTimes.sort((a, b) => a - b)
    const at = (p: number, xs = times) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(1)
    return (
      `  reading ${probes} lists, top-${k} of ${candidatesFor(k)} candidates re-ranked, ${queries} queries: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (CPU: p50 ${at(0.5, cpuTimes)} ms, p99 ${at(0.99, cpuTimes)} ms); ` +
      `recall@${k} against exact search, after re-ranking: ${(recalled / checked).toFixed(3)} (${checked} queries)\n`
    )
  }
  const lines: string[] = []
  for (const probes of probesList) lines.push(await measure(probes))
  process.stdout.write(
    `similar: ${n.toLocaleString('en')} windows of ${d} dimensions in ${clusters} clusters (spectrum 1/(1+j), within-cluster ${WITHIN_CLUSTER})\n` +
      `  build: ${(n / (building / 1000)).toFixed(0)} windows/s of wall time (${(building / 1000).toFixed(1)} s, of which ${(trained / 1000).toFixed(1)} s learning ${lists} centres from ${sampled.toLocaleString('en')} windows), ${(n / (buildingCpu / 1000)).toFixed(0)} windows per CPU-second (${(buildingCpu / 1000).toFixed(1)} CPU-s; load average ${loadavg()[0].toFixed(1)} at the end)\n` +
      `  disk: index ${(indexBytes / 2 ** 20).toFixed(0)} MiB + float16 vectors ${(parts.reduce((b, p) => b + p.length, 0) / 2 ** 20).toFixed(0)} MiB\n` +
      `  anonymous resident memory of a process serving the index (similarServe.ts): ${mib(memory.before)} MiB before opening it, ${mib(memory.opened)} MiB open, ${mib(memory.searched)} MiB after ${checked} searches\n` +
      lines.join('') +
      `  process RSS at the end: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB (the float16 vectors included)\n`,
  )
  await served.close()
  rmSync(dir, { recursive: true, force: true })
}

await main()
