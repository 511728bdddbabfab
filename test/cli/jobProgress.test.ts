import { sql } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Worker } from '../../server/jobs/worker.js'
import type { TestUser } from '../helpers/app.js'
import { addToProject, makeProject, waitFor, waitForStatus } from '../helpers/jobs.js'
import { makeTag, makeTagClass, makeTagSet } from '../helpers/records.js'
import { signal, storedWav, type Tone } from '../helpers/signals.js'
import { makeRecords } from '../helpers/world.js'
import { cliWorld, type CliWorld } from './cli.js'

// Progress that never falls: a discovery job over files of different lengths counts a step per second of each
// file's audio, known when its children are made, so its total never grows and its percentage never decreases,
// as `mas job watch` shows it and as every value the jobs/ resource could show; a long file moves it block by
// block, not once at its end.

const RATE = 8000
let w: CliWorld
let alice: TestUser
let library: number

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  ;({ library } = await makeRecords(w.t, alice))
  // every value a job's progress takes, as the jobs/ resource would show it
  await sql`CREATE TABLE progress_seen (n serial PRIMARY KEY, job_id integer, num_completed integer, num_to_complete integer, fraction double precision)`.execute(
    w.t.db,
  )
  await sql`CREATE FUNCTION progress_seen() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    INSERT INTO progress_seen (job_id, num_completed, num_to_complete, fraction) VALUES (NEW.id, NEW.num_completed, NEW.num_to_complete, NEW.fraction_completed);
    RETURN NEW; END $$`.execute(w.t.db)
  await sql`CREATE TRIGGER progress_seen AFTER INSERT OR UPDATE ON jobs FOR EACH ROW EXECUTE FUNCTION progress_seen()`.execute(
    w.t.db,
  )
})
test.after(async () => {
  await w.close()
})

const rising = (from: number): Tone => ({ from, to: from + 0.3, frequency: 2000, toFrequency: 3500, amplitude: 0.4 })

interface Seen {
  job_id: number
  num_completed: number
  num_to_complete: number
  fraction: number
}
const seenOf = async (job: number) =>
  (
    (await w.t.db
      .selectFrom('progress_seen' as never)
      .selectAll()
      .orderBy('n' as never)
      .execute()) as unknown as Seen[]
  ).filter((r) => r.job_id === job)

const SECONDS = [20, 480, 10]
/** the long file's child: a step per second and one for its tags */
const LONG_STEPS = 481

/** A discovery job over three files of SECONDS, of examples of a rising call. */
async function seasonJob(): Promise<number> {
  const chirp = await makeTagClass(w.t.db, alice, library, 'chirp')
  const examples = await storedWav(
    w.t.db,
    w.t.app.config,
    alice,
    library,
    signal(10, RATE, [1, 4, 7].map(rising), 0.02, 3),
    RATE,
  )
  const source = await makeTagSet(w.t.db, alice, library)
  for (const at of [1, 4, 7]) {
    await makeTag(
      w.t.db,
      alice,
      { tagSet: source, mediaFile: examples, tagClass: chirp },
      { startTime: at, endTime: at + 0.3, minFrequency: 1800, maxFrequency: 3700 },
    )
  }
  const media = []
  for (const [i, s] of SECONDS.entries())
    media.push(
      await storedWav(w.t.db, w.t.app.config, alice, library, signal(s, RATE, [rising(s / 2)], 0.02, 10 + i), RATE),
    )
  const project = await makeProject(w.t.db, alice)
  await addToProject(w.t.db, project, media)
  const destination = await makeTagSet(w.t.db, alice, library)
  const created = await w.t.call('POST', '/api/v0/jobs/', {
    as: alice,
    body: {
      name: 'season',
      project,
      type: 1,
      parameters: {
        sourceTagSet: String(source),
        destinationTagSet: String(destination),
        numberOfTagsToDiscover: '2',
        windowSizeInSeconds: '0.3',
      },
    },
  })
  assert.is(created.statusCode, 201, JSON.stringify(created.data))
  return created.data.id
}

/** The progress values the long file's child took. */
async function longChild(job: number): Promise<Seen[]> {
  const children = await w.t.db.selectFrom('jobs').select('id').where('parent_job_id', '=', job).orderBy('id').execute()
  for (const c of children) {
    const rows = await seenOf(c.id)
    if (rows.some((r) => r.num_to_complete === LONG_STEPS)) return rows
  }
  throw new Error('no child of the long file')
}

const neverFalls = (values: number[], what: string) => {
  for (let i = 1; i < values.length; i++)
    assert.ok(values[i] >= values[i - 1], `${what} fell at ${i}: ${values.join(' ')}`)
}

test('mas job watch over a discovery of three files: the percentage never falls, the total is known from the start, a long file advances block by block', async () => {
  const job = await seasonJob()
  // one analysis thread: the long file is scanned in 4 tasks of 4 blocks (30 s each), telling each block from the thread
  const worker = new Worker({ db: w.t.db, config: w.t.app.config, pollMs: 20, threads: 1 }).start()
  let run
  try {
    run = await w.mas(['job', 'watch', String(job), '--interval', '1'])
  } finally {
    await worker.stop()
  }
  assert.is(run.code, 0, run.stderr)
  const watched = [
    ...run.stderr.matchAll(new RegExp(`^job ${job}: \\w+, (\\d+)%(?: \\((\\d+)/(\\d+)\\))?$`, 'gm')),
  ].map((m) => ({ percent: Number(m[1]), total: m[3] === undefined ? undefined : Number(m[3]) }))
  assert.ok(watched.length >= 2, run.stderr)
  for (let i = 1; i < watched.length; i++)
    assert.ok(watched[i].percent >= watched[i - 1].percent, `the percentage fell:\n${run.stderr}`)
  assert.is(watched.at(-1)!.percent, 100)

  // a second of audio a step, and one step per file for writing its tags: the parent's total from its first value on
  const total = SECONDS.reduce((sum, s) => sum + s + 1, 0)
  assert.ok(
    watched.every((v) => v.total === undefined || v.total === total),
    run.stderr,
  )
  const parent = (await seenOf(job)).filter((r) => r.num_to_complete > 0)
  assert.ok(parent.length > 3, JSON.stringify(parent))
  assert.ok(
    parent.every((r) => r.num_to_complete === total),
    JSON.stringify(parent.map((r) => r.num_to_complete)),
  )
  neverFalls(
    parent.map((r) => r.fraction),
    "the parent's fraction",
  )

  const within = new Set(
    (await longChild(job))
      .filter((r) => r.num_completed > 0 && r.num_completed < LONG_STEPS)
      .map((r) => r.num_completed),
  )
  // 16 blocks: more values within the file than the 4 tasks it was cut into
  assert.ok(within.size > 8, JSON.stringify([...within]))
})

test('a worker stopped in the middle of a long file: the job goes back to the queue and, redone by the next worker, shows no less than it did', async () => {
  const job = await seasonJob()
  const first = new Worker({ db: w.t.db, config: w.t.app.config, pollMs: 20, threads: 1 }).start()
  let stoppedAt: number
  try {
    stoppedAt = await waitFor(
      'the long file half scanned',
      async () => {
        const done = (await longChild(job).catch(() => [])).at(-1)?.num_completed ?? 0
        return done >= 200 && done
      },
      120,
    )
  } finally {
    assert.is((await first.stop()).length, 1)
  }
  const second = new Worker({ db: w.t.db, config: w.t.app.config, pollMs: 20, threads: 1 }).start()
  try {
    assert.is((await waitForStatus(w.t.db, job, [4, 5, 6], 120)).status_id, 6)
  } finally {
    await second.stop()
  }
  const long = await longChild(job)
  neverFalls(
    long.map((r) => r.num_completed),
    "the long file's steps",
  )
  assert.ok(long.some((r) => r.num_completed >= stoppedAt) && long.at(-1)!.num_completed === LONG_STEPS)
  neverFalls(
    (await seenOf(job)).filter((r) => r.num_to_complete > 0).map((r) => r.fraction),
    "the parent's fraction",
  )
})

test.run()
