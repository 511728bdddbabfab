import { spawn } from 'node:child_process'
import {
  chownSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CLUSTER_DIR } from '../../server/db/cluster.js'
import { alive } from '../../server/db/postmaster.js'
import { call, cleanup, mas, newDataDir, serve } from '../helpers/embedded.js'
import { postgresOf } from '../helpers/server.js'

// The embedded PostgreSQL as people run it, with real processes: stopped with the last mas process,
// taken over after a kill -9, recovered from a stale postmaster.pid, shared by --workers and by
// `mas worker start`, refused on an earlier version's data directory, and run as root or not.

test('SIGTERM: the server stops serving, then stops its PostgreSQL; no postgres process is left', async () => {
  const dataDir = newDataDir()
  try {
    const s = await serve(dataDir)
    assert.match(s.out(), `data directory: ${dataDir}`)
    assert.match(s.out(), 'embedded PostgreSQL')
    assert.match(s.out(), `mas login --server ${s.url}`)
    assert.is(postgresOf(dataDir).length, 1)
    // only a Unix socket, in a folder nobody else may enter
    const socketDir = readFileSync(join(dataDir, CLUSTER_DIR, 'postmaster.pid'), 'utf8').split('\n')[4]
    assert.is(statSync(socketDir).mode & 0o777, 0o700)
    assert.ok(readdirSync(socketDir).includes('.s.PGSQL.5432'))
    s.child.kill('SIGTERM')
    assert.is(await s.exited, 0, s.out())
    assert.equal(postgresOf(dataDir), [])
    // SIGINT (Ctrl-C) the same way, on the cluster made the first time
    const again = await serve(dataDir)
    again.child.kill('SIGINT')
    assert.is(await again.exited, 0, again.out())
    assert.equal(postgresOf(dataDir), [])
  } finally {
    await cleanup(dataDir)
  }
})

test('kill -9 of mas: the next server takes over the running PostgreSQL with every committed row', async () => {
  const dataDir = newDataDir()
  try {
    const s = await serve(dataDir)
    const lib = await call(s.url, 'POST', 'library/', { name: 'kept' })
    assert.is(lib.status, 201)
    const [postmaster] = postgresOf(dataDir)
    s.child.kill('SIGKILL')
    await s.exited
    assert.ok(alive(postmaster), 'PostgreSQL outlives a killed mas')
    const again = await serve(dataDir)
    assert.equal(postgresOf(dataDir), [postmaster])
    assert.is((await call(again.url, 'GET', `library/${lib.data.id}/`)).data.name, 'kept')
    again.child.kill('SIGTERM')
    assert.is(await again.exited, 0, again.out())
    assert.equal(postgresOf(dataDir), [])
  } finally {
    await cleanup(dataDir)
  }
})

test('kill -9 of mas and of its PostgreSQL: the stale postmaster.pid is recovered from, committed rows intact', async () => {
  const dataDir = newDataDir()
  try {
    const s = await serve(dataDir)
    const lib = await call(s.url, 'POST', 'library/', { name: 'survives a crash' })
    const [postmaster] = postgresOf(dataDir)
    s.child.kill('SIGKILL')
    process.kill(postmaster, 'SIGKILL')
    await s.exited
    while (alive(postmaster)) await delay(20)
    assert.ok(statSync(join(dataDir, CLUSTER_DIR, 'postmaster.pid')).isFile(), 'a stale postmaster.pid is left')
    const again = await serve(dataDir)
    assert.is((await call(again.url, 'GET', `library/${lib.data.id}/`)).data.name, 'survives a crash')
    again.child.kill('SIGTERM')
    assert.is(await again.exited, 0, again.out())
    assert.equal(postgresOf(dataDir), [])
  } finally {
    await cleanup(dataDir)
  }
})

test("a crash's postmaster.pid whose pid now belongs to another live process: removed, the cluster started, that process left alone", async () => {
  const dataDir = newDataDir()
  const other = spawn('sleep', ['300'], { stdio: 'ignore' })
  try {
    const s = await serve(dataDir)
    const lib = await call(s.url, 'POST', 'library/', { name: 'survives a reused pid' })
    const [postmaster] = postgresOf(dataDir)
    s.child.kill('SIGKILL')
    process.kill(postmaster, 'SIGKILL')
    await s.exited
    while (alive(postmaster)) await delay(20)
    const pidFile = join(dataDir, CLUSTER_DIR, 'postmaster.pid')
    const lines = readFileSync(pidFile, 'utf8').split('\n')
    lines[0] = String(other.pid)
    writeFileSync(pidFile, lines.join('\n'))
    const again = await serve(dataDir)
    assert.is((await call(again.url, 'GET', `library/${lib.data.id}/`)).data.name, 'survives a reused pid')
    assert.ok(alive(other.pid!), 'the unrelated process was harmed')
    assert.is(readFileSync(pidFile, 'utf8').split('\n')[0], String(postgresOf(dataDir)[0]))
    again.child.kill('SIGTERM')
    assert.is(await again.exited, 0, again.out())
    assert.equal(postgresOf(dataDir), [])
  } finally {
    other.kill('SIGKILL')
    await cleanup(dataDir)
  }
})

test('--workers 2 and a separate mas worker start share one cluster; the last process to leave stops it', async () => {
  const dataDir = newDataDir()
  try {
    // --no-worker: the jobs are the separate worker's to run
    const s = await serve(dataDir, ['--workers', '2', '--log-level', 'warn', '--no-worker'])
    const project = await call(s.url, 'POST', 'project/', { name: 'p' })
    const worker = mas(['worker', 'start', '--data-dir', dataDir])
    const job = await call(s.url, 'POST', 'jobs/', {
      name: 'count',
      project: project.data.id,
      type: 8,
      parameters: { numToComplete: '2', secondsPerStep: '0' },
    })
    let status = 0
    for (let i = 0; i < 600 && status !== 6; i++) {
      await delay(100)
      status = (await call(s.url, 'GET', `jobs/${job.data.id}/`)).data.status
    }
    assert.is(status, 6, worker.out())
    assert.match(worker.out(), `job ${job.data.id}: complete`)
    assert.is(postgresOf(dataDir).length, 1, 'one cluster for every process')
    // the server leaves first: the worker still uses the cluster
    s.child.kill('SIGTERM')
    assert.is(await s.exited, 0, s.out())
    assert.is(postgresOf(dataDir).length, 1)
    worker.child.kill('SIGTERM')
    assert.is(await worker.exited, 0, worker.out())
    assert.match(worker.out(), /\nstopped: mas worker \S+\n$/)
    assert.equal(postgresOf(dataDir), [])
  } finally {
    await cleanup(dataDir)
  }
})

test('a data directory of the earlier PGlite-based mas is refused in one line and left untouched', async () => {
  const dataDir = newDataDir()
  try {
    mkdirSync(join(dataDir, 'db'), { recursive: true })
    writeFileSync(join(dataDir, 'db', 'PG_VERSION'), '17\n')
    writeFileSync(join(dataDir, 'db.lock'), '12345')
    const before = readdirSync(dataDir, { recursive: true }).sort()
    const r = mas(['server', 'start', '--port', '0', '--data-dir', dataDir])
    assert.is(await r.exited, 1)
    const lines = r.out().trim().split('\n')
    assert.is(lines.length, 1, r.out())
    assert.match(lines[0], 'made by an earlier version of mas')
    assert.match(lines[0], 'start fresh with another --data-dir')
    assert.equal(readdirSync(dataDir, { recursive: true }).sort(), before)
    assert.is(readFileSync(join(dataDir, 'db.lock'), 'utf8'), '12345')
  } finally {
    await cleanup(dataDir)
  }
})

const root = userInfo().uid === 0

test('as root the cluster runs as the account postgres; as another user, as that user', async () => {
  if (!root) {
    // not root: the cluster runs as this user (the other tests show it); root's case cannot be made here
    const dataDir = newDataDir()
    try {
      const s = await serve(dataDir)
      assert.equal(
        postgresOf(dataDir).map((pid) => statSync(`/proc/${pid}`).uid),
        [userInfo().uid],
      )
      s.child.kill('SIGTERM')
      assert.is(await s.exited, 0)
    } finally {
      await cleanup(dataDir)
    }
    return
  }
  const asRoot = newDataDir()
  try {
    const s = await serve(asRoot)
    const postgresUid = Number(statSync(join(asRoot, CLUSTER_DIR)).uid)
    assert.is.not(postgresUid, 0)
    assert.equal(
      postgresOf(asRoot).map((pid) => statSync(`/proc/${pid}`).uid),
      [postgresUid],
    )
    s.child.kill('SIGTERM')
    assert.is(await s.exited, 0)
    assert.equal(postgresOf(asRoot), [])
  } finally {
    await cleanup(asRoot)
  }
  // an ordinary user (nobody) runs mas and its cluster as itself
  const nobody = { uid: 65534, gid: 65534 }
  const dataDir = newDataDir()
  const home = join(dataDir, '..')
  chownSync(home, nobody.uid, nobody.gid)
  try {
    const s = await serve(dataDir, [], { ...nobody, env: { HOME: home } })
    assert.equal(
      postgresOf(dataDir).map((pid) => statSync(`/proc/${pid}`).uid),
      [nobody.uid],
    )
    assert.is((await call(s.url, 'POST', 'library/', { name: 'n' })).status, 201)
    s.child.kill('SIGTERM')
    assert.is(await s.exited, 0, s.out())
    assert.equal(postgresOf(dataDir), [])
  } finally {
    await cleanup(dataDir)
  }
})

test('as root, a data directory the account postgres cannot reach is refused in one line', async () => {
  if (!root) return
  const closed = mkdtempSync(join(tmpdir(), 'mas-closed-'))
  chmodSync(closed, 0o700)
  try {
    const r = mas(['server', 'start', '--port', '0', '--data-dir', join(closed, 'data')])
    assert.is(await r.exited, 1)
    const lines = r.out().trim().split('\n')
    assert.is(lines.length, 1, r.out())
    assert.match(lines[0], `cannot pass through ${closed}`)
  } finally {
    rmSync(closed, { recursive: true, force: true })
  }
})

test.run()
