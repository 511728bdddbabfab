import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { candidatesFor, indexOptions } from '../server/analysis/similar/libraryIndex.js'
import { decodeHalves, encodeHalves } from '../server/analysis/similar/float16.js'
import { loadUsearch } from '../server/analysis/similar/usearch.js'
import { cosineDistance, meanDirection, normalised } from '../server/analysis/similar/vectors.js'
import { seededRandom } from '../server/analysis/random.js'
import { clusteredEmbeddings, WITHIN_CLUSTER } from './clusteredEmbeddings.js'
import { currawongPrecision } from './similarCurrawong.js'
import { trainAndRescore } from './similarTrain.js'

// npm run bench:similar [-- --windows 100000 --dimensions 1536 --queries 500 | --currawong]
//
// Search by example at scale (docs/decisions.md §35), on generated embeddings: 1,000 Gaussian clusters whose
// per-dimension variance decays as a real embedding's spectrum does, λ_j = 1 / (1 + j) for dimension j; cluster
// centres drawn from N(0, diag λ), each window its cluster's centre plus N(0, 0.7² diag λ) (clusters overlap, so
// approximate search is neither trivial nor hopeless). Built, saved and served as the server does (libraryIndex.ts:
// HNSW, cosine, 8-bit, connectivity 16), each query a tag's stretch (the mean of 3 windows of one cluster); its
// top 100 asked with the server's candidate count and re-ranked by the float16 vectors (held in memory here: the
// server reads them from the database, one statement). Reported: build rate, disk, resident memory with the index
// mapped, p50/p99 latency of a top-100 search with re-ranking, and recall@100 of the first 100 queries against exact
// search (over every vector, a million at a time). Only the float16 vectors are kept, in parts, so 10^7 windows of the
// built-in kind fit in memory (5.2 GB at d = 261).

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}

/** This process's anonymous resident memory (heap, buffers; not the mapped index file's pages), bytes. */
function anonymousResident(): number {
  const line = /RssAnon:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
  return line ? Number(line[1]) * 1024 : NaN
}

async function main(): Promise<void> {
  if (process.argv.includes('--currawong')) return currawongPrecision()
  if (process.argv.includes('--train')) return trainAndRescore(arg('windows', 1_000_000), arg('dimensions', 261))
  const n = arg('windows', 100_000),
    d = arg('dimensions', 1536),
    queries = arg('queries', 500),
    k = 100
  const generator = clusteredEmbeddings(d)
  const clusters = generator.clusters
  const clusterOf = new Uint16Array(n)
  const { Index, exactSearch, MetricKind } = await loadUsearch()
  const index = new Index(await indexOptions(d))
  const batch = 10_000
  // the float16 vectors as stored, a part per batch (one Buffer cannot hold 10^7 of them); nothing else of the
  // generator is kept, so the size is bounded by what the server would store
  const parts: Buffer[] = []
  const vectorOf = (i: number, into?: Float32Array<ArrayBuffer>) =>
    decodeHalves(parts[Math.floor(i / batch)], (i % batch) * d, d, into)
  let building = 0,
    buildingCpu = 0
  for (let from = 0; from < n; from += batch) {
    const m = Math.min(batch, n - from)
    const vectors = new Float32Array(m * d)
    clusterOf.set(generator.draw(vectors), from)
    parts.push(encodeHalves(vectors))
    const stored = decodeHalves(parts[parts.length - 1])
    normalised(stored, d)
    const keys = BigUint64Array.from({ length: m }, (_, i) => BigInt(from + i))
    const t0 = performance.now(),
      c0 = process.cpuUsage()
    index.add(keys, stored)
    building += performance.now() - t0
    const spent = process.cpuUsage(c0)
    buildingCpu += (spent.user + spent.system) / 1000
  }
  const dir = mkdtempSync(join(tmpdir(), 'mas-similar-bench-'))
  const path = join(dir, 'index.usearch')
  index.save(path)
  const indexBytes = statSync(path).size
  const before = process.memoryUsage().rss,
    anonymousBefore = anonymousResident()
  const served = new Index(await indexOptions(d))
  served.view(path)
  const rssMapped = process.memoryUsage().rss - before
  const random = seededRandom(7)
  const times: number[] = [],
    cpuTimes: number[] = []
  const checked = Math.min(queries, 100)
  const answers: number[][] = []
  const asked = new Float32Array(checked * d)
  for (let q = 0; q < queries; q++) {
    const c = clusterOf[Math.floor(random() * n)]
    const members: Float32Array[] = []
    for (let i = Math.floor(random() * n); members.length < 3; i = (i + 1) % n)
      if (clusterOf[i] === c) members.push(normalised(vectorOf(i), d))
    const query = meanDirection(members, d)
    const t0 = performance.now(),
      c0 = process.cpuUsage()
    const found = served.search(query, candidatesFor(k), 0)
    const ranked = Array.from(found.keys, (key) => {
      const i = Number(key)
      return { i, distance: cosineDistance(query, vectorOf(i), 0, d) }
    })
      .sort((a, b) => a.distance - b.distance)
      .slice(0, k)
    times.push(performance.now() - t0)
    const spent = process.cpuUsage(c0)
    cpuTimes.push((spent.user + spent.system) / 1000)
    if (q < checked) {
      answers.push(ranked.map((r) => r.i))
      asked.set(query, q * d)
    }
  }
  const rssSearched = process.memoryUsage().rss - before,
    anonymousAdded = anonymousResident() - anonymousBefore
  // the exact top k of the first queries, over every vector, a million at a time: each query's best of each chunk,
  // merged
  const best: Array<Array<{ i: number; distance: number }>> = Array.from({ length: checked }, () => [])
  const chunk = 100 * batch
  for (let from = 0; from < n; from += chunk) {
    const m = Math.min(chunk, n - from)
    const vectors = new Float32Array(m * d)
    for (let i = 0; i < m; i++) normalised(vectorOf(from + i, vectors.subarray(i * d, (i + 1) * d)), d)
    const exact = exactSearch(vectors, asked, d, Math.min(k, m), MetricKind.Cos) as {
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
  let recalled = 0
  for (let q = 0; q < checked; q++) {
    const truth = new Set(best[q].map((b) => b.i))
    recalled += answers[q].filter((i) => truth.has(i)).length / k
  }
  const exactChecked = checked
  times.sort((a, b) => a - b)
  cpuTimes.sort((a, b) => a - b)
  const at = (p: number, xs = times) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(1)
  process.stdout.write(
    `similar: ${n.toLocaleString('en')} windows of ${d} dimensions in ${clusters} clusters (spectrum 1/(1+j), within-cluster ${WITHIN_CLUSTER})\n` +
      `  build: ${(n / (building / 1000)).toFixed(0)} windows/s of wall time (${(building / 1000).toFixed(1)} s), ${(n / (buildingCpu / 1000)).toFixed(0)} windows per CPU-second (${(buildingCpu / 1000).toFixed(1)} CPU-s; load average ${loadavg()[0].toFixed(1)} at the end)\n` +
      `  disk: index ${(indexBytes / 2 ** 20).toFixed(0)} MiB + float16 vectors ${(parts.reduce((b, p) => b + p.length, 0) / 2 ** 20).toFixed(0)} MiB\n` +
      `  resident memory added by the mapped index: ${(rssMapped / 2 ** 20).toFixed(0)} MiB once opened, ${(rssSearched / 2 ** 20).toFixed(0)} MiB after the queries (pages come in as searches touch them); anonymous memory added: ${(anonymousAdded / 2 ** 20).toFixed(0)} MiB\n` +
      `  top-${k} of ${candidatesFor(k)} candidates re-ranked, ${queries} queries: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (CPU: p50 ${at(0.5, cpuTimes)} ms, p99 ${at(0.99, cpuTimes)} ms)\n` +
      `  recall@${k} against exact search, after re-ranking: ${(recalled / exactChecked).toFixed(3)} (${exactChecked} queries)\n` +
      `  process RSS at the end: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB (the float16 vectors included)\n`,
  )
  rmSync(dir, { recursive: true, force: true })
}

await main()
