import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { Readable } from 'node:stream'
import pg from 'pg'
import { configFromEnv } from '../server/config.js'
import { migrate, openDatabase, type Database } from '../server/db/database.js'
import { localTimestamp } from '../server/db/time.js'
import { spectrogram } from '../server/analysis/spectra.js'
import { openStorage } from '../server/storage/index.js'
import { signal, wavOf } from '../test/helpers/signals.js'
import { tempDir } from '../test/helpers/tempDir.js'
import { runBench } from './args.js'

// Jobs benchmark (npm run bench:jobs), two figures of issue 6:
//   (a) spectral features of one hour of 22.05 kHz mono audio on one core (target: under 10 s)
//   (b) SupervisedTagDiscovery over BENCH_FILES (100) one-minute files with BENCH_EXAMPLES (20)
//       examples, run by two workers (target: under 60 s): two `mas worker start` processes sharing
//       a PostgreSQL schema of their own (BENCH_DATABASE_URL) or the embedded PostgreSQL of a data
//       directory of their own.

const RATE = 22050
const FILES = Number(process.env.BENCH_FILES ?? 100)
const EXAMPLES = Number(process.env.BENCH_EXAMPLES ?? 20)
const SETTINGS = { bands: 256, minFrequency: 0, maxFrequency: 22050, framesPerSecond: 100, damping: 0.1 }

async function features(): Promise<number> {
  const samples = signal(3600, RATE, [{ from: 600, to: 660, frequency: 3000 }], 0.05, 7)
  const started = process.hrtime.bigint()
  const s = await spectrogram(samples, RATE, SETTINGS)
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  console.log(
    `(a) spectra of 1 h at ${RATE} Hz: ${s.frames} frames x ${s.bands} bands in ${seconds.toFixed(2)} s (target < 10 s)`,
  )
  return seconds
}

async function discovery(): Promise<number> {
  const dataDir = tempDir('mas-bench-jobs-')
  const url = process.env.BENCH_DATABASE_URL
  let schema: string | undefined
  let workerUrl: string | undefined
  let database: Database
  if (url) {
    schema = `bench_jobs_${randomBytes(4).toString('hex')}`
    const c = new pg.Client(url)
    await c.connect()
    await c.query(`create schema ${schema}`)
    await c.end()
    database = await openDatabase({ url, schema })
    const u = new URL(url)
    u.searchParams.set('options', `-c search_path=${schema}`)
    workerUrl = u.toString()
  } else {
    database = await openDatabase({ dataDir })
  }
  const config = configFromEnv({}, { dataDir })
  const db = database.db
  await migrate(db)
  const now = localTimestamp()
  const user = await db
    .insertInto('users')
    .values({ username: 'bench', password: 'x', date_joined: now })
    .returning('id')
    .executeTakeFirstOrThrow()
  const library = await db
    .insertInto('libraries')
    .values({ user_id: user.id, name: 'bench', creation_date: now })
    .returning('id')
    .executeTakeFirstOrThrow()
  const project = await db
    .insertInto('projects')
    .values({ user_id: user.id, name: 'bench', type_id: 1, creation_date: now })
    .returning('id')
    .executeTakeFirstOrThrow()
  const source = await db
    .insertInto('tag_sets')
    .values({ user_id: user.id, name: 'examples', library_id: library.id, creation_date: now })
    .returning('id')
    .executeTakeFirstOrThrow()
  const destination = await db
    .insertInto('tag_sets')
    .values({ user_id: user.id, name: 'found', library_id: library.id, creation_date: now })
    .returning('id')
    .executeTakeFirstOrThrow()
  const cls = await db
    .insertInto('tag_classes')
    .values({ user_id: user.id, library_id: library.id, class_name: 'call' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const storage = openStorage(config)
  const media: number[] = []
  for (let i = 0; i < FILES; i++) {
    const at = 5 + ((i * 7) % 50)
    const name = `mediaFiles/${library.id}/bench-${i}.wav`
    const pending = await storage.receive(
      Readable.from([wavOf(signal(60, RATE, [{ from: at, to: at + 1, frequency: 3000 }], 0.05, i + 1), RATE)]),
    )
    await pending.commit(name)
    const row = await db
      .insertInto('media_files')
      .values({
        file: name,
        user_id: user.id,
        type_id: 1,
        library_id: library.id,
        upload_date: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    media.push(row.id)
    if (i < EXAMPLES) {
      await db
        .insertInto('tags')
        .values({
          user_id: user.id,
          creation_date: now,
          tag_class_id: cls.id,
          tag_set_id: source.id,
          media_file_id: row.id,
          start_time: at,
          end_time: at + 1,
          min_frequency: 2500,
          max_frequency: 3500,
          user_tagged: true,
        })
        .execute()
    }
  }
  await db
    .insertInto('project_media_files')
    .values(media.map((m) => ({ project_id: project.id, media_file_id: m })))
    .execute()
  const job = await db.transaction().execute(async (trx) => {
    const j = await trx
      .insertInto('jobs')
      .values({ name: 'bench', user_id: user.id, project_id: project.id, type_id: 1, creation_date: now })
      .returning('id')
      .executeTakeFirstOrThrow()
    const params = {
      sourceTagSet: source.id,
      destinationTagSet: destination.id,
      numberOfTagsToDiscover: 5,
      windowSizeInSeconds: 1,
    }
    await trx
      .insertInto('job_parameters')
      .values(Object.entries(params).map(([name, value]) => ({ job_id: j.id, name, value: String(value) })))
      .execute()
    return j
  })

  const started = process.hrtime.bigint()
  const processes: ChildProcess[] = []
  for (let i = 0; i < 2; i++) {
    processes.push(
      spawn(process.execPath, ['bin/run.js', 'worker', 'start', '--data-dir', dataDir], {
        env: { ...process.env, DATABASE_URL: workerUrl ?? '' },
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    )
  }
  let status = 0
  while (![4, 5, 6].includes(status)) {
    await new Promise((r) => setTimeout(r, 200))
    status = (await db.selectFrom('jobs').select('status_id').where('id', '=', job.id).executeTakeFirstOrThrow())
      .status_id
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  await Promise.all(
    processes.map(
      (p) =>
        new Promise((resolve) => {
          p.once('exit', resolve)
          p.kill('SIGTERM')
        }),
    ),
  )
  const tags = await db
    .selectFrom('tags')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('tag_set_id', '=', destination.id)
    .executeTakeFirstOrThrow()
  console.log(
    `(b) SupervisedTagDiscovery, ${FILES} one-minute files, ${EXAMPLES} examples, two workers ` +
      `(two processes, ${workerUrl ? 'PostgreSQL' : 'embedded PostgreSQL'}): status ${status}, ` +
      `${tags.n} tags in ${seconds.toFixed(2)} s (target < 60 s)`,
  )
  if (schema) await db.schema.dropSchema(schema).cascade().execute()
  await database.close()
  rmSync(dataDir, { recursive: true, force: true })
  return seconds
}

async function main() {
  const a = await features()
  const b = await discovery()
  process.exitCode = a < 10 && b < 60 ? 0 : 1
}

await runBench(main)
