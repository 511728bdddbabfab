import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { buildApp } from '../server/app.js'
import { tokenFor } from '../server/auth/routes.js'
import { migrate, openDatabase, type Database } from '../server/db/database.js'
import { localTimestamp } from '../server/db/time.js'
import { benchArgs, runBench, usageError } from './args.js'
import { load, wrkInstalled } from './load.js'
import { cpuSecondsOf, ownCpuSeconds } from './cpu.js'
import { postmasterOf, processTree, rssMiB } from './memory.js'
import { seasonOwner, seasonRecordings } from './seasonOwner.js'

// Scale benchmark (npm run bench:scale), the table of issue 35: one tag set grown by bulk SQL to 10^5, 10^6
// (and 10^7) tags over 10^4 media files and 10 classes; at each size, p50 and p99 of the lists and counts at
// 1 connection (one request at a time) and 8 (wrk), the database's size per 10^6 tags and the bulk rate.
// The data directory is kept (--data): a second run goes on from the tags already there. With --sets 100 (the
// issue's second run) the tags are dealt in turn to 100 tag sets, and the rows read the first of them.
// Beside the lists: the bulk rate of POST tag/ (arrays of 10,000, the most a request takes) and of
// `mas tag import`, into a tag set of their own, and each index's size.

const USAGE = `
npm run bench:scale [-- --tags N] [--data DIR] [--requests R] [--seconds S]

  --tags N       grow the tag set to N tags (default 1000000), measuring at 10^5, 10^6, 10^7 on the way
  --data DIR     the embedded PostgreSQL's data directory, kept between runs (default: mas-bench-scale in the temp directory)
  --requests R   requests one at a time per row (default 40)
  --seconds S    seconds of wrk at 8 connections per row (default 2; 0: no 8-connection column)
  --no-export    leave out the export of the tag set by mas tag export
  --sets K       deal the tags in turn to K tag sets (default 1; the issue's second run: 100); a data
                 directory keeps the number it was made with
  --import N     rows of the CSV that \`mas tag import\` reads at each size (default 100000; 0: none)
  --posts P      POST tag/ requests of 10,000 tags at each size (default 10; 0: none)
  --import-flags F  more flags for \`mas tag import\`, e.g. "--batch-size 10000 --concurrency 2"
`
const { values } = benchArgs(USAGE, {
  options: {
    tags: { type: 'string', default: '1000000' },
    data: { type: 'string' },
    requests: { type: 'string', default: '40' },
    seconds: { type: 'string', default: '2' },
    'no-export': { type: 'boolean', default: false },
    sets: { type: 'string', default: '1' },
    import: { type: 'string', default: '100000' },
    posts: { type: 'string', default: '10' },
    'import-flags': { type: 'string', default: '' },
  },
})
const TAGS = Number(values.tags)
const REQUESTS = Number(values.requests)
const SECONDS = Number(values.seconds)
const SETS = Number(values.sets)
const IMPORT = Number(values.import)
const POSTS = Number(values.posts)
const IMPORT_FLAGS = values['import-flags'].split(' ').filter(Boolean)
if (!Number.isInteger(TAGS) || TAGS < 100_000) usageError(USAGE, '--tags must be a whole number from 100000')
if (!Number.isInteger(SETS) || SETS < 1 || SETS > 1000)
  usageError(USAGE, '--sets must be a whole number from 1 to 1000')
if (!Number.isInteger(IMPORT) || IMPORT < 0 || !Number.isInteger(POSTS) || POSTS < 0)
  usageError(USAGE, '--import and --posts take whole numbers')
const POST_SIZE = 10_000
const FILES = 10_000
const CLASSES = 10
const CHUNK = 100_000
const CHECKPOINTS = [100_000, 1_000_000, 10_000_000, 100_000_000].filter((n) => n <= TAGS)

interface World {
  user: number
  /** the tag sets the tags are dealt to, in turn; the rows read the first */
  sets: number[]
  /** the tag set that POST tag/ and mas tag import write to */
  bulkSet: number
  files: number[]
  classes: number[]
  token: string
}

/** The owner, library, media files, classes and tag set, made once; found again on a later run. */
async function world(database: Database): Promise<World> {
  const db = database.db
  const now = localTimestamp()
  let user = await db.selectFrom('users').select('id').where('username', '=', 'scale').executeTakeFirst()
  if (!user) {
    const owner = await seasonOwner(db, 'scale', now)
    user = owner.user
    const library = owner.library
    await seasonRecordings(db, owner, FILES, now)
    await db
      .insertInto('tag_classes')
      .values(
        Array.from({ length: CLASSES }, (_, i) => ({
          user_id: user!.id,
          library_id: library.id,
          class_name: `class${i}`,
          display_name: `class ${i}`,
        })),
      )
      .execute()
    await db
      .insertInto('tag_sets')
      .values(
        Array.from({ length: SETS }, (_, i) => ({
          user_id: user!.id,
          name: i ? `recognizer ${i + 1}` : 'recognizer',
          library_id: library.id,
          creation_date: now,
        })),
      )
      .execute()
    await db
      .insertInto('tag_sets')
      .values({ user_id: user.id, name: 'bulk', library_id: library.id, creation_date: now })
      .execute()
  }
  const all = await db
    .selectFrom('tag_sets')
    .select(['id', 'name'])
    .where('user_id', '=', user.id)
    .orderBy('id')
    .execute()
  const sets = all.filter((s) => s.name !== 'bulk').map((s) => s.id)
  if (sets.length !== SETS)
    usageError(
      USAGE,
      `this data directory holds ${sets.length} tag sets of tags: give --sets ${sets.length}, or another --data`,
    )
  const bulkSet =
    all.find((s) => s.name === 'bulk')?.id ??
    (
      await db
        .insertInto('tag_sets') // a data directory of an older bench:scale
        .values({
          user_id: user.id,
          name: 'bulk',
          library_id: (
            await db.selectFrom('libraries').select('id').where('user_id', '=', user.id).executeTakeFirstOrThrow()
          ).id,
          creation_date: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
  const files = (
    await db.selectFrom('media_files').select('id').where('user_id', '=', user.id).orderBy('id').execute()
  ).map((r) => r.id)
  const classes = (
    await db.selectFrom('tag_classes').select('id').where('user_id', '=', user.id).orderBy('id').execute()
  ).map((r) => r.id)
  return { user: user.id, sets, bulkSet, files, classes, token: await tokenFor(db, user.id) }
}

/** Tags numbered from `from` to `to` (exclusive) in one statement: class g % 10, 100 tags a media file in turn, every other one by machine,
 * tag set g % SETS. */
async function addTags(database: Database, w: World, from: number, to: number): Promise<void> {
  const db = database.db
  const now = localTimestamp()
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
        .selectFrom(sql<{ g: number }>`generate_series(${from}::bigint, ${to - 1}::bigint)`.as('g'))
        .select([
          sql<number>`${w.user}::integer`.as('user_id'),
          sql<string>`${now}::timestamp`.as('creation_date'),
          sql<number>`(${w.classes}::integer[])[1 + g % ${CLASSES}]`.as('tag_class_id'),
          sql<number>`(${w.sets}::integer[])[1 + g % ${SETS}]`.as('tag_set_id'),
          sql<number>`(${w.files}::integer[])[1 + (g / 100) % ${FILES}]`.as('media_file_id'),
          sql<number>`(g % 3000) * 1.0`.as('start_time'),
          sql<number>`(g % 3000) * 1.0 + 0.8`.as('end_time'),
          sql<number>`1000.0`.as('min_frequency'),
          sql<number>`6000.0`.as('max_frequency'),
          sql<boolean>`g % 2 = 0`.as('machine_tagged'),
          sql<number>`random()`.as('strength'),
        ]),
    )
    .execute()
}

const tagsNow = async (database: Database, sets: number[]) =>
  Number(
    (
      await database.db
        .selectFrom('tags')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('tag_set_id', 'in', sets)
        .executeTakeFirstOrThrow()
    ).n,
  )

/** One request at a time, `REQUESTS` times after two to warm: p50 and p99 in ms. `url` may be a new one each time. */
async function oneAtATime(
  url: string | ((i: number) => string),
  headers: Record<string, string>,
): Promise<{ p50: number; p99: number }> {
  const times: number[] = []
  for (let i = 0; i < REQUESTS + 2; i++) {
    const started = process.hrtime.bigint()
    const res = await fetch(typeof url === 'string' ? url : url(i), { headers })
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`)
    await res.arrayBuffer()
    if (i >= 2) times.push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  times.sort((a, b) => a - b)
  return {
    p50: times[Math.floor(times.length / 2)],
    p99: times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)],
  }
}

const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1))

async function measure(origin: string, w: World, size: number, database: Database, dataDir: string): Promise<void> {
  const headers = { Authorization: `Token ${w.token}` }
  const api = `${origin}/api/v0`
  const s = w.sets[0]
  const inSet = Math.floor(size / SETS)
  const mid = await database.db
    .selectFrom('tags')
    .select('id')
    .where('tag_set_id', '=', s)
    .orderBy('id')
    .offset(Math.floor(inSet / 2))
    .limit(1)
    .executeTakeFirstOrThrow()
  // a user who wrote none of the set's tags: ?user= finds that out from the tags' user summaries (decisions §43)
  const stranger =
    (await database.db.selectFrom('users').select('id').where('username', '=', 'scale-stranger').executeTakeFirst()) ??
    (await database.db
      .insertInto('users')
      .values({ username: 'scale-stranger', password: 'x', date_joined: localTimestamp() })
      .returning('id')
      .executeTakeFirstOrThrow())
  // pages never asked for before, in the first half of the list (a quarter of the way in, one after another; their
  // remembered boundaries do not help, so each is read as a first-time deep page)
  const quarter = Math.max(2, Math.floor(inSet / 100 / 4))
  // page 500 (of 1,000 at 10^5 tags a set), or the middle page of a smaller set
  const middle = Math.min(500, Math.max(1, Math.floor(inSet / 100 / 2)))
  const start = Math.floor((Math.random() * quarter) / 2) // where in the first half they begin: not where the last measure began
  const rows: Array<[string, string | ((i: number) => string)]> = [
    ['GET tag/{id}/', `${api}/tag/${mid.id}/`],
    ['GET tagSet/{id}/tags/ first', `${api}/tagSet/${s}/tags/`],
    [`GET tagSet/{id}/tags/ page ${middle}`, `${api}/tagSet/${s}/tags/?page=${middle}`],
    ['GET tagSet/{id}/tags/ last', `${api}/tagSet/${s}/tags/?page=last`],
    ['GET tag/?tagSet first', `${api}/tag/?tagSet=${s}`],
    [`GET tag/?tagSet page ${middle}`, `${api}/tag/?tagSet=${s}&page=${middle}`],
    ['GET tag/?tagSet page=last', `${api}/tag/?tagSet=${s}&page=last`],
    [
      'GET tag/?tagSet page ~1/4, each first time',
      (i) => `${api}/tag/?tagSet=${s}&page=${quarter + ((start + 2 * i) % quarter)}`,
    ],
    ['GET tag/?tagSet&tagClass first', `${api}/tag/?tagSet=${s}&tagClass=${w.classes[3]}`],
    ['GET tag/?tagSet&tagClass last', `${api}/tag/?tagSet=${s}&tagClass=${w.classes[3]}&page=last`],
    ['GET tag/?tagSet&mediaFile first', `${api}/tag/?tagSet=${s}&mediaFile=${w.files[17]}`],
    ['GET tag/?tagSet&machineTagged first', `${api}/tag/?tagSet=${s}&machineTagged=true`],
    ['GET tag/?tagSet&user first, its writer', `${api}/tag/?tagSet=${s}&user=${w.user}`],
    ['GET tag/?tagSet&user first, a user without tags', `${api}/tag/?tagSet=${s}&user=${stranger.id}`],
    ['GET tag/?mediaFile&tagClass first', `${api}/tag/?mediaFile=${w.files[17]}&tagClass=${w.classes[7]}`],
    ['GET tag/?page_size=1 (count)', `${api}/tag/?page_size=1`],
    // no tag set named: the readable tags in id order, read by OFFSET past the first thousand (docs/decisions.md §23)
    ['GET tag/ page 11', `${api}/tag/?page=11`],
    [`GET tag/ page ${middle}`, `${api}/tag/?page=${middle}`],
    ['GET tag/ last', `${api}/tag/?page=last`],
    ['GET mediaFile/ last', `${api}/mediaFile/?page=last`],
  ]
  console.log(
    `\n### ${size.toLocaleString('en')} tags in ${SETS} tag set${SETS > 1 ? 's' : ''} (load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  )
  console.log(`| request | 1 connection p50 (p99) ms | 8 connections p50 (p99) ms |\n|---|---|---|`)
  for (const [name, url] of rows) {
    const one = await oneAtATime(url, headers)
    let eight = '—'
    if (SECONDS > 0 && typeof url === 'string') {
      const m = await load('wrk', { url, method: 'GET', headers, connections: 8, duration: SECONDS })
      if (m.errors + m.non2xx) throw new Error(`${name}: ${m.errors + m.non2xx} failed at 8 connections`)
      eight = m.requests < 16 ? `${m.requests} requests in ${SECONDS} s` : `${ms(m.p50)} (${ms(m.p99)})`
    }
    console.log(`| ${name} | ${ms(one.p50)} (${ms(one.p99)}) | ${eight} |`)
  }
  if (!values['no-export']) await exportTime(origin, w, inSet)
  await sizes(database)
  if (POSTS) await postRate(origin, w, dataDir)
  if (IMPORT) await importTime(origin, w)
}

/** The table's heap and each index, per 10^6 tags (of every tag set). */
async function sizes(database: Database): Promise<void> {
  const tags = await database.db
    .selectFrom('tags')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
  const per = (b: string | number) => (((Number(b) / Number(tags.n)) * 1e6) / 2 ** 20).toFixed(1)
  const heap = await sql<{
    heap: string
    indexes: string
  }>`select pg_table_size('tags') as heap, pg_indexes_size('tags') as indexes`.execute(database.db)
  const each = (await database.db
    .selectFrom('pg_indexes' as never)
    .select([sql<string>`indexname`.as('name'), sql<string>`pg_relation_size(indexname::regclass)`.as('bytes')])
    .where(sql.ref('tablename'), '=', 'tags')
    .orderBy(sql`2`, 'desc')
    .execute()) as Array<{ name: string; bytes: string }>
  console.log(
    `database, per 10^6 tags: ${per(heap.rows[0].heap)} MB heap + ${per(heap.rows[0].indexes)} MB indexes (${each.map((i) => `${i.name} ${per(i.bytes)}`).join(', ')})`,
  )
}

/** The tags of one POST tag/ of POST_SIZE, numbered from `from`: in the bulk tag set, each a new region. */
function postBody(w: World, from: number): string {
  return JSON.stringify(
    Array.from({ length: POST_SIZE }, (_, i) => ({
      tagSet: w.bulkSet,
      mediaFile: w.files[(from + i) % w.files.length],
      tagClass: w.classes[(from + i) % CLASSES],
      startTime: ((from + i) % 3000) + 0.25,
      endTime: ((from + i) % 3000) + 1,
      minFrequency: 1000,
      maxFrequency: 6000,
      machineTagged: true,
      strength: ((from + i) % 997) / 997,
    })),
  )
}

/** POSTS requests of POST_SIZE tags each, one at a time: tags/s, and the CPU time per tag of this process (the
 * server, and the request's sending and reading) and of the embedded PostgreSQL, which the load changes less. */
async function postRate(origin: string, w: World, dataDir: string): Promise<void> {
  const headers = { Authorization: `Token ${w.token}`, 'content-type': 'application/json' }
  let from = Date.now() % 1_000_000_000 // other runs' tags are in the bulk set: regions apart from theirs
  let seconds = 0,
    nodeCpu = 0,
    databaseCpu = 0
  const postmaster = postmasterOf(dataDir)
  const databaseSeconds = () => (postmaster ? cpuSecondsOf(processTree(postmaster)) : 0)
  for (let i = 0; i < POSTS; i++, from += POST_SIZE) {
    const body = postBody(w, from)
    const started = process.hrtime.bigint()
    const node = ownCpuSeconds(),
      database = databaseSeconds()
    const res = await fetch(`${origin}/api/v0/tag/`, { method: 'POST', headers, body })
    if (res.status !== 201) throw new Error(`POST tag/ answered ${res.status}: ${(await res.text()).slice(0, 300)}`)
    await res.arrayBuffer()
    seconds += Number(process.hrtime.bigint() - started) / 1e9
    nodeCpu += ownCpuSeconds() - node
    databaseCpu += databaseSeconds() - database
  }
  const perTag = (s: number) => ((s / (POSTS * POST_SIZE)) * 1e6).toFixed(1)
  console.log(
    `POST tag/ (arrays of ${POST_SIZE.toLocaleString('en')}, one at a time): ${(POSTS * POST_SIZE).toLocaleString('en')} tags in ${seconds.toFixed(1)} s, ` +
      `${Math.round((POSTS * POST_SIZE) / seconds).toLocaleString('en')} tags/s; CPU per tag: node ${perTag(nodeCpu)} µs, PostgreSQL ${perTag(databaseCpu)} µs ` +
      `(load average ${loadavg()[0].toFixed(2)})`,
  )
}

/** `mas tag import` of a CSV of IMPORT rows into the bulk tag set (the real binary, its defaults): time, rate and peak RSS. */
async function importTime(origin: string, w: World): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mas-bench-scale-import-'))
  try {
    const file = join(dir, 'tags.csv')
    const from = (Date.now() % 1_000_000_000) + 500_000_000
    let csv = 'mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency,strength\n'
    for (let i = 0; i < IMPORT; i++) {
      const g = from + i
      csv += `${w.files[g % w.files.length]},${w.classes[g % CLASSES]},${(g % 3000) + 0.5},${(g % 3000) + 1.25},1200,5000,${(g % 991) / 991}\n`
    }
    writeFileSync(file, csv)
    const started = Date.now()
    let peak = 0
    const child = spawn(
      process.execPath,
      ['bin/run.js', 'tag', 'import', file, '--tag-set', String(w.bulkSet), ...IMPORT_FLAGS],
      {
        env: { ...process.env, MAS_SERVER: origin, MAS_TOKEN: w.token, XDG_DATA_HOME: dir, HOME: dir },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    )
    const sample = setInterval(() => {
      peak = Math.max(peak, rssMiB(child.pid!))
    }, 50)
    let errors = ''
    // the CLI's progress lines ("sent N/M tags", one a batch off a terminal), timed as they come
    const progress: Array<{ at: number; sent: number }> = []
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString()
      errors += text
      for (const m of text.matchAll(/sent (\d+)\/\d+ tags/g)) progress.push({ at: Date.now(), sent: Number(m[1]) })
    })
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve))
    clearInterval(sample)
    if (status !== 0) throw new Error(`mas tag import: exit ${status}: ${errors.trim().split('\n').pop()}`)
    const seconds = (Date.now() - started) / 1000
    console.log(
      `mas tag import (CSV, ${IMPORT.toLocaleString('en')} rows${IMPORT_FLAGS.length ? `, ${IMPORT_FLAGS.join(' ')}` : ''}): ${seconds.toFixed(1)} s, ` +
        `${Math.round(IMPORT / seconds).toLocaleString('en')} tags/s${rateAtEnds(progress)}; CLI peak RSS ${peak.toFixed(0)} MiB (load average ${loadavg()[0].toFixed(2)})`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The rate over the first and the last tenth of an import's progress lines (does it fall as the table grows?). */
function rateAtEnds(progress: Array<{ at: number; sent: number }>): string {
  const tenth = Math.floor(progress.length / 10)
  if (tenth < 1) return ''
  const rate = (a: { at: number; sent: number }, b: { at: number; sent: number }) =>
    Math.round(((b.sent - a.sent) / Math.max(b.at - a.at, 1)) * 1000)
  const last = progress.length - 1
  return ` (${rate(progress[0], progress[tenth]).toLocaleString('en')} over its first tenth, ${rate(progress[last - tenth], progress[last]).toLocaleString('en')} over its last)`
}

/** `mas tag export --tag-set` of the whole set as CSV (the real binary, its output counted and dropped): time,
 * rate, and the peak resident memory of the CLI and of the server (this process, which runs it). */
async function exportTime(origin: string, w: World, inSet: number): Promise<void> {
  const started = Date.now()
  const serverBefore = rssMiB(process.pid)
  let lines = 0,
    cliPeak = 0,
    serverPeak = serverBefore
  const child = spawn(
    process.execPath,
    ['bin/run.js', 'tag', 'export', '--tag-set', String(w.sets[0]), '--format', 'csv'],
    { env: { ...process.env, MAS_SERVER: origin, MAS_TOKEN: w.token }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const sample = setInterval(() => {
    cliPeak = Math.max(cliPeak, rssMiB(child.pid!))
    serverPeak = Math.max(serverPeak, rssMiB(process.pid))
  }, 50)
  child.stdout.on('data', (chunk: Buffer) => {
    for (const b of chunk) if (b === 10) lines++
  })
  let errors = ''
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString()
  })
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve))
  clearInterval(sample)
  if (lines - 1 !== inSet) throw new Error(`mas tag export wrote ${lines - 1} tags of ${inSet}`)
  if (status !== 0) throw new Error(`mas tag export: exit ${status}: ${errors.trim().split('\n').pop()}`)
  const seconds = (Date.now() - started) / 1000
  console.log(
    `mas tag export --tag-set (CSV): ${(lines - 1).toLocaleString('en')} tags in ${seconds.toFixed(1)} s, ` +
      `${Math.round((lines - 1) / seconds).toLocaleString('en')} tags/s; peak RSS: CLI ${cliPeak.toFixed(0)} MiB, server ${serverPeak.toFixed(0)} MiB (${serverBefore.toFixed(0)} before)`,
  )
}

async function main() {
  if (SECONDS > 0 && !wrkInstalled())
    throw new Error('wrk is not installed (Debian: apt-get install -y wrk), or pass --seconds 0')
  const dataDir = values.data ?? join(tmpdir(), 'mas-bench-scale')
  mkdirSync(dataDir, { recursive: true })
  const database = await openDatabase({ dataDir })
  await migrate(database.db)
  const app = await buildApp({ database, config: { dataDir, mediaDir: join(dataDir, 'media') } })
  try {
    const w = await world(database)
    const origin = await app.listen({ port: 0, host: '127.0.0.1' })
    let have = await tagsNow(database, w.sets)
    console.log(`${have.toLocaleString('en')} tags in the tag set${SETS > 1 ? 's' : ''} already`)
    for (const size of CHECKPOINTS) {
      if (have < size) {
        const started = Date.now()
        const from = have
        for (; have < size; have = Math.min(size, have + CHUNK))
          await addTags(database, w, have, Math.min(size, have + CHUNK))
        const seconds = (Date.now() - started) / 1000
        console.log(
          `added ${(size - from).toLocaleString('en')} tags by bulk SQL in ${seconds.toFixed(1)} s: ${Math.round((size - from) / seconds).toLocaleString('en')} tags/s`,
        )
        await sql`vacuum analyze tags`.execute(database.db)
      }
      // the last checkpoint is measured only when the tag set is that size; a larger tag set skips the smaller ones
      if (have === size) await measure(origin, w, size, database, dataDir)
    }
  } finally {
    await app.close()
    await database.close()
  }
}

await runBench(main)
