import { readFileSync, rmSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { buildApp } from '../server/app.js'
import { REPORTS } from '../server/analysis/activityReports.js'
import { tokenFor } from '../server/auth/routes.js'
import { migrate, openDatabase, type Database } from '../server/db/database.js'
import { localTimestamp } from '../server/db/time.js'
import { tempDir } from '../test/helpers/tempDir.js'
import { benchArgs, runBench } from './args.js'
import { seasonOwner } from './seasonOwner.js'

// Activity reports benchmark (npm run bench:reports), the figure of issue 46: each report
// (GET tagSet/{id}/report/{name}/, and the library's) over a tag set of BENCH_TAGS (10^6) machine tags, a season of
// 60 days of hour-long recordings at 8 sensors, 20 classes, and 10^4 reviewed tags; target ≤ 2 s each.
// On the embedded PostgreSQL of a data directory of its own.

const USAGE = `
npm run bench:reports [-- --runs N]

  --runs N   how many times each report is asked for (default 3; the best and the worst are printed)
  BENCH_TAGS (default 1000000) machine tags
`
const { values } = benchArgs(USAGE, { options: { runs: { type: 'string', default: '3' } } })
const RUNS = Math.max(1, Number(values.runs))
const TAGS = Number(process.env.BENCH_TAGS ?? 1_000_000)
const SENSORS = 8
const DAYS = 60
/** recordings of an hour, every other hour of each day at each sensor */
const FILES = SENSORS * DAYS * 12
const CLASSES = 20
const REVIEWED = 10_000

async function seed(database: Database): Promise<{ tagSet: number; library: number; token: string }> {
  const db = database.db
  const now = localTimestamp()
  const { user, library } = await seasonOwner(db, 'ecologist', now)
  const sensors = await db
    .insertInto('sensors')
    .values(Array.from({ length: SENSORS }, (_, i) => ({ user_id: user.id, name: `site${i}`, sensor_array_id: null })))
    .returning('id')
    .execute()
  const files = await db
    .insertInto('media_files')
    .columns(['file', 'alias', 'user_id', 'library_id', 'type_id', 'upload_date', 'sensor_id', 'real_start_time'])
    .expression(
      db
        .selectFrom(sql<{ g: number }>`generate_series(0, ${FILES - 1})`.as('g'))
        .select([
          sql<string>`'f' || g || '.wav'`.as('file'),
          sql<string>`'site' || (g % ${SENSORS}) || '/f' || g || '.wav'`.as('alias'),
          sql<number>`${user.id}::integer`.as('user_id'),
          sql<number>`${library.id}::integer`.as('library_id'),
          sql<number>`1`.as('type_id'),
          sql<string>`${now}::timestamp`.as('upload_date'),
          sql<number>`(${sensors.map((s) => s.id)}::integer[])[1 + g % ${SENSORS}]`.as('sensor_id'),
          sql<string>`timestamp '2026-04-01 00:00:00' + (g / ${SENSORS}) * interval '2 hours'`.as('real_start_time'),
        ]),
    )
    .returning('id')
    .execute()
  const fileIds = files.map((f) => f.id)
  await db
    .insertInto('media_file_metadata')
    .columns(['media_file_id', 'name', 'value', 'user_editable'])
    .expression(
      db
        .selectFrom('media_files as f')
        .where('f.library_id', '=', library.id)
        .select([
          'f.id as media_file_id',
          sql<string>`'durationInSeconds'`.as('name'),
          sql<string>`'3600'`.as('value'),
          sql<boolean>`false`.as('user_editable'),
        ]),
    )
    .execute()
  const classes = await db
    .insertInto('tag_classes')
    .values(
      Array.from({ length: CLASSES }, (_, i) => ({
        user_id: user.id,
        library_id: library.id,
        class_name: `species${i}`,
        display_name: '',
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
          sql<number>`(${classes.map((c) => c.id)}::integer[])[1 + g % ${CLASSES}]`.as('tag_class_id'),
          sql<number>`${tagSet.id}::integer`.as('tag_set_id'),
          sql<number>`(${fileIds}::integer[])[1 + (g / ${CLASSES}) % ${FILES}]`.as('media_file_id'),
          sql<number>`(g % 3597) * 1.0`.as('start_time'),
          sql<number>`(g % 3597) * 1.0 + 3`.as('end_time'),
          sql<number>`1000.0`.as('min_frequency'),
          sql<number>`6000.0`.as('max_frequency'),
          sql<boolean>`true`.as('machine_tagged'),
          sql<number>`random()`.as('strength'),
        ]),
    )
    .execute()
  await db
    .insertInto('tag_reviews')
    .columns(['tag_id', 'user_id', 'decision', 'tag_class_id', 'creation_date'])
    .expression(
      db
        .selectFrom('tags')
        .where('tag_set_id', '=', tagSet.id)
        .orderBy(sql`random()`)
        .limit(REVIEWED)
        .select([
          'id as tag_id',
          sql<number>`${user.id}::integer`.as('user_id'),
          sql<string>`case when random() < strength then 'yes' else 'no' end`.as('decision'),
          sql<null>`null::integer`.as('tag_class_id'),
          sql<string>`${now}::timestamp`.as('creation_date'),
        ]),
    )
    .execute()
  await sql`vacuum analyze`.execute(db)
  console.log(
    `seeded ${TAGS.toLocaleString('en')} machine tags (${REVIEWED.toLocaleString('en')} reviewed) over ${FILES.toLocaleString('en')} recordings ` +
      `at ${SENSORS} sensors in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  )
  return { tagSet: tagSet.id, library: library.id, token: await tokenFor(db, user.id) }
}

async function main() {
  const dataDir = tempDir('mas-bench-reports-')
  const database = await openDatabase({ dataDir })
  await migrate(database.db)
  const app = await buildApp({ database, config: { dataDir, mediaDir: join(dataDir, 'media') } })
  try {
    const s = await seed(database)
    const auth = { authorization: `Token ${s.token}` }
    // the floor: one pass over the set's tags, reading the columns a report reads, with nothing computed
    const floor: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const started = process.hrtime.bigint()
      await database.db
        .selectFrom('tags')
        .where('tag_set_id', '=', s.tagSet)
        .select(sql<number>`count(*) + sum(start_time) + sum(media_file_id) + sum(tag_class_id)`.as('n'))
        .execute()
      floor.push(Number(process.hrtime.bigint() - started) / 1e6)
    }
    console.log(
      `load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} on ${availableParallelism()} cores; ` +
        `one pass over the tag set (count and sums, for comparison): best ${Math.min(...floor).toFixed(0)} ms`,
    )
    for (const [scope, id] of [
      ['tagSet', s.tagSet],
      ['library', s.library],
    ] as const) {
      for (const name of REPORTS) {
        for (const query of name === 'density'
          ? ['', '?minimumStrength=0.5']
          : ['', '?minimumStrength=0.5', '?reviewed=yes']) {
          const times: number[] = []
          let bytes = 0
          for (let i = 0; i < RUNS; i++) {
            const started = process.hrtime.bigint()
            const res = await app.inject({
              method: 'GET',
              url: `/api/v0/${scope}/${id}/report/${name}/${query}`,
              headers: auth,
            })
            times.push(Number(process.hrtime.bigint() - started) / 1e6)
            if (res.statusCode !== 200)
              throw new Error(`${scope} ${name}${query} answered ${res.statusCode}: ${res.body.slice(0, 200)}`)
            bytes = res.rawPayload.length
          }
          times.sort((a, b) => a - b)
          console.log(
            `${scope}/{id}/report/${name}/${query}: best ${times[0].toFixed(0)} ms, worst ${times[times.length - 1].toFixed(0)} ms ` +
              `(${(bytes / 1024).toFixed(0)} KiB; target ≤ 2000 ms)`,
          )
        }
      }
    }
  } finally {
    await app.close()
    await database.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await runBench(main)
