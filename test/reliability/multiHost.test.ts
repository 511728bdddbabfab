import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { ListObjectsV2Command } from '@aws-sdk/client-s3'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { hashPassword } from '../../server/auth/passwords.js'
import { tokenFor } from '../../server/auth/routes.js'
import { openDatabase, type Database } from '../../server/db/database.js'
import { localTimestamp } from '../../server/db/time.js'
import { COMPLETE } from '../../server/analysis/state.js'
import { sweepUncommittedMedia } from '../../server/media/import.js'
import { S3Storage } from '../../server/storage/s3.js'
import { startTestBucket, type TestBucket } from '../helpers/s3.js'
import { BIN, killHard, serverHome, type ServerHome, type ServerProcess } from '../helpers/server.js'
import { tempDir } from '../helpers/tempDir.js'
import { multipart } from '../helpers/upload.js'
import { makeWav } from '../helpers/wav.js'
import { homeEnv, runMas, type Run } from '../cli/cli.js'

// Several hosts, played by real processes with nothing on disk in common: two `mas server start`
// (A and B, each with a data directory of its own) and one `mas worker start`, on one PostgreSQL (the
// embedded cluster of A's data directory, through `mas db url`, or DATABASE_URL) and one bucket (s3rver,
// started here). What one server writes the other serves, the worker's results are downloaded through
// either, a deactivation through A is refused by B at once, and a kill -9 of A loses nothing answered.

const PREFIX = 'hosts'
let bucket: TestBucket
let homeA: ServerHome, homeB: ServerHome
let a: ServerProcess, b: ServerProcess
let worker: ChildProcess
let workerOut = ''
let dbUrl: string
let database: Database
let auth: Record<string, string>
let library: number
let folder: string
let importRoot: string
const dirs: string[] = []
const md5 = (buf: Buffer) => createHash('md5').update(buf).digest('hex')

async function api(
  server: ServerProcess,
  method: string,
  path: string,
  body?: unknown,
  as = auth,
): Promise<{ status: number; data: any }> {
  const res = await fetch(`${server.url}/api/v0/${path}`, {
    method,
    headers: { ...as, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  let data: any
  try {
    data = text ? JSON.parse(text) : undefined
  } catch {
    data = text
  }
  return { status: res.status, data }
}

/** `mas args...` with a HOME of its own; the CLI keeps its own retry delay (these tests stop hosts under it) */
async function run(args: string[], env: Record<string, string>): Promise<Run & { out: string }> {
  const home = tempDir('mas-hosts-cli-')
  dirs.push(home)
  const r = await runMas(args, { env: { ...homeEnv(home), MAS_RETRY_DELAY_MS: undefined, ...env } })
  return { ...r, out: r.stdout + r.stderr }
}

/** mas media import of the folder through `server` */
const cliImport = (server: ServerProcess) =>
  run(['media', 'import', folder, '--library', String(library), '--concurrency', '4', '--json'], {
    MAS_SERVER: server.url,
    MAS_TOKEN: auth.authorization.slice(6),
  })

async function objectKeys(under: string): Promise<string[]> {
  const storage = new S3Storage(bucket.settings(PREFIX))
  const res = await storage.client.send(
    new ListObjectsV2Command({ Bucket: storage.settings.bucket, Prefix: `${PREFIX}/${under}` }),
  )
  return (res.Contents ?? []).map((o) => o.Key!.slice(PREFIX.length + 1)).sort()
}

/** files a data directory holds outside its database: none, when media live in the bucket */
function localMedia(home: ServerHome): string[] {
  try {
    return readdirSync(join(home.dataDir, 'media'), { recursive: true }) as string[]
  } catch {
    return []
  }
}

test.before(async () => {
  bucket = await startTestBucket()
  folder = tempDir('mas-hosts-folder-')
  for (let i = 0; i < 12; i++)
    writeFileSync(
      join(folder, `rec-${String(i).padStart(2, '0')}.wav`),
      makeWav({ seconds: 1.5, frequency: 300 + i * 11 }),
    )
  importRoot = tempDir('mas-hosts-root-')
  mkdirSync(join(importRoot, 'drop'))
  writeFileSync(join(importRoot, 'drop', 'a.wav'), makeWav({ seconds: 1, frequency: 2000 }))
  writeFileSync(join(importRoot, 'drop', 'notes.txt'), 'not a recording')
  const shared = { ...bucket.env(PREFIX), MAS_IMPORT_ROOT: importRoot }

  homeA = await serverHome()
  Object.assign(homeA.env, shared)
  a = await homeA.start()
  if (homeA.env.DATABASE_URL) {
    dbUrl = homeA.env.DATABASE_URL
  } else {
    const url = await run(['db', 'url', '--data-dir', homeA.dataDir], { DATABASE_URL: '' })
    assert.is(url.code, 0, url.out)
    dbUrl = url.stdout.trim()
  }
  homeB = await serverHome()
  Object.assign(homeB.env, shared, { DATABASE_URL: dbUrl })
  b = await homeB.start()
  const workerDir = tempDir('mas-hosts-worker-')
  dirs.push(workerDir)
  worker = spawn(process.execPath, [BIN, 'worker', 'start', '--data-dir', workerDir], {
    env: { ...process.env, ...shared, DATABASE_URL: dbUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  worker.stdout!.on('data', (d) => {
    workerOut += d
  })
  worker.stderr!.on('data', (d) => {
    workerOut += d
  })

  database = await openDatabase({ url: dbUrl, poolSize: 2 })
  const login = await fetch(`${a.url}/api-token-auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: 'root-pass' }),
  })
  auth = { authorization: `Token ${(await login.json()).token}` }
  library = (await api(b, 'POST', 'library/', { name: 'two hosts' })).data.id
})

test.after(async () => {
  if (worker && worker.exitCode === null) {
    const gone = new Promise((r) => worker.once('exit', r))
    worker.kill('SIGTERM')
    await gone
  }
  for (const p of [a, b]) if (p && p.child.exitCode === null && p.child.signalCode === null) await killHard(p)
  await database?.close()
  await homeB?.cleanup()
  await homeA?.cleanup()
  await bucket?.close()
  for (const d of [...dirs, folder, importRoot]) if (d) rmSync(d, { recursive: true, force: true })
})

test("a folder imported through A is read with Range through B; nothing lands on either host's disk", async () => {
  const imported = await cliImport(a)
  assert.is(imported.code, 0, imported.out)
  const files = (await api(b, 'GET', `mediaFile/?library=${library}&page_size=100`)).data.results
  assert.is(files.length, 12)
  for (const f of files.slice(0, 3)) {
    const local = readFileSync(join(folder, f.alias))
    const res = await fetch(`${b.url}/media/${f.file}`, { headers: { ...auth, range: 'bytes=44-1043' } })
    assert.is(res.status, 206)
    assert.is(res.headers.get('content-range'), `bytes 44-1043/${local.length}`)
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(local.subarray(44, 1044)))
    const head = await fetch(`${b.url}/media/${f.file}`, { method: 'HEAD', headers: auth })
    assert.is(Number(head.headers.get('content-length')), local.length)
  }
  assert.equal(localMedia(homeA), [])
  assert.equal(localMedia(homeB), [])
})

test('tags written through both servers are read through both', async () => {
  const [file] = (await api(a, 'GET', `mediaFile/?library=${library}&page_size=1`)).data.results
  const tagSet = (await api(a, 'POST', 'tagSet/', { name: 'both', library })).data.id
  const tagClass = (await api(b, 'POST', 'tagClass/', { className: 'wren', displayName: 'wren', library })).data.id
  const tag = (startTime: number) => ({
    tagSet,
    tagClass,
    mediaFile: file.id,
    startTime,
    endTime: startTime + 0.5,
    minFrequency: 100,
    maxFrequency: 900,
  })
  assert.is((await api(a, 'POST', 'tag/', tag(0.1))).status, 201)
  assert.is((await api(b, 'POST', 'tag/', tag(0.7))).status, 201)
  for (const s of [a, b]) {
    const listed = (await api(s, 'GET', `tag/?tagSet=${tagSet}`)).data
    assert.equal(listed.results.map((t: any) => t.startTime).sort(), [0.1, 0.7])
  }
})

test("a job queued through B runs on the worker, reading its host's import folder; its result file downloads through A", async () => {
  const project = (await api(b, 'POST', 'project/', { name: 'jobs on hosts', type: 1 })).data.id
  const created = await api(b, 'POST', 'jobs/', {
    name: 'import drop',
    project,
    type: 9,
    parameters: { path: join(importRoot, 'drop'), library: String(library) },
  })
  assert.is(created.status, 201, JSON.stringify(created.data))
  const id = created.data.id
  const until = Date.now() + 60_000
  let job: any
  for (;;) {
    job = (await api(a, 'GET', `jobs/${id}/`)).data
    if (job.status === COMPLETE) break
    if (Date.now() > until)
      assert.unreachable(`job ${id} did not complete: ${JSON.stringify(job)}\nworker: ${workerOut}`)
    await delay(100)
  }
  const results = (await api(a, 'GET', `jobResultFile/?job=${id}`)).data.results
  assert.is(results.length, 1, JSON.stringify(results))
  const download = await fetch(results[0].resultFile, { headers: auth })
  assert.is(download.status, 200)
  assert.match(await download.text(), /notes\.txt/)
  const imported = (await api(a, 'GET', `mediaFile/?library=${library}&page_size=100`)).data.results
  const dropped = imported.find((f: any) => f.alias === 'a.wav')
  assert.ok(dropped, "the job's file was not imported")

  // a job that reads media: the worker decodes the file from the bucket
  const destination = (await api(a, 'POST', 'tagSet/', { name: 'clusters', library })).data.id
  const discovery = await api(b, 'POST', 'jobs/', {
    name: 'clusters',
    project,
    type: 7,
    parameters: {
      destinationTagSet: String(destination),
      numberOfTagsToDiscover: '1',
      windowSizeInSeconds: '0.5',
      mediaFileId: String(dropped.id),
      seed: '1',
    },
  })
  assert.is(discovery.status, 201, JSON.stringify(discovery.data))
  const finishBy = Date.now() + 60_000
  for (;;) {
    const state = (await api(a, 'GET', `jobs/${discovery.data.id}/`)).data
    if (state.status === COMPLETE) break
    if (Date.now() > finishBy)
      assert.unreachable(`discovery job did not complete: ${JSON.stringify(state)}\nworker: ${workerOut}`)
    await delay(100)
  }
  const found = (await api(a, 'GET', `tag/?tagSet=${destination}`)).data.results
  assert.ok(found.length > 0 && found.every((t: any) => t.mediaFile === dropped.id), JSON.stringify(found))
})

test('a user deactivated through A is refused by B within 5 s', async () => {
  const user = await database.db
    .insertInto('users')
    .values({
      username: 'leaving',
      password: await hashPassword('leaving-pass'),
      is_admin: false,
      is_active: true,
      date_joined: localTimestamp(),
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const userAuth = { authorization: `Token ${await tokenFor(database.db, user.id)}` }
  for (let i = 0; i < 3; i++) assert.is((await api(b, 'GET', 'jobTypes/', undefined, userAuth)).status, 200)
  const changed = await api(a, 'PATCH', `user/${user.id}/`, { is_active: false })
  assert.is(changed.status, 200)
  const started = Date.now()
  for (;;) {
    if ((await api(b, 'GET', 'jobTypes/', undefined, userAuth)).status === 401) break
    if (Date.now() - started > 5000) assert.unreachable('B still accepts the deactivated user after 5 s')
    await delay(10)
  }
  process.stderr.write(`multi-host: B refused the user deactivated through A after ${Date.now() - started} ms\n`)
})

test('kill -9 of A during an import loses nothing answered; the same import re-run through B completes it', async () => {
  for (let i = 12; i < 40; i++)
    writeFileSync(
      join(folder, `rec-${String(i).padStart(2, '0')}.wav`),
      makeWav({ seconds: 1.5, frequency: 300 + i * 11 }),
    )
  const names = readdirSync(folder)
    .filter((n) => n.endsWith('.wav'))
    .sort()
  let answered = 0
  const created: string[] = []
  const uploads = names.slice(12).map(async (name) => {
    const data = readFileSync(join(folder, name))
    const { payload, headers } = multipart({ file: { data, filename: name, contentType: 'audio/wav' } })
    try {
      const res = await fetch(`${a.url}/api/v0/library/${library}/mediaFiles/import/`, {
        method: 'POST',
        headers: { ...headers, ...auth },
        body: new Uint8Array(payload),
      })
      await res.text()
      answered++
      if (res.status === 201) created.push(md5(data))
      return res.status
    } catch {
      return 0
    }
  })
  while (answered < 4) await delay(5)
  await killHard(a)
  const statuses = await Promise.all(uploads)
  assert.ok(statuses.includes(0), 'every import finished before the kill')
  assert.ok(
    statuses.every((s) => s === 0 || s === 201),
    JSON.stringify(statuses),
  )
  // everything answered is there, whole, through B
  const held = await api(
    b,
    'POST',
    `library/${library}/mediaFiles/check/`,
    created.map((m) => ({ md5: m })),
  )
  assert.ok(
    held.data.every((id: number | null) => id !== null),
    'an answered import is missing',
  )

  const rerun = await cliImport(b)
  assert.is(rerun.code, 0, rerun.out)
  const all = (await api(b, 'GET', `mediaFile/?library=${library}&page_size=1000`)).data.results
  const local = names.map((n) => readFileSync(join(folder, n)))
  const check = await api(
    b,
    'POST',
    `library/${library}/mediaFiles/check/`,
    local.map((buf) => ({ md5: md5(buf), size: buf.length })),
  )
  assert.ok(
    check.data.every((id: number | null) => id !== null),
    'a file of the folder is missing',
  )
  assert.is(new Set(check.data).size, names.length, 'a file was imported twice')
  assert.is(all.length, names.length + 1) // the folder and the worker's a.wav
  for (const f of all) {
    const head = await fetch(`${b.url}/media/${f.file}`, { method: 'HEAD', headers: auth })
    assert.is(head.status, 200, `${f.file}: a row without its object`)
  }
  // what the killed server left in the bucket (objects without a row, uploads never finished) is swept
  const storage = new S3Storage(bucket.settings(PREFIX))
  await sweepUncommittedMedia(database.db, storage)
  await storage.sweepIncoming(0)
  assert.equal(await objectKeys(`mediaFiles/${library}/`), all.map((f: any) => f.file).sort())
  assert.equal(await objectKeys('.incoming/'), [])
})

test.run()
