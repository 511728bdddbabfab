import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { benchArgs, runBench, usageError } from './args.js'
import { GRANTEE, OWNER, type BenchUser } from './fixture.js'
import { compareBenchmark } from './compare.js'
import { load, wrkInstalled, type Driver, type Measure as Load } from './load.js'
import { rssMiB } from './memory.js'
import { startCeiling, startMas, type Running } from './processes.js'
import { API, auth, seededRecords } from './seeded.js'

// API benchmark: `mas server start` on a seeded database (npm run seed:bench),
// driven by autocannon at 4 and 32 connections per endpoint; beside every
// endpoint, the same JSON answered by a bare Fastify route with no database
// (the machine's ceiling), measured in the same run. Prints a table, writes
// bench/results/api-<date>.json.
// The load comes from wrk where it is installed (Debian package `wrk`), else autocannon.
//   npm run bench:api -- [--data-dir DIR | DATABASE_URL=...] [--duration S] [--quick]
//                        [--only REGEX] [--connections 4,32] [--workers N] [--cpu-prof DIR]
//                        [--driver wrk|autocannon]
//   npm run bench:api -- --memory [--memory-seconds 300]   (server RSS over a long mixed run)
//   npm run bench:api -- --compare URL TOKEN IDS_JSON [--data-dir DIR]
//       the issue's five endpoints on another implementation of the API (the reference service: its
//       seed writes IDS_JSON) and on mas, one after the other, with the ratio; then a pgbench
//       one-row INSERT on mas's database where pgbench is installed

const USAGE = `usage: npm run bench:api -- [--data-dir DIR] [--duration S] [--quick] [--only REGEX] [--connections 4,32]
         [--workers N] [--cpu-prof DIR] [--driver wrk|autocannon] [--out FILE]
       npm run bench:api -- --memory [--memory-seconds 300]
       npm run bench:api -- --compare URL TOKEN IDS_JSON [--data-dir DIR]
  (--data-dir: a directory seeded by npm run seed:bench; or set DATABASE_URL)`

const { values: opts, positionals } = benchArgs(USAGE, {
  options: {
    'data-dir': { type: 'string' },
    duration: { type: 'string', default: '10' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    connections: { type: 'string', default: '4,32' },
    workers: { type: 'string' },
    'cpu-prof': { type: 'string' },
    memory: { type: 'boolean', default: false },
    'memory-seconds': { type: 'string', default: '300' },
    out: { type: 'string' },
    driver: { type: 'string' },
    compare: { type: 'string' },
  },
  allowPositionals: true,
})
const DURATION = opts.quick ? 2 : Number(opts.duration)
const CONNECTIONS = opts.connections.split(',').map(Number)
const DRIVER: Driver =
  opts.driver === 'autocannon' || opts.driver === 'wrk'
    ? opts.driver
    : opts.driver
      ? usageError(USAGE, '--driver must be wrk or autocannon')
      : wrkInstalled()
        ? 'wrk'
        : 'autocannon'
const databaseUrl = process.env.DATABASE_URL || undefined
if (!databaseUrl && !opts['data-dir'])
  usageError(USAGE, 'give --data-dir DIR (seeded with npm run seed:bench) or set DATABASE_URL')
const BULK = 1000

interface Endpoint {
  name: string
  method: 'GET' | 'POST'
  path: string
  as: BenchUser
  body?: string
  /** items created per request (bulk POST) */
  items?: number
  /** targets apply: 'read' (GET detail/list) or 'write' (single POST) or 'bulk' */
  kind: 'read' | 'write' | 'bulk'
  /** size of the recorded answer */
  bytes?: number
}

/** The seeded records, found through the API, and the endpoints of the issue. */
async function endpointsOf(base: string): Promise<Endpoint[]> {
  const { library, tagSet, writeSet, project, tagClass, files, aTag } = await seededRecords(base)
  const tag = (i: number) => ({
    tagClass,
    tagSet: writeSet.id,
    mediaFile: files[i % files.length],
    startTime: (i % 50) / 10,
    endTime: (i % 50) / 10 + 0.5,
    minFrequency: 100,
    maxFrequency: 2000,
  })
  return [
    { name: 'GET tag/{id}/', method: 'GET', path: `${API}/tag/${aTag}/`, as: OWNER, kind: 'read' },
    {
      name: 'GET tagSet/{id}/tags/?page=1',
      method: 'GET',
      path: `${API}/tagSet/${tagSet.id}/tags/?page=1`,
      as: OWNER,
      kind: 'read',
    },
    {
      name: 'GET tagSet/{id}/tags/?page=1000',
      method: 'GET',
      path: `${API}/tagSet/${tagSet.id}/tags/?page=1000`,
      as: OWNER,
      kind: 'read',
    },
    { name: 'GET mediaFile/?page=3', method: 'GET', path: `${API}/mediaFile/?page=3`, as: OWNER, kind: 'read' },
    { name: 'GET jobs/', method: 'GET', path: `${API}/jobs/`, as: OWNER, kind: 'read' },
    {
      name: 'GET library/{id}/mediaFiles/ (grantee)',
      method: 'GET',
      path: `${API}/library/${library.id}/mediaFiles/`,
      as: GRANTEE,
      kind: 'read',
    },
    {
      name: 'GET project/{id}/mediaFiles/',
      method: 'GET',
      path: `${API}/project/${project.id}/mediaFiles/`,
      as: OWNER,
      kind: 'read',
    },
    { name: 'POST tag/', method: 'POST', path: `${API}/tag/`, as: OWNER, body: JSON.stringify(tag(0)), kind: 'write' },
    {
      name: `POST tag/ x${BULK}`,
      method: 'POST',
      path: `${API}/tag/`,
      as: OWNER,
      items: BULK,
      body: JSON.stringify(Array.from({ length: BULK }, (_, i) => tag(i))),
      kind: 'bulk',
    },
  ]
}

const headersOf = (ep: Endpoint) => ({ ...auth(ep.as), ...(ep.body ? { 'content-type': 'application/json' } : {}) })

/** What the API answers once: the ceiling serves these same bytes. */
async function record(base: string, ep: Endpoint) {
  const res = await fetch(base + ep.path, { method: ep.method, headers: headersOf(ep), body: ep.body })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${ep.name}: ${res.status} ${text.slice(0, 300)}`)
  return { status: res.status, body: JSON.parse(text), bytes: Buffer.byteLength(text) }
}

interface Measure extends Load {
  itemsPerSecond?: number
}

async function drive(base: string, ep: Endpoint, connections: number, duration: number): Promise<Measure> {
  const m = await load(DRIVER, {
    url: base + ep.path,
    method: ep.method,
    headers: headersOf(ep),
    body: ep.body,
    connections,
    duration,
  })
  return { ...m, ...(ep.items ? { itemsPerSecond: (m.requests * ep.items) / m.seconds } : {}) }
}

interface Row {
  endpoint: string
  kind: Endpoint['kind']
  connections: number
  bytes: number
  server: Measure
  ceiling: Measure
  ratio: number
}

function targetsOf(rows: Row[]) {
  const at = (name: string, c: number) => rows.find((r) => r.endpoint === name && r.connections === c)
  const out: Array<{ target: string; met: boolean; detail: string }> = []
  const top = Math.max(...CONNECTIONS)
  for (const r of rows.filter((r) => r.kind === 'read' && r.connections === top)) {
    out.push({
      target: `${r.endpoint}: >= 25% of ceiling and p99 <= 25 ms at ${top} connections`,
      met: r.ratio >= 0.25 && r.server.p99 <= 25 && r.server.non2xx === 0,
      detail: `${pct(r.ratio)} of ceiling, p99 ${r.server.p99} ms`,
    })
  }
  for (const c of CONNECTIONS) {
    const p1 = at('GET tagSet/{id}/tags/?page=1', c),
      p1000 = at('GET tagSet/{id}/tags/?page=1000', c)
    if (p1 && p1000)
      out.push({
        target: `page 1000 within 2x the latency of page 1 (${c} connections, mean)`,
        met: p1000.server.mean <= 2 * p1.server.mean,
        detail: `page 1 ${p1.server.mean.toFixed(2)} ms, page 1000 ${p1000.server.mean.toFixed(2)} ms`,
      })
  }
  const single = at('POST tag/', top)
  if (single)
    out.push({
      target: `POST tag/ >= 15% of ceiling at ${top} connections`,
      met: single.ratio >= 0.15,
      detail: pct(single.ratio),
    })
  const bulk = rows.filter((r) => r.kind === 'bulk')
  if (bulk.length) {
    const best = Math.max(...bulk.map((r) => r.server.itemsPerSecond ?? 0))
    out.push({ target: 'bulk creation >= 50,000 tags/s', met: best >= 50_000, detail: `${Math.round(best)} tags/s` })
  }
  return out
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`
const fmt = (n: number, w: number) => String(n).padStart(w)

function printRow(r: Row) {
  const items = r.server.itemsPerSecond ? ` (${Math.round(r.server.itemsPerSecond)} tags/s)` : ''
  const bad = r.server.non2xx || r.server.errors ? `  ! ${r.server.non2xx} non-2xx, ${r.server.errors} errors` : ''
  process.stdout.write(
    `${r.endpoint.padEnd(42)}${fmt(r.connections, 4)}${fmt(Math.round(r.server.rps), 9)}${fmt(r.server.p50, 7)}${fmt(r.server.p99, 7)}` +
      `${fmt(Math.round(r.ceiling.rps), 10)}${fmt(r.ceiling.p50, 7)}${fmt(r.ceiling.p99, 7)}${pct(r.ratio).padStart(9)}${items}${bad}\n`,
  )
}

interface Servers {
  mas: Running
  ceiling: Running
  eps: Endpoint[]
}

/** Start the API server, find the seeded records, record each endpoint's answer once, start the ceiling on those answers. */
async function withServers<T>(work: (s: Servers) => Promise<T>): Promise<T> {
  const mas = await startMas({
    dataDir: opts['data-dir'] && resolve(opts['data-dir']),
    databaseUrl,
    workers: opts.workers ? Number(opts.workers) : undefined,
    cpuProfDir: opts['cpu-prof'] && resolve(opts['cpu-prof']),
  })
  const tmp = mkdtempSync(join(tmpdir(), 'mas-bench-'))
  let ceiling: Running | undefined
  try {
    let eps = await endpointsOf(mas.base)
    if (opts.only) eps = eps.filter((e) => new RegExp(opts.only!).test(e.name))
    const answers: Record<string, { status: number; body: unknown }> = {}
    for (const [i, ep] of eps.entries()) {
      const { status, body, bytes } = await record(mas.base, ep)
      answers[`${ep.method} /ceiling/${i}`] = { status, body }
      ep.bytes = bytes
    }
    const file = join(tmp, 'answers.json')
    writeFileSync(file, JSON.stringify(answers))
    ceiling = await startCeiling(file)
    return await work({ mas, ceiling, eps })
  } finally {
    await ceiling?.stop()
    await mas.stop()
    rmSync(tmp, { recursive: true, force: true })
  }
}

function machine() {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? '',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  }
}

function writeResults(kind: string, data: unknown): string {
  const dir = resolve('bench/results')
  mkdirSync(dir, { recursive: true })
  const file = opts.out
    ? resolve(opts.out)
    : join(dir, `${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
  writeFileSync(file, JSON.stringify(data, null, 2) + '\n')
  return file
}

const database = databaseUrl ? 'postgres' : 'embedded'

async function apiBenchmark() {
  process.stdout.write(
    `mas API benchmark on ${database}, ${DURATION} s per measurement, load from ${DRIVER}, ${machine().cpus} cores\n`,
  )
  const rows: Row[] = []
  await withServers(async ({ mas, ceiling, eps }) => {
    process.stdout.write(
      `\n${'endpoint'.padEnd(42)}${'conn'.padStart(4)}${'req/s'.padStart(9)}${'p50'.padStart(7)}${'p99'.padStart(7)}` +
        `${'ceil r/s'.padStart(10)}${'p50'.padStart(7)}${'p99'.padStart(7)}${'ratio'.padStart(9)}   (latency ms)\n`,
    )
    for (const [i, ep] of eps.entries()) {
      const atCeiling = { ...ep, path: `/ceiling/${i}` }
      for (const c of CONNECTIONS) {
        // a short unrecorded run first: JIT, connection pools and caches warm for both
        await drive(mas.base, ep, c, 1)
        await drive(ceiling.base, atCeiling, c, 1)
        const server = await drive(mas.base, ep, c, DURATION)
        const top = await drive(ceiling.base, atCeiling, c, DURATION)
        const row: Row = {
          endpoint: ep.name,
          kind: ep.kind,
          connections: c,
          bytes: ep.bytes ?? 0,
          server,
          ceiling: top,
          ratio: server.rps / top.rps,
        }
        rows.push(row)
        printRow(row)
      }
    }
  })
  const result = {
    date: new Date().toISOString(),
    database,
    machine: machine(),
    durationSeconds: DURATION,
    rows,
    targets: targetsOf(rows),
  }
  process.stdout.write('\ntargets:\n')
  for (const t of result.targets) process.stdout.write(`  ${t.met ? 'met   ' : 'MISSED'} ${t.target}: ${t.detail}\n`)
  process.stdout.write(`\nresults: ${writeResults('api', result)}\n`)
}

/** Server RSS over a long run of every endpoint in turn at the highest connection count: flat means each minute's peak within ±10%. */
async function memoryBenchmark() {
  const seconds = Number(opts['memory-seconds'])
  const connections = Math.max(...CONNECTIONS)
  process.stdout.write(
    `mas memory benchmark on ${database}: ${seconds} s of mixed requests at ${connections} connections\n`,
  )
  const samples: Array<{ second: number; rssMiB: number }> = []
  let requests = 0,
    failures = 0
  await withServers(async ({ mas, eps }) => {
    const pid = mas.child.pid!
    // warm up (JIT, pools, caches) before the first sample counts
    for (const ep of eps.filter((e) => e.kind !== 'bulk')) await drive(mas.base, ep, connections, 2)
    const started = Date.now()
    const sample = () =>
      samples.push({ second: Math.round((Date.now() - started) / 1000), rssMiB: Math.round(rssMiB(pid) * 10) / 10 })
    sample()
    const timer = setInterval(sample, 5000)
    try {
      const mixed = eps.filter((e) => e.kind !== 'bulk')
      while (Date.now() - started < seconds * 1000) {
        for (const ep of mixed) {
          const left = seconds - (Date.now() - started) / 1000
          if (left < 1) break
          const m = await drive(mas.base, ep, connections, Math.min(5, Math.ceil(left)))
          requests += Math.round(m.rps * Math.min(5, Math.ceil(left)))
          failures += m.non2xx + m.errors
        }
      }
    } finally {
      clearInterval(timer)
    }
    sample()
  })
  // RSS follows the garbage collector's saw-tooth (a 5-s sample may land before or after a major
  // collection); a leak shows as rising peaks. Flat: each minute's peak within ±10% of the first minute's.
  const first = samples[0].rssMiB
  const minutes: number[] = []
  for (const s of samples) {
    const m = Math.min(Math.floor(s.second / 60), Math.max(0, Math.ceil(seconds / 60) - 1))
    minutes[m] = Math.max(minutes[m] ?? 0, s.rssMiB)
  }
  const peaks = minutes.filter((p) => p !== undefined)
  const peakDeviation = Math.max(...peaks.map((p) => Math.abs(p - peaks[0]) / peaks[0]))
  const sampleDeviation = Math.max(...samples.map((s) => Math.abs(s.rssMiB - first) / first))
  const result = {
    date: new Date().toISOString(),
    database,
    machine: machine(),
    seconds,
    connections,
    requests,
    failures,
    samples,
    firstMiB: first,
    lastMiB: samples[samples.length - 1].rssMiB,
    minMiB: Math.min(...samples.map((s) => s.rssMiB)),
    maxMiB: Math.max(...samples.map((s) => s.rssMiB)),
    minutePeaksMiB: peaks,
    largestPeakDeviation: peakDeviation,
    largestSampleDeviation: sampleDeviation,
    flat: peakDeviation <= 0.1,
  }
  process.stdout.write(
    `RSS samples: first ${first} MiB, last ${result.lastMiB} MiB, range ${result.minMiB}-${result.maxMiB} MiB ` +
      `(largest deviation from the first ${pct(sampleDeviation)})\n`,
  )
  process.stdout.write(
    `RSS peak of each minute: ${peaks.map((p) => `${p} MiB`).join(', ')}; largest deviation from the first minute's ` +
      `${pct(peakDeviation)}: ${result.flat ? 'flat (within ±10%)' : 'NOT flat'}; ${requests} requests, ${failures} failures\n`,
  )
  process.stdout.write(`results: ${writeResults('memory', result)}\n`)
}

await runBench(async () => {
  if (opts.compare) {
    const [token, ids] = positionals
    if (!token || !ids)
      usageError(USAGE, '--compare URL TOKEN IDS_JSON: give the reference token and ids file after the URL')
    await compareBenchmark({
      reference: { base: opts.compare, token, idsFile: ids },
      driver: DRIVER,
      duration: DURATION,
      connections: CONNECTIONS,
      mas: {
        dataDir: opts['data-dir'] && resolve(opts['data-dir']),
        databaseUrl,
        workers: opts.workers ? Number(opts.workers) : undefined,
      },
      write: (kind, data) => writeResults(kind, data),
    })
  } else if (opts.memory) await memoryBenchmark()
  else await apiBenchmark()
})
