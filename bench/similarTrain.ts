import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import { buildApp } from '../server/app.js'
import { storeEmbeddings } from '../server/analysis/similar/store.js'
import { tokenFor } from '../server/auth/routes.js'
import { migrate, openDatabase, type Database } from '../server/db/database.js'
import { localTimestamp } from '../server/db/time.js'
import { Worker } from '../server/jobs/worker.js'
import { waitForStatus } from '../test/helpers/jobs.js'
import { tempDir } from '../test/helpers/tempDir.js'
import { clusteredEmbeddings } from './clusteredEmbeddings.js'
import { seasonOwner, seasonRecordings } from './seasonOwner.js'

// Training from decisions and rescoring a library's stored windows (issue 45's last figure, docs/decisions.md §35):
// `windows` stored windows of generated embeddings (clusteredEmbeddings.ts) in recordings of 1,000 windows each
// (1 s every 0.5 s), stored as EmbedAudio stores them, on the embedded PostgreSQL of a data directory of its own;
// 100 tags on windows of one cluster decided yes and 100 on windows of others decided no (POST tagReview/), then
// POST tagSet/{id}/train/ and a worker in this process. Timed: from the POST to the job's end (fit, every stored
// window scored, the strongest written). Checked: the tags written lie on windows of the decided cluster.
// Run: npm run bench:similar -- --train [--windows 1000000] [--dimensions 261]

const PER_FILE = 1000,
  STEP = 0.5,
  LENGTH = 1,
  DECIDED = 100,
  WRITE = 1000

interface Season {
  token: string
  source: number
  destination: number
  /** each stored window's cluster, by media file */
  clusterOf: Map<number, Uint16Array>
  positive: number
  decisions: Array<{ tag: number; decision: 'yes' | 'no' }>
}

async function seed(database: Database, windows: number, d: number): Promise<Season> {
  const db = database.db
  const now = localTimestamp()
  const { user, library } = await seasonOwner(db, 'ecologist', now)
  const fileCount = Math.ceil(windows / PER_FILE)
  const files = await seasonRecordings(db, { user, library }, fileCount, now)
  const generator = clusteredEmbeddings(d)
  const clusterOf = new Map<number, Uint16Array>()
  const started = Date.now()
  for (const [n, file] of files.entries()) {
    const count = Math.min(PER_FILE, windows - n * PER_FILE)
    const vectors = new Float32Array(count * d)
    clusterOf.set(file.id, generator.draw(vectors))
    await storeEmbeddings(db, {
      mediaFile: file.id,
      library: library.id,
      kind: 'builtin',
      windowSeconds: LENGTH,
      hopSeconds: STEP,
      lengthSeconds: LENGTH,
      stepSeconds: STEP,
      duration: (count - 1) * STEP + LENGTH,
      dimensions: d,
      vectors,
    })
  }
  const tagClass = await db
    .insertInto('tag_classes')
    .values({ user_id: user.id, library_id: library.id, class_name: 'call', display_name: '' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const [source, destination] = await db
    .insertInto('tag_sets')
    .values(
      ['decided', 'found'].map((name) => ({ user_id: user.id, name, library_id: library.id, creation_date: now })),
    )
    .returning('id')
    .execute()
  // the decided windows: the first DECIDED of the positive cluster and the first DECIDED of others, each tag the
  // middle half of its window (so that it lies on that window alone)
  const positive = clusterOf.get(files[0].id)![0]
  const picked: Array<{ file: number; window: number; yes: boolean }> = []
  let yes = 0,
    no = 0
  for (const [file, clusters] of clusterOf) {
    for (let i = 0; i < clusters.length && (yes < DECIDED || no < DECIDED); i += 7) {
      const isPositive = clusters[i] === positive
      if (isPositive ? yes++ < DECIDED : no++ < DECIDED) picked.push({ file, window: i, yes: isPositive })
    }
    if (yes >= DECIDED && no >= DECIDED) break
  }
  const tags = await db
    .insertInto('tags')
    .values(
      picked.map((p) => ({
        user_id: user.id,
        creation_date: now,
        tag_class_id: tagClass.id,
        tag_set_id: source.id,
        media_file_id: p.file,
        start_time: p.window * STEP + LENGTH / 4,
        end_time: p.window * STEP + (3 * LENGTH) / 4,
        min_frequency: 1000,
        max_frequency: 4000,
      })),
    )
    .returning('id')
    .execute()
  const token = await tokenFor(db, user.id)
  await sql`vacuum analyze`.execute(db)
  console.log(
    `seeded ${windows.toLocaleString('en')} stored windows of ${d} dimensions in ${files.length.toLocaleString('en')} recordings ` +
      `in ${((Date.now() - started) / 1000).toFixed(1)} s; ${picked.filter((p) => p.yes).length} tags on windows of one cluster, ` +
      `${picked.filter((p) => !p.yes).length} on others`,
  )
  return {
    token,
    source: source.id,
    destination: destination.id,
    clusterOf,
    positive,
    decisions: tags.map((t, i) => ({ tag: t.id, decision: picked[i].yes ? 'yes' : 'no' })),
  }
}

export async function trainAndRescore(windows: number, d: number): Promise<void> {
  const dataDir = tempDir('mas-bench-train-')
  const database = await openDatabase({ dataDir })
  await migrate(database.db)
  const app = await buildApp({ database, config: { dataDir, mediaDir: join(dataDir, 'media') } })
  const worker = new Worker({ db: database.db, config: app.config, storage: app.storage, pollMs: 20 })
  try {
    const s = await seed(database, windows, d)
    const headers = { authorization: `Token ${s.token}` }
    for (const body of s.decisions) {
      const r = await app.inject({ method: 'POST', url: '/api/v0/tagReview/', headers, payload: body })
      if (r.statusCode !== 201) throw new Error(`tagReview/ answered ${r.statusCode}: ${r.body.slice(0, 200)}`)
    }
    worker.start()
    const started = process.hrtime.bigint(),
      cpu = process.cpuUsage()
    const res = await app.inject({
      method: 'POST',
      url: `/api/v0/tagSet/${s.source}/train/`,
      headers,
      payload: { destinationTagSet: s.destination, numberOfTagsToWrite: WRITE },
    })
    if (res.statusCode !== 202) throw new Error(`train/ answered ${res.statusCode}: ${res.body.slice(0, 200)}`)
    const job = await waitForStatus(database.db, (res.json() as { id: number }).id, [4, 5, 6], 3600)
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    const spent = process.cpuUsage(cpu)
    const notes = await database.db
      .selectFrom('job_result_files')
      .select('notes')
      .where('job_id', '=', job.id)
      .execute()
    if (job.status_id !== 6) throw new Error(`the job ended with status ${job.status_id}: ${JSON.stringify(notes)}`)
    const written = await database.db
      .selectFrom('tags')
      .select(['media_file_id', 'start_time'])
      .where('tag_set_id', '=', s.destination)
      .execute()
    const onCluster = written.filter(
      (t) => s.clusterOf.get(t.media_file_id)![Math.round(t.start_time / STEP)] === s.positive,
    ).length
    let ofCluster = 0
    for (const clusters of s.clusterOf.values()) for (const c of clusters) if (c === s.positive) ofCluster++
    console.log(
      `train from ${s.decisions.length} decisions and rescore ${windows.toLocaleString('en')} stored windows: ` +
        `${seconds.toFixed(1)} s from the POST to the job's end (this process's CPU ${((spent.user + spent.system) / 1e6).toFixed(1)} s, ` +
        `the database's apart; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}; target ≤ 60 s)\n` +
        `  the job said: ${notes.map((n) => n.notes).join(' / ')}\n` +
        `  ${written.length} tags written, ${onCluster} on windows of the decided cluster (precision ${(onCluster / Math.max(1, written.length)).toFixed(3)}; ` +
        `the cluster has ${ofCluster} windows, ${s.decisions.filter((x) => x.decision === 'yes').length} of them decided yes)`,
    )
  } finally {
    await worker.stop()
    await app.close()
    await database.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
