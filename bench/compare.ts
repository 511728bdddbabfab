import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { runningUrl } from '../server/db/cluster.js'
import { OWNER } from './fixture.js'
import { load, type Driver, type Measure } from './load.js'
import { startMas, type ServerOptions } from './processes.js'
import { API, seededRecords } from './seeded.js'

// mas beside another implementation of the API under the same load: the five
// endpoints of the performance issue, each at every connection count, first on
// the reference service (seeded with its own seed, which writes IDS_JSON) and
// then on mas (seeded with npm run seed:bench). Then what the hardware allows:
// bulk creation on mas, and a pgbench one-row INSERT on mas's database.

interface Ids {
  tag_id: number
  tagSet_id: number
  tagClass_id: number
  mediaFile_id: number
}

export interface Target {
  base: string
  token: string
  ids: Ids
  postTagSet: number
}

export interface CompareOptions {
  reference: { base: string; token: string; idsFile: string }
  mas: ServerOptions
  driver: Driver
  duration: number
  connections: number[]
  write: (kind: string, data: unknown) => string
}

const ENDPOINTS = [
  { name: 'GET tag/{id}/', method: 'GET' as const, path: (t: Target) => `tag/${t.ids.tag_id}/` },
  {
    name: 'GET tagSet/{id}/tags/?page=500',
    method: 'GET' as const,
    path: (t: Target) => `tagSet/${t.ids.tagSet_id}/tags/?page=500`,
  },
  { name: 'GET mediaFile/?page=3', method: 'GET' as const, path: () => 'mediaFile/?page=3' },
  { name: 'GET jobs/?page=1', method: 'GET' as const, path: () => 'jobs/?page=1' },
  { name: 'POST tag/', method: 'POST' as const, path: () => 'tag/' },
]

/** The single tag the reference benchmark posts (its bench.sh body). */
const tagBody = (t: Target, i = 0) => ({
  tagClass: t.ids.tagClass_id,
  tagSet: t.postTagSet,
  mediaFile: t.ids.mediaFile_id,
  startTime: 1.0 + (i % 50) / 10,
  endTime: 1.5 + (i % 50) / 10,
  minFrequency: 200.0,
  maxFrequency: 2200.0,
  randomlyChosen: false,
  machineTagged: false,
  userTagged: true,
  strength: 0.5,
})

function request(t: Target, ep: (typeof ENDPOINTS)[number], connections: number, duration: number, body?: string) {
  const base = t.base.replace(/\/+$/, '').replace(/\/api\/v0$/, '')
  return {
    url: `${base}${API}/${ep.path(t)}`,
    method: ep.method,
    connections,
    duration,
    headers: {
      authorization: `Token ${t.token}`,
      ...(ep.method === 'POST' ? { 'content-type': 'application/json' } : {}),
    },
    body: ep.method === 'POST' ? (body ?? JSON.stringify(tagBody(t))) : undefined,
  }
}

const fmt = (n: number, w: number) => String(Number.isFinite(n) ? Math.round(n) : '?').padStart(w)
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '?').padStart(7)

/** One endpoint at one connection count on both services, one after the other, with the machine's load. */
export interface CompareRow {
  endpoint: string
  connections: number
  reference: Measure
  mas: Measure
  ratio: number
  load: number
}

/** The reference service's records from its seed's ids file. */
export function referenceTarget(base: string, token: string, idsFile: string): Target {
  const ids = JSON.parse(readFileSync(idsFile, 'utf8')) as Ids
  return { base, token, ids, postTagSet: ids.tagSet_id }
}

/** mas's seeded records (npm run seed:bench) on a running server. */
export async function masTarget(base: string): Promise<Target> {
  const seeded = await seededRecords(base)
  return {
    base,
    token: OWNER.token,
    postTagSet: seeded.writeSet.id,
    ids: {
      tag_id: seeded.aTag,
      tagSet_id: seeded.tagSet.id,
      tagClass_id: seeded.tagClass,
      mediaFile_id: seeded.files[0],
    },
  }
}

export const COMPARE_HEADER =
  `${'endpoint'.padEnd(34)}${'conn'.padStart(5)}${'ref r/s'.padStart(9)}${'p99'.padStart(7)}` +
  `${'mas r/s'.padStart(9)}${'p99'.padStart(7)}${'ratio'.padStart(8)}${'load'.padStart(6)}   (latency ms; load: 1-minute average)\n`

/** Every endpoint at every connection count, the reference first and then mas, each row printed as it is measured. */
export async function compareRound(
  reference: Target,
  mas: Target,
  driver: Driver,
  duration: number,
  connections: number[],
): Promise<CompareRow[]> {
  for (const t of [reference, mas]) await probe(t)
  const rows: CompareRow[] = []
  for (const ep of ENDPOINTS) {
    for (const c of connections) {
      // a short unrecorded run first: JIT, connection pools and caches warm for both
      await load(driver, request(reference, ep, c, 1))
      await load(driver, request(mas, ep, c, 1))
      const r = await load(driver, request(reference, ep, c, duration))
      const m = await load(driver, request(mas, ep, c, duration))
      const ratio = m.rps / r.rps
      const row = { endpoint: ep.name, connections: c, reference: r, mas: m, ratio, load: loadavg()[0] }
      rows.push(row)
      const bad = [r, m].some((x) => x.non2xx || x.errors)
        ? `  ! non-2xx ${r.non2xx}/${m.non2xx}, errors ${r.errors}/${m.errors}`
        : ''
      process.stdout.write(
        `${ep.name.padEnd(34)}${fmt(c, 5)}${fmt(r.rps, 9)}${ms(r.p99)}${fmt(m.rps, 9)}${ms(m.p99)}` +
          `${(ratio.toFixed(1) + 'x').padStart(8)}${row.load.toFixed(1).padStart(6)}${bad}\n`,
      )
    }
  }
  return rows
}

export async function compareBenchmark(o: CompareOptions): Promise<void> {
  const reference = referenceTarget(o.reference.base, o.reference.token, o.reference.idsFile)
  const server = await startMas(o.mas)
  try {
    const mas = await masTarget(server.base)
    process.stdout.write(
      `mas beside ${reference.base}: ${o.duration} s per measurement, load from ${o.driver}, ${cpus().length} cores\n\n`,
    )
    process.stdout.write(COMPARE_HEADER)
    const rows = await compareRound(reference, mas, o.driver, o.duration, o.connections)
    const bulk = await bulkCreation(o, mas)
    process.stdout.write(`\nPOST tag/ with arrays of 1,000 tags on mas, 4 connections: ${Math.round(bulk)} tags/s\n`)
    const url = o.mas.databaseUrl ?? (o.mas.dataDir ? await runningUrl(o.mas.dataDir) : undefined)
    const pgbench = url ? await pgbenchInsert(url, o.duration) : null
    process.stdout.write(
      pgbench === null
        ? 'pgbench: not installed or no database URL; no figure\n'
        : `pgbench, one-row INSERT in autocommit on mas's database, 32 clients: ${Math.round(pgbench)} transactions/s\n`,
    )
    process.stdout.write(
      `\nresults: ${o.write('compare', { date: new Date().toISOString(), driver: o.driver, durationSeconds: o.duration, rows, bulkTagsPerSecond: bulk, pgbenchInsertTps: pgbench })}\n`,
    )
  } finally {
    await server.stop()
  }
}

/** One request to every endpoint: each must answer 2xx before anything is measured. */
async function probe(t: Target): Promise<void> {
  for (const ep of ENDPOINTS) {
    const r = request(t, ep, 1, 1)
    const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body })
    if (res.status >= 300)
      throw new Error(`${t.base}: ${ep.name} answered ${res.status}: ${(await res.text()).slice(0, 200)}`)
    await res.arrayBuffer()
  }
}

async function bulkCreation(o: Pick<CompareOptions, 'driver' | 'duration'>, mas: Target): Promise<number> {
  const body = JSON.stringify(Array.from({ length: 1000 }, (_, i) => tagBody(mas, i)))
  const ep = ENDPOINTS[ENDPOINTS.length - 1]
  await load(o.driver, request(mas, ep, 4, 1, body))
  const m = await load(o.driver, request(mas, ep, 4, o.duration, body))
  if (m.non2xx || m.errors) throw new Error(`bulk POST: ${m.non2xx} non-2xx answers, ${m.errors} errors`)
  return (m.requests * 1000) / m.seconds
}

/** Transactions/s of a one-row INSERT at 32 clients, on a table of its own made and dropped here; null without pgbench. */
async function pgbenchInsert(url: string, seconds: number): Promise<number | null> {
  const db = new Kysely<Record<string, never>>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }),
  })
  const table = 'mas_bench_pgbench_insert'
  try {
    await sql`create table if not exists ${sql.table(table)} (id bigserial primary key, v int not null)`.execute(db)
    const dir = mkdtempSync(join(tmpdir(), 'mas-pgbench-'))
    const script = join(dir, 'insert.sql')
    writeFileSync(script, `insert into ${table} (v) values (1);\n`)
    const out = await new Promise<string | null>((resolve, reject) => {
      execFile(
        'pgbench',
        ['-n', '-c', '32', '-j', '2', '-T', String(seconds), '-f', script, url],
        (err, stdout, stderr) => {
          if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') resolve(null)
          else if (err) reject(new Error(`pgbench: ${stderr.trim() || err.message}`))
          else resolve(stdout)
        },
      )
    }).finally(() => rmSync(dir, { recursive: true, force: true }))
    const tps = out && /tps = ([\d.]+)/.exec(out)
    return tps ? Number(tps[1]) : null
  } finally {
    await sql`drop table if exists ${sql.table(table)}`.execute(db)
    await db.destroy()
  }
}
