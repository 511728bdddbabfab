import { spawn } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { sql } from 'kysely'
import { buildApp } from '../server/app.js'
import { tokenFor } from '../server/auth/routes.js'
import { migrate, openDatabase, type Database } from '../server/db/database.js'
import { localTimestamp } from '../server/db/time.js'
import { tempDir } from '../test/helpers/tempDir.js'
import { benchArgs, runBench, usageError } from './args.js'
import { ROOT } from './processes.js'
import { seasonOwner } from './seasonOwner.js'

// Camtrap DP export benchmark (npm run bench:camtrap): `mas tag export --format camtrap-dp -o DIR` end to end (the
// real binary against a server on an embedded PostgreSQL of its own) over tag sets of 10^5 and 10^6 machine tags
// (BENCH_SIZES) on 10^4 recordings, a tenth of them reviewed; prints observation rows written a second (issue 46's
// target: >= 150,000) and the CLI's peak memory. With --compare-with, each package is also written by the `mas` of
// another checkout on the same server and data, in the order this, that, that, this (so neither gains from going
// first or last), and the two packages compared.

const USAGE = `
npm run bench:camtrap [-- --cpu-prof DIR] [--compare-with DIR] [--rounds N]

  --cpu-prof DIR      write the CLI's CPU profiles into DIR
  --compare-with DIR  also write each package with the \`mas\` of the checkout DIR (built), alternating
                      ABBA; the benchmark fails when the two packages differ (datapackage.json's creation time aside)
  --rounds N          how many times each export is measured (default 1; each an ABBA with --compare-with)
  BENCH_SIZES (default 100000,1000000): the tag sets' sizes
`
const { values } = benchArgs(USAGE, {
  options: { 'cpu-prof': { type: 'string' }, 'compare-with': { type: 'string' }, rounds: { type: 'string' } },
})
const CPU_PROF = values['cpu-prof']
const OTHER_MAS = values['compare-with'] === undefined ? undefined : resolve(values['compare-with'], 'bin/run.js')
if (OTHER_MAS && !existsSync(OTHER_MAS)) usageError(USAGE, `--compare-with: no ${OTHER_MAS}`)
const ROUNDS = Number(values.rounds ?? 1)
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) usageError(USAGE, '--rounds: a whole number from 1')
const SIZES = (process.env.BENCH_SIZES ?? '100000,1000000').split(',').map(Number)
const FILES = 10_000

async function seed(database: Database): Promise<{ sets: { size: number; id: number }[]; token: string }> {
  const db = database.db
  const now = localTimestamp()
  const { user, library } = await seasonOwner(db, 'publisher', now)
  const rows = Array.from({ length: FILES }, (_, i) => ({
    file: `f${i}.wav`,
    alias: `site${i % 20}/2026${String(5 + Math.floor(i / 5000)).padStart(2, '0')}01_${String(i % 24).padStart(2, '0')}0000_${i}.WAV`,
    user_id: user.id,
    library_id: library.id,
    type_id: 1,
    upload_date: now,
    active: true,
    has_transcript: false,
    real_start_time: `2026-05-${String(1 + (i % 28)).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:00:00`,
  }))
  const files: { id: number }[] = []
  for (let i = 0; i < rows.length; i += 2000)
    files.push(
      ...(await db
        .insertInto('media_files')
        .values(rows.slice(i, i + 2000))
        .returning('id')
        .execute()),
    )
  const classes = await db
    .insertInto('tag_classes')
    .values(
      ['Turdus merula', 'Erithacus rubecula', 'Troglodytes troglodytes'].map((c) => ({
        user_id: user.id,
        library_id: library.id,
        class_name: c,
        display_name: c,
      })),
    )
    .returning('id')
    .execute()
  const fileIds = files.map((f) => f.id)
  const classIds = classes.map((c) => c.id)
  const provenance = JSON.stringify({ source: 'BirdNET-Analyzer', version: '2.4', parameters: { minConf: 0.25 } })
  const sets = []
  for (const size of SIZES) {
    const started = Date.now()
    const tagSet = await db
      .insertInto('tag_sets')
      .values({ user_id: user.id, name: `detector ${size}`, library_id: library.id, creation_date: now })
      .returning('id')
      .executeTakeFirstOrThrow()
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
        'provenance',
      ])
      .expression(
        db
          .selectFrom(sql<{ g: number }>`generate_series(0, ${size - 1})`.as('g'))
          .select([
            sql<number>`${user.id}::integer`.as('user_id'),
            sql<string>`${now}::timestamp`.as('creation_date'),
            sql<number>`(${classIds}::integer[])[1 + g % 3]`.as('tag_class_id'),
            sql<number>`${tagSet.id}::integer`.as('tag_set_id'),
            sql<number>`(${fileIds}::integer[])[1 + (g / 3) % ${FILES}]`.as('media_file_id'),
            sql<number>`(g % 57) * 1.0`.as('start_time'),
            sql<number>`(g % 57) * 1.0 + 3.0`.as('end_time'),
            sql<number>`1000.0`.as('min_frequency'),
            sql<number>`6000.0`.as('max_frequency'),
            sql<boolean>`true`.as('machine_tagged'),
            sql<number>`random()`.as('strength'),
            sql<string>`${provenance}::json`.as('provenance'),
          ]),
      )
      .execute()
    // a tenth of the tags decided, as a season's review leaves them
    await sql`insert into tag_reviews (tag_id, user_id, decision, creation_date)
      select id, ${user.id}, (array['yes', 'no', 'unsure'])[1 + id % 3], ${now}::timestamp from tags where tag_set_id = ${tagSet.id} and id % 10 = 0`.execute(
      db,
    )
    console.log(
      `seeded ${size.toLocaleString('en')} tags (${(size / 10).toLocaleString('en')} reviewed) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    )
    sets.push({ size, id: tagSet.id })
  }
  await sql`vacuum analyze`.execute(db)
  return { sets, token: await tokenFor(db, user.id) }
}

/** Runs `mas args` (this checkout's, or `bin`), answering its wall time and peak resident memory (the kernel's
 * VmHWM, read while it runs). */
function mas(
  args: string[],
  env: Record<string, string>,
  bin = join(ROOT, 'bin/run.js'),
): Promise<{ seconds: number; peakMb: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const prof = CPU_PROF && bin === join(ROOT, 'bin/run.js') ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF] : []
    const child = spawn(process.execPath, [...prof, bin, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    let peak = 0
    const sample = setInterval(() => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))
        if (hwm) peak = Math.max(peak, Number(hwm[1]) / 1024)
      } catch {
        /* ended */
      }
    }, 50)
    child.stderr.on('data', (d) => {
      stderr += d
    })
    child.on('error', reject)
    child.on('close', (code) => {
      clearInterval(sample)
      if (code !== 0) reject(new Error(`mas ${args.join(' ')} exited ${code}: ${stderr}`))
      else resolve({ seconds: Number(process.hrtime.bigint() - started) / 1e9, peakMb: peak, stderr })
    })
  })
}

/** Fails unless the packages in `a` and `b` hold the same files, byte for byte but for datapackage.json's `created`. */
function samePackage(a: string, b: string): void {
  for (const name of ['observations.csv', 'media.csv', 'deployments.csv', 'datapackage.json']) {
    const text = (dir: string) => readFileSync(join(dir, name), 'utf8').replace(/"created": "[^"]*"/, '')
    if (text(a) !== text(b)) throw new Error(`${name} differs between this mas's package and the other's`)
  }
}

async function main() {
  const dataDir = tempDir('mas-bench-camtrap-')
  const database = await openDatabase({ dataDir })
  await migrate(database.db)
  const app = await buildApp({ database, config: { dataDir, mediaDir: join(dataDir, 'media') } })
  const out = tempDir('mas-bench-camtrap-out-')
  try {
    const { sets, token } = await seed(database)
    const origin = await app.listen({ port: 0, host: '127.0.0.1' })
    const env = { MAS_SERVER: origin, MAS_TOKEN: token, HOME: out, XDG_CONFIG_HOME: join(out, 'config') }
    console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
    for (const { size, id } of sets) {
      // the floor: the same tags as NDJSON to stdout, the export that does least with each tag
      const floor = await mas(['tag', 'export', '--tag-set', String(id), '--format', 'ndjson'], env)
      console.log(
        `${size.toLocaleString('en')} tags, --format ndjson (for comparison): ${floor.seconds.toFixed(2)} s, ${Math.round(size / floor.seconds).toLocaleString('en')} rows/s`,
      )
      for (const [what, extra] of [
        ['every tag', []],
        ['--reviewed-only', ['--reviewed-only']],
      ] as const) {
        const args = (dir: string) => [
          'tag',
          'export',
          '--tag-set',
          String(id),
          '--format',
          'camtrap-dp',
          '-o',
          dir,
          '--latitude',
          '50.1',
          '--longitude',
          '5.2',
          ...extra,
        ]
        const line = (run: Awaited<ReturnType<typeof mas>>, who = '') => {
          const rows = Number(/wrote .*: (\d+) observations?/.exec(run.stderr)?.[1] ?? NaN)
          console.log(
            `${size.toLocaleString('en')} tags, ${what}${who}: ${rows.toLocaleString('en')} observation rows in ${run.seconds.toFixed(2)} s: ` +
              `${Math.round(size / run.seconds).toLocaleString('en')} tags/s read, ${Math.round(rows / run.seconds).toLocaleString('en')} rows/s written; ` +
              `CLI peak ${run.peakMb.toFixed(0)} MB (target >= 150,000 rows/s)`,
          )
        }
        for (let round = 0; round < ROUNDS; round++) {
          const dir = join(out, `package-${size}-${extra.length}`)
          const first = await mas(args(dir), env)
          line(first)
          if (!OTHER_MAS) {
            rmSync(dir, { recursive: true, force: true })
            continue
          }
          const theirs = join(out, `package-${size}-${extra.length}-other`)
          const others = []
          for (let k = 0; k < 2; k++) {
            rmSync(theirs, { recursive: true, force: true })
            others.push(await mas(args(theirs), env, OTHER_MAS))
            line(others[k], ' (the other mas)')
          }
          rmSync(dir, { recursive: true, force: true })
          const again = await mas(args(dir), env)
          line(again)
          samePackage(dir, theirs)
          const ours = (first.seconds + again.seconds) / 2
          const other = (others[0].seconds + others[1].seconds) / 2
          console.log(
            `  ABBA means: this ${ours.toFixed(2)} s, the other ${other.toFixed(2)} s, ×${(other / ours).toFixed(2)}; the same package`,
          )
          rmSync(dir, { recursive: true, force: true })
          rmSync(theirs, { recursive: true, force: true })
        }
      }
    }
  } finally {
    await app.close()
    await database.close()
    rmSync(out, { recursive: true, force: true })
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await runBench(main)
