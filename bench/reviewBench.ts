import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { buildApp } from '../server/app.js'
import { tokenFor } from '../server/auth/routes.js'
import { migrate, openDatabase, type Database } from '../server/db/database.js'
import { localTimestamp } from '../server/db/time.js'
import { tempDir } from '../test/helpers/tempDir.js'
import { benchArgs, runBench } from './args.js'
import { cpuSeconds } from './importServer.js'
import { load, parseWrk, wrkInstalled, type Measure } from './load.js'
import { postmasterOf, processTree } from './memory.js'
import { seasonOwner } from './seasonOwner.js'

// Review benchmark (npm run bench:review), the figures of issue 34 on a tag set of BENCH_TAGS (10^6) machine tags:
//   the next 20 of the review queue (strata) at 8 connections: p99 (target < 30 ms)
//   decisions recorded (POST tagReview/ on random tags of the set, 8 connections): per second (target >= 2,000)
//   the summary (GET tagSet/{id}/reviewSummary/), one at a time: p50 and p99 (target < 200 ms)
// and, for each load, the CPU per request of mas (this process) and of the embedded PostgreSQL (every process of its
// data directory), which a shared machine's load moves less than the rates.
// on the embedded PostgreSQL of a data directory of its own, or in a schema of its own of BENCH_DATABASE_URL.
// The load comes from wrk, in its own process.

const USAGE = `
npm run bench:review [-- --seconds S]

  --seconds S   how long each load runs (default 10)
  BENCH_TAGS (default 1000000) machine tags; BENCH_DATABASE_URL: run on that PostgreSQL instead of an embedded one
`
const { values } = benchArgs(USAGE, { options: { seconds: { type: 'string', default: '10' } } })
const SECONDS = Number(values.seconds)
const TAGS = Number(process.env.BENCH_TAGS ?? 1_000_000)
const FILES = 200

async function openBenchDatabase(): Promise<{ database: Database; dataDir: string; drop: () => Promise<void> }> {
  const dataDir = tempDir('mas-bench-review-')
  const url = process.env.BENCH_DATABASE_URL
  if (!url) return { database: await openDatabase({ dataDir }), dataDir, drop: async () => {} }
  const schema = `bench_review_${randomBytes(4).toString('hex')}`
  const c = new pg.Client(url)
  await c.connect()
  await c.query(`create schema ${schema}`)
  await c.end()
  return {
    database: await openDatabase({ url, schema }),
    dataDir,
    drop: async () => {
      const d = new pg.Client(url)
      await d.connect()
      await d.query(`drop schema ${schema} cascade`)
      await d.end()
    },
  }
}

/** Seeds a tag set of TAGS machine tags with strengths spread over 0..1, over FILES media files and three classes. */
async function seed(database: Database): Promise<{ tagSet: number; firstTag: number; lastTag: number; token: string }> {
  const db = database.db
  const now = localTimestamp()
  const { user, library } = await seasonOwner(db, 'reviewer', now)
  const files = await db
    .insertInto('media_files')
    .values(
      Array.from({ length: FILES }, (_, i) => ({
        file: `f${i}.wav`,
        alias: `site/f${i}.wav`,
        user_id: user.id,
        library_id: library.id,
        type_id: 1,
        upload_date: now,
        active: true,
        has_transcript: false,
      })),
    )
    .returning('id')
    .execute()
  const classes = await db
    .insertInto('tag_classes')
    .values(
      ['blackbird', 'robin', 'wren'].map((c) => ({
        user_id: user.id,
        library_id: library.id,
        class_name: c,
        display_name: c,
      })),
    )
    .returning('id')
    .execute()
  const tagSet = await db
    .insertInto('tag_sets')
    .values({ user_id: user.id, name: 'detector', library_id: library.id, creation_date: now })
    .returning('id')
    .executeTakeFirstOrThrow()
  const started = Date.now()
  const fileIds = files.map((f) => f.id)
  const classIds = classes.map((c) => c.id)
  await db
    .insertInto('tags')
    .columns([
      'user_id',
      'creation_date',
      'tag_class_id',
      'tag_set_id',
      'media_file_id',
      'start_time',
      'end_time',
      'min_frequency',
      'max_frequency',
      'machine_tagged',
      'strength',
    ])
    .expression(
      db
        .selectFrom(sql<{ g: number }>`generate_series(0, ${TAGS - 1})`.as('g'))
        .select([
          sql<number>`${user.id}::integer`.as('user_id'),
          sql<string>`${now}::timestamp`.as('creation_date'),
          sql<number>`(${classIds}::integer[])[1 + g % 3]`.as('tag_class_id'),
          sql<number>`${tagSet.id}::integer`.as('tag_set_id'),
          sql<number>`(${fileIds}::integer[])[1 + (g / 3) % ${FILES}]`.as('media_file_id'),
          sql<number>`(g % 3000) * 1.0`.as('start_time'),
          sql<number>`(g % 3000) * 1.0 + 0.8`.as('end_time'),
          sql<number>`1000.0`.as('min_frequency'),
          sql<number>`6000.0`.as('max_frequency'),
          sql<boolean>`true`.as('machine_tagged'),
          sql<number>`random()`.as('strength'),
        ]),
    )
    .execute()
  await sql`vacuum analyze tags`.execute(db)
  const range = await db
    .selectFrom('tags')
    .where('tag_set_id', '=', tagSet.id)
    .select((eb) => [eb.fn.min('id').as('low'), eb.fn.max('id').as('high')])
    .executeTakeFirstOrThrow()
  console.log(
    `seeded ${TAGS.toLocaleString('en')} machine tags over ${FILES} media files in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  )
  return {
    tagSet: tagSet.id,
    firstTag: Number(range.low),
    lastTag: Number(range.high),
    token: await tokenFor(db, user.id),
  }
}

/** CPU seconds so far of mas (this process) and of the embedded PostgreSQL (none on BENCH_DATABASE_URL): the
 * postmaster's own and that of its children that have ended (its cutime and cstime: a backend or autovacuum
 * worker that exits during a load would otherwise take its CPU with it), and of those still running. */
function cpuNow(dataDir: string): { mas: number; postgres: number | null } {
  const postmaster = postmasterOf(dataDir)
  let postgres = 0
  for (const pid of postmaster ? processTree(postmaster) : []) {
    try {
      postgres += cpuSeconds(pid)
    } catch {
      /* a backend gone meanwhile */
    }
  }
  if (postmaster) postgres += endedChildrenCpuSeconds(postmaster)
  const { user, system } = process.cpuUsage()
  return { mas: (user + system) / 1e6, postgres: postmaster ? postgres : null }
}

/** The CPU seconds of the ended children of `pid` that it has waited for (/proc's cutime + cstime). */
function endedChildrenCpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ')
    return (Number(fields[13]) + Number(fields[14])) / 100
  } catch {
    return 0
  }
}

/** `m` with the CPU that mas and PostgreSQL spent on each of its requests (from CPU samples before and after). */
interface Measured {
  m: Measure
  masMs: number
  postgresMs: number | null
}

async function measured(dataDir: string, run: () => Promise<Measure>): Promise<Measured> {
  const before = cpuNow(dataDir)
  const m = await run()
  const after = cpuNow(dataDir)
  const per = (a: number, b: number) => (1000 * (a - b)) / Math.max(1, m.requests)
  return {
    m,
    masMs: per(after.mas, before.mas),
    postgresMs: after.postgres === null || before.postgres === null ? null : per(after.postgres, before.postgres),
  }
}

const show = (what: string, { m, masMs, postgresMs }: Measured, target: string) =>
  console.log(
    `${what}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, ${m.errors + m.non2xx} failed (${target}); ` +
      `CPU a request: mas ${masMs.toFixed(3)} ms${postgresMs === null ? '' : `, PostgreSQL ${postgresMs.toFixed(3)} ms`}`,
  )

/** POST tagReview/ on random tags of the set, from wrk at 8 connections. */
async function decisions(origin: string, token: string, first: number, last: number): Promise<Measure> {
  const dir = mkdtempSync(join(tmpdir(), 'mas-wrk-review-'))
  try {
    const script = join(dir, 'decide.lua')
    writeFileSync(
      script,
      [
        'wrk.method = "POST"',
        `wrk.headers["Authorization"] = "Token ${token}"`,
        'wrk.headers["Content-Type"] = "application/json"',
        'local threads = 0',
        'setup = function(thread) threads = threads + 1; thread:set("seed", threads) end',
        'init = function(args) math.randomseed(seed * 7919 + os.time()) end',
        'local verdicts = { "yes", "yes", "no", "unsure" }',
        'request = function()',
        `  local body = string.format('{"tag": %d, "decision": "%s"}', math.random(${first}, ${last}), verdicts[math.random(1, 4)])`,
        '  return wrk.format(nil, nil, nil, body)',
        'end',
        '',
      ].join('\n'),
    )
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        'wrk',
        ['-t2', '-c8', `-d${SECONDS}s`, '--timeout', '30s', '--latency', '-s', script, `${origin}/api/v0/tagReview/`],
        { maxBuffer: 1 << 20 },
        (err, stdout, stderr) => (err ? reject(new Error(`wrk: ${stderr || err.message}`)) : resolve(stdout)),
      )
    })
    return parseWrk(out)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main() {
  if (!wrkInstalled()) throw new Error('wrk is not installed (Debian: apt-get install -y wrk)')
  const { database, dataDir, drop } = await openBenchDatabase()
  await migrate(database.db)
  const app = await buildApp({ database, config: { dataDir, mediaDir: join(dataDir, 'media') } })
  try {
    const s = await seed(database)
    const origin = await app.listen({ port: 0, host: '127.0.0.1' })
    const auth = { Authorization: `Token ${s.token}` }
    const queueUrl = `${origin}/api/v0/tagSet/${s.tagSet}/reviewQueue/?n=20`
    // warm: plans and caches
    await load('wrk', { url: queueUrl, method: 'GET', headers: auth, connections: 8, duration: 2 })
    // what this machine gives any request at this moment (it may be shared): a tag set's detail, the cheapest read
    console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
    show(
      'baseline: GET tagSet/{id}/, 8 connections',
      await measured(dataDir, () =>
        load('wrk', {
          url: `${origin}/api/v0/tagSet/${s.tagSet}/`,
          method: 'GET',
          headers: auth,
          connections: 8,
          duration: SECONDS,
        }),
      ),
      'for comparison',
    )
    show(
      'queue, next 20 (strata), 8 connections',
      await measured(dataDir, () =>
        load('wrk', { url: queueUrl, method: 'GET', headers: auth, connections: 8, duration: SECONDS }),
      ),
      'target p99 < 30 ms',
    )
    const decided = await measured(dataDir, () => decisions(origin, s.token, s.firstTag, s.lastTag))
    show('decisions (POST tagReview/), 8 connections', decided, 'target >= 2,000 a second')
    const count = await database.db
      .selectFrom('tag_reviews')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    console.log(`${Number(count.n).toLocaleString('en')} decisions recorded`)
    show(
      'queue after the decisions, 8 connections',
      await measured(dataDir, () =>
        load('wrk', { url: queueUrl, method: 'GET', headers: auth, connections: 8, duration: SECONDS }),
      ),
      'target p99 < 30 ms',
    )
    const times: number[] = []
    for (let i = 0; i < 20; i++) {
      const started = process.hrtime.bigint()
      const res = await fetch(`${origin}/api/v0/tagSet/${s.tagSet}/reviewSummary/`, { headers: auth })
      if (res.status !== 200) throw new Error(`reviewSummary answered ${res.status}`)
      await res.arrayBuffer()
      times.push(Number(process.hrtime.bigint() - started) / 1e6)
    }
    const first = times[0]
    times.sort((a, b) => a - b)
    console.log(
      `summary (GET reviewSummary/), one at a time, 20 times: first ${first.toFixed(1)} ms, p50 ${times[9].toFixed(1)} ms, max ${times[19].toFixed(1)} ms (target < 200 ms)`,
    )
    console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
  } finally {
    await app.close()
    await database.close()
    await drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await runBench(main)
