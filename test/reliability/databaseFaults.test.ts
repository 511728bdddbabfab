import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { freshDatabase } from '../helpers/db.js'
import { ownPostgres, type OwnPostgres } from '../helpers/ownPostgres.js'
import { BIN, serverHome, type ServerHome, type ServerProcess } from '../helpers/server.js'
import { tempDir } from '../helpers/tempDir.js'
import { multipart } from '../helpers/upload.js'
import { makeWav } from '../helpers/wav.js'
import { homeEnv, runMas } from '../cli/cli.js'

// The database going away under a running server and worker, for real: every session of the test's own
// database terminated (as a restart, a failover or an administrator does) in the middle of imports, a
// bulk create and a job, and a PostgreSQL of the test's own stopped and started again. No process exits,
// every request is answered (its work done, or 503 with Retry-After), and a re-run finishes the work with
// nothing lost or duplicated.

const FILES = 40
const TAGS = 10_000

let fresh: { url: string; drop(): Promise<void> }
let home: ServerHome
let server: ServerProcess
let worker: { child: ChildProcess; out: () => string } | undefined
let token: string
let library: number
let folder: string
let importRoot: string
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex')

/** status 0: the connection was dropped without an answer */
async function request(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; data: any; retryAfter: string | null }> {
  let res: Response
  let text: string
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Token ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    text = await res.text()
  } catch (e) {
    return { status: 0, data: String(e), retryAfter: null }
  }
  return { status: res.status, data: text ? JSON.parse(text) : undefined, retryAfter: res.headers.get('retry-after') }
}
const api = (method: string, path: string, body?: unknown) => request(server.url, method, `/api/v0/${path}`, body)

async function login(base: string): Promise<void> {
  const res = await fetch(`${base}/api-token-auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: 'root-pass' }),
  })
  token = (await res.json()).token
}

/** Terminate every other session of the test's own database (never another database's). */
async function terminateSessions(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url })
  c.on('error', () => {})
  await c.connect()
  try {
    const r = await c.query<{ n: number }>(
      'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    )
    return r.rows[0].n
  } finally {
    await c.end()
  }
}

/** An answer is the work done or a 503 that says when to come back; never a dropped connection or a 500. */
function assertAnswered(answers: { status: number; retryAfter: string | null; data?: any }[], done: number[]): void {
  for (const a of answers) {
    if (a.status === 503) {
      assert.ok(a.retryAfter && Number(a.retryAfter) > 0, 'a 503 without Retry-After')
      assert.type(a.data?.detail, 'string')
    } else {
      assert.ok(done.includes(a.status), `answered ${a.status}: ${JSON.stringify(a.data)}`)
    }
  }
}

function assertAlive(): void {
  assert.is(server.child.exitCode, null, `the server exited: ${server.output().slice(-2000)}`)
  assert.not.match(server.output(), /Unhandled 'error' event|57P01.*\n\s+at /)
}

/** Every file of `folder` is in the library exactly once. */
async function assertFolderImportedOnce(): Promise<void> {
  const local = readdirSync(folder).map((n) => readFileSync(join(folder, n)))
  const held = await api(
    'POST',
    `library/${library}/mediaFiles/check/`,
    local.map((b) => ({ md5: md5(b), size: b.length })),
  )
  assert.is(held.status, 200, JSON.stringify(held.data))
  assert.ok(
    held.data.every((id: number | null) => id !== null),
    'a file of the folder is missing',
  )
  assert.is(new Set(held.data).size, FILES)
  const listed = await api('GET', `mediaFile/?library=${library}&page_size=1`)
  assert.is(listed.data.count, FILES, 'a file imported twice')
}

test.before(async () => {
  fresh = await freshDatabase()
  importRoot = tempDir('mas-faults-root-')
  // the job test runs a worker of its own, whose process must live through the faults
  home = await serverHome({
    databaseUrl: fresh.url,
    env: { MAS_IMPORT_ROOT: importRoot, MAS_JOB_LEASE_SECONDS: '3' },
    args: ['--no-worker'],
  })
  server = await home.start()
  await login(server.url)
  library = (await api('POST', 'library/', { name: 'faults' })).data.id
  folder = tempDir('mas-faults-')
  for (let i = 0; i < FILES; i++)
    writeFileSync(
      join(folder, `rec-${String(i).padStart(2, '0')}.wav`),
      makeWav({ seconds: 1, frequency: 200 + i * 9 }),
    )
})

test.after(async () => {
  worker?.child.kill('SIGKILL')
  if (server.child.exitCode === null) {
    server.child.kill('SIGKILL')
    await server.exited
  }
  await home.cleanup()
  await fresh.drop()
  for (const d of [folder, importRoot]) rmSync(d, { recursive: true, force: true })
})

test('sessions terminated during 40 concurrent imports and reads: each answered, the server serves on, a CLI re-run completes once', async () => {
  let answered = 0
  const uploads = readdirSync(folder).map(async (name) => {
    const { payload, headers } = multipart({
      file: { data: readFileSync(join(folder, name)), filename: name, contentType: 'audio/wav' },
    })
    try {
      const res = await fetch(`${server.url}/api/v0/library/${library}/mediaFiles/import/`, {
        method: 'POST',
        headers: { ...headers, authorization: `Token ${token}` },
        body: new Uint8Array(payload),
      })
      const text = await res.text()
      return { status: res.status, retryAfter: res.headers.get('retry-after'), data: JSON.parse(text) }
    } catch (e) {
      return { status: 0, retryAfter: null, data: String(e) }
    } finally {
      answered++
    }
  })
  const reads = Array.from({ length: 40 }, async (_, i) => {
    await delay(i * 10)
    return api('GET', `mediaFile/?library=${library}`)
  })
  while (answered < 3) await delay(2)
  let terminated = 0
  for (let round = 0; round < 3; round++) {
    terminated += await terminateSessions(fresh.url)
    await delay(40)
  }
  assert.ok(terminated > 0, 'no session was terminated')
  assertAnswered(await Promise.all(uploads), [201])
  assertAnswered(await Promise.all(reads), [200])
  assertAlive()

  const health = await request(server.url, 'GET', '/healthz')
  assert.equal([health.status, health.data.status, health.data.database], [200, 'ok', 'ok'])
  const cliHome = tempDir('mas-faults-cli-')
  const run = await runMas(['media', 'import', folder, '--library', String(library), '--concurrency', '8', '--json'], {
    env: { ...homeEnv(cliHome), MAS_SERVER: server.url, MAS_TOKEN: token },
  })
  rmSync(cliHome, { recursive: true, force: true })
  assert.is(run.code, 0, run.stdout + run.stderr)
  await assertFolderImportedOnce()
})

test('sessions terminated during a 10,000-tag bulk create: answered whole or 503, and sent again it is there once', async () => {
  const files = (await api('GET', `mediaFile/?library=${library}&page_size=100`)).data.results
  const tagSet = (await api('POST', 'tagSet/', { name: 'faults', library })).data.id
  const tagClass = (await api('POST', 'tagClass/', { className: 'bird', displayName: 'bird', library })).data.id
  const bulk = Array.from({ length: TAGS }, (_, i) => ({
    tagSet,
    tagClass,
    mediaFile: files[i % files.length].id,
    startTime: (i % 100) / 200,
    endTime: (i % 100) / 200 + 0.2,
    minFrequency: 100,
    maxFrequency: 900,
  }))
  const statuses: number[] = []
  // the tags of the set, read as a client reads: a 503 (the pool still handing out connections ended a moment ago)
  // is asked again after a pause, never taken for a count
  const count = async (): Promise<number> => {
    for (let attempt = 1; ; attempt++) {
      const res = await api('GET', `tag/?tagSet=${tagSet}&page_size=1`)
      assertAnswered([res], [200])
      if (res.status === 200) return res.data.count
      if (attempt === 5) throw new Error(`the count was still answered 503 after ${attempt} tries`)
      await delay(250)
    }
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const sent = api('POST', 'tag/', bulk)
    await delay(100 + attempt * 150)
    await terminateSessions(fresh.url)
    const res = await sent
    assertAnswered([res], [201])
    statuses.push(res.status)
    const stored = await count()
    if (res.status === 201) {
      assert.is(stored, TAGS)
      break
    }
    assert.is(stored, 0, 'a bulk answered 503 left tags behind')
  }
  assertAlive()
  assert.ok(statuses.includes(503), `no bulk create was cut off: ${statuses}`)
  // sent again (the client's retry): made once
  if (!statuses.includes(201)) assert.is((await api('POST', 'tag/', bulk)).status, 201)
  assert.is(await count(), TAGS)
})

test('sessions terminated during a job: the worker process lives on and the job completes with every file once', async () => {
  const jobFolder = join(importRoot, 'season')
  mkdirSync(jobFolder)
  for (let i = 0; i < 30; i++)
    writeFileSync(
      join(jobFolder, `job-${String(i).padStart(2, '0')}.wav`),
      makeWav({ seconds: 2, frequency: 300 + i * 11 }),
    )
  const jobLibrary = (await api('POST', 'library/', { name: 'job import' })).data.id
  const project = (await api('POST', 'project/', { name: 'faults' })).data.id
  const child = spawn(process.execPath, [BIN, 'worker', 'start', '--data-dir', home.dataDir], {
    env: { ...process.env, ...home.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (d) => {
    out += d
  })
  child.stderr!.on('data', (d) => {
    out += d
  })
  worker = { child, out: () => out }
  const job = (
    await api('POST', 'jobs/', {
      name: 'import',
      project,
      type: 9,
      parameters: { path: 'season', library: String(jobLibrary) },
    })
  ).data.id
  assert.type(job, 'number')

  const status = async () => (await api('GET', `jobs/${job}/`)).data
  let terminations = 0
  for (let i = 0; i < 600 && terminations < 3; i++) {
    const j = await status()
    if (j.status === 6) break
    if (j.numCompleted > terminations * 6) {
      await terminateSessions(fresh.url)
      terminations++
    }
    await delay(20)
  }
  let j = await status()
  for (let i = 0; i < 600 && j.status !== 6; i++) {
    assert.ok(j.status === 2 || j.status === 3, `job ${JSON.stringify(j)}\n${out}`)
    await delay(100)
    j = await status()
  }
  assert.is(child.exitCode, null, `the worker exited: ${out}`)
  assert.is(j.status, 6, out)
  assert.ok(terminations > 0, 'the job ended before a session was terminated')
  const media = await api('GET', `mediaFile/?library=${jobLibrary}&page_size=100`)
  assert.is(media.data.count, 30, out)
  assert.is(new Set(media.data.results.map((m: any) => m.alias)).size, 30)
  assertAlive()
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
  worker = undefined
})

test('a worker started while every session is being ended waits for the database, then runs', async () => {
  const child = spawn(process.execPath, [BIN, 'worker', 'start', '--data-dir', home.dataDir], {
    env: { ...process.env, ...home.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (d) => {
    out += d
  })
  child.stderr!.on('data', (d) => {
    out += d
  })
  worker = { child, out: () => out }
  // its start (opening, migrating, sweeping) meets ended sessions for 3 s
  let terminated = 0
  for (const until = Date.now() + 3_000; Date.now() < until && child.exitCode === null;) {
    terminated += await terminateSessions(fresh.url)
    await delay(10)
  }
  for (let i = 0; i < 600 && !/running \d+ job/.test(out) && child.exitCode === null; i++) await delay(100)
  assert.is(child.exitCode, null, `the worker exited: ${out}`)
  assert.match(out, /running \d+ job/)
  assert.ok(terminated > 0, 'no session was ended')
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
  worker = undefined
})

test('a PostgreSQL stopped and started again: 503 with Retry-After and healthz "unavailable" while down, served again once up, without a restart', async () => {
  let own: OwnPostgres | undefined
  let ownHome: ServerHome | undefined
  let ownServer: ServerProcess | undefined
  try {
    own = await ownPostgres()
    ownHome = await serverHome({ databaseUrl: own.url })
    ownServer = await ownHome.start()
    const base = ownServer.url
    await login(base)
    const made = await request(base, 'POST', '/api/v0/library/', { name: 'before' })
    assert.is(made.status, 201)

    await own.stop()
    const down = await Promise.all([
      request(base, 'GET', '/healthz'),
      request(base, 'GET', '/api/v0/library/'),
      request(base, 'POST', '/api/v0/library/', { name: 'while down' }),
    ])
    assert.equal([down[0].status, down[0].data], [503, { status: 'unavailable', database: 'unavailable' }])
    for (const d of down) {
      assert.is(d.status, 503, JSON.stringify(d.data))
      assert.ok(Number(d.retryAfter) > 0)
    }
    assert.is(ownServer.child.exitCode, null, ownServer.output())

    await own.start()
    let health = await request(base, 'GET', '/healthz')
    for (let i = 0; i < 100 && health.status !== 200; i++) {
      await delay(100)
      health = await request(base, 'GET', '/healthz')
    }
    assert.is(health.status, 200)
    const after = await request(base, 'POST', '/api/v0/library/', { name: 'after' })
    assert.is(after.status, 201, JSON.stringify(after.data))
    const names = (await request(base, 'GET', '/api/v0/library/')).data.results.map((l: any) => l.name).sort()
    assert.equal(names, ['after', 'before'])
    assert.is(ownServer.child.exitCode, null, ownServer.output())
  } finally {
    if (ownServer && ownServer.child.exitCode === null) {
      ownServer.child.kill('SIGKILL')
      await ownServer.exited
    }
    await ownHome?.cleanup()
    await own?.cleanup()
  }
})

test.run()
