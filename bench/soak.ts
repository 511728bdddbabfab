import autocannon from 'autocannon'
import { benchArgs, runBench } from './args.js'
import { masPssMiB, rssMiB, serverMemory } from './memory.js'
import { killHard, serverHome } from '../test/helpers/server.js'
import { multipart } from '../test/helpers/upload.js'
import { makeWav } from '../test/helpers/wav.js'

// Soak benchmark: a real `mas server start` (embedded database, or
// DATABASE_URL) under mixed reads and writes at 32 connections for a while,
// with an import running all along. Reports error responses, the server's
// memory over time, throughput, and whether the tags counted at the end are
// exactly the creates that were answered 201.
//
//   npm run bench:soak -- [--duration SECONDS (600)] [--connections N (32)] [--json]

const { values: flags } = benchArgs(
  'usage: npm run bench:soak -- [--duration SECONDS (600)] [--connections N (32)] [--json]',
  {
    options: {
      duration: { type: 'string', default: '600' },
      connections: { type: 'string', default: '32' },
      json: { type: 'boolean', default: false },
    },
  },
)
const DURATION = Number(flags.duration)
const CONNECTIONS = Number(flags.connections)

async function main() {
  const home = await serverHome()
  const server = await home.start()
  const base = server.url
  const token = (
    await (
      await fetch(`${base}/api-token-auth/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'root', password: 'root-pass' }),
      })
    ).json()
  ).token
  const auth = { authorization: `Token ${token}` }
  const post = async (path: string, body: unknown) =>
    (
      await fetch(`${base}/api/v0/${path}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json()
  const library = (await post('library/', { name: 'soak' })).id
  const tagSet = (await post('tagSet/', { name: 'soak', library })).id
  const tagClass = (await post('tagClass/', { className: 'call', displayName: 'call', library })).id

  let imported = 0
  let importErrors = 0
  const importOne = async (i: number) => {
    const { payload, headers } = multipart({
      file: { data: makeWav({ seconds: 1, frequency: 100 + i }), filename: `soak-${i}.wav`, contentType: 'audio/wav' },
    })
    const res = await fetch(`${base}/api/v0/library/${library}/mediaFiles/import/`, {
      method: 'POST',
      headers: { ...headers, ...auth },
      body: new Uint8Array(payload),
    })
    const body = await res.json()
    if (res.status === 201) imported++
    else importErrors++
    return body.id as number
  }
  const mediaFile = await importOne(0)

  // an import running beside the load, one file after another, until the load ends
  let loading = true
  const importer = (async () => {
    for (let i = 1; loading; i++) await importOne(i)
  })()

  const started = Date.now()
  // mas's own RSS, and the PSS of mas with its embedded PostgreSQL (shared buffers counted once)
  const sample = () => ({
    second: Math.round((Date.now() - started) / 1000),
    rssMiB: Math.round(rssMiB(server.child.pid!)),
    pssMiB: Math.round(serverMemory(server.child.pid!, home.dataDir).pssMiB),
    masPssMiB: Math.round(masPssMiB(server.child.pid!)),
  })
  const memory: Array<{ second: number; rssMiB: number; pssMiB: number; masPssMiB: number }> = [sample()]
  const sampler = setInterval(() => memory.push(sample()), Math.max(1000, DURATION * 50))

  // a quarter of the connections write (tag creates, each answer counted; they finish what they sent
  // when the time is up, so the count is exact), the rest read through autocannon
  const WRITERS = Math.max(1, Math.round(CONNECTIONS / 4))
  let created = 0
  let writeErrors = 0
  let n = 0
  const headers = { ...auth, 'content-type': 'application/json' }
  const writers = Array.from({ length: WRITERS }, async () => {
    while (loading) {
      const res = await fetch(`${base}/api/v0/tag/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          tagSet,
          tagClass,
          mediaFile,
          startTime: (n++ % 500) / 1000,
          endTime: 0.9,
          minFrequency: 100,
          maxFrequency: 900,
        }),
      })
      await res.arrayBuffer()
      if (res.status === 201) created++
      else writeErrors++
    }
  })
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS - WRITERS,
    duration: DURATION,
    requests: [
      { method: 'GET', path: `/api/v0/tag/?tagSet=${tagSet}&ordering=-id&page_size=50`, headers },
      { method: 'GET', path: `/api/v0/mediaFile/?library=${library}&page_size=20`, headers },
      { method: 'GET', path: `/api/v0/library/${library}/`, headers },
      { method: 'GET', path: '/api/v0/tagSet/', headers },
      { method: 'GET', path: `/api/v0/tag/?tagSet=${tagSet}&page=last`, headers },
    ],
  })
  loading = false
  await importer
  await Promise.all(writers)
  clearInterval(sampler)
  memory.push(sample())

  const count = (await (await fetch(`${base}/api/v0/tag/?tagSet=${tagSet}&page_size=1`, { headers: auth })).json())
    .count
  await killHard(server)
  await home.cleanup()

  const report = {
    durationSeconds: DURATION,
    connections: CONNECTIONS,
    readRequests: result.requests.total,
    readsPerSecond: Math.round(result.requests.average),
    writers: WRITERS,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    errorResponses: result.non2xx + writeErrors,
    connectionErrors: result.errors,
    timeouts: result.timeouts,
    tagsCreated201: created,
    tagsCounted: count,
    tagCountExact: count === created,
    imported,
    importErrors,
    memory,
    rssGrowthMiB: memory[memory.length - 1].rssMiB - memory[Math.min(1, memory.length - 1)].rssMiB,
  }
  if (flags.json) console.log(JSON.stringify(report, null, 2))
  else {
    console.log(`soak: ${DURATION} s at ${CONNECTIONS} connections plus a running import`)
    console.log(
      `  reads: ${report.readRequests} (${report.readsPerSecond}/s) on ${CONNECTIONS - WRITERS} connections, latency p50 ${report.latencyMs.p50} ms, p99 ${report.latencyMs.p99} ms`,
    )
    console.log(
      `  writes: ${created + writeErrors} tag creates on ${WRITERS} connections (${Math.round(created / DURATION)}/s)`,
    )
    console.log(
      `  error responses: ${report.errorResponses}, connection errors: ${report.connectionErrors}, timeouts: ${report.timeouts}`,
    )
    console.log(
      `  tags answered 201: ${created}, tags counted: ${count} -> ${report.tagCountExact ? 'exact' : 'MISMATCH'}`,
    )
    console.log(`  imported alongside: ${imported} files, ${importErrors} failed`)
    console.log(`  server RSS (MiB) over time: ${memory.map((m) => `${m.second}s:${m.rssMiB}`).join(' ')}`)
    console.log(
      `  PSS of mas with its PostgreSQL (MiB) over time: ${memory.map((m) => `${m.second}s:${m.pssMiB}`).join(' ')}`,
    )
    console.log(
      `  of which mas (MiB): ${memory.map((m) => `${m.second}s:${m.masPssMiB}`).join(' ')}; peak of both ${Math.max(...memory.map((m) => m.pssMiB))} MiB`,
    )
  }
  if (report.errorResponses || report.connectionErrors || importErrors || !report.tagCountExact) process.exitCode = 1
}

await runBench(main)
