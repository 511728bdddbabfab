import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CLUSTER_DIR, runningUrl, stopCluster } from '../../server/db/cluster.js'
import { postgresOf, serverHome, type ServerHome, type ServerProcess } from '../helpers/server.js'

// The embedded PostgreSQL going away under a running server, for real: its sessions ended, and the cluster
// stopped. The server keeps serving once the cluster is back, starts it again when nobody else does, and
// holds its attach lock again each time (docs/decisions.md §16), so that the last process to leave still
// stops the cluster and no other one stops it under this server.

const ATTACH_LOCK = 0x6d6173

let home: ServerHome
let server: ServerProcess
let token: string

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; data: any }> {
  try {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Token ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, data: text ? JSON.parse(text) : undefined }
  } catch (e) {
    return { status: 0, data: String(e) }
  }
}

/** A superuser session on the cluster's `postgres` database, through its socket. */
async function session<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const url = await runningUrl(home.dataDir, 'postgres')
  if (!url) throw new Error('the embedded cluster is not running')
  const c = new pg.Client({ connectionString: url })
  c.on('error', () => {})
  await c.connect()
  try {
    return await work(c)
  } finally {
    await c.end().catch(() => {})
  }
}

const lockHolders = () =>
  session(
    async (c) =>
      (
        await c.query<{ n: number }>(
          `select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = $1 and mode = 'ShareLock' and granted`,
          [ATTACH_LOCK],
        )
      ).rows[0].n,
  )

/** Waits (up to 30 s) until `check` holds, returning its last value. */
async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  let v = await read().catch(() => undefined as T)
  for (let i = 0; i < 300 && (v === undefined || !check(v)); i++) {
    await delay(100)
    v = await read().catch(() => undefined as T)
  }
  return v
}

test.before(async () => {
  home = await serverHome({ embedded: true })
  server = await home.start()
  const res = await fetch(`${server.url}/api-token-auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: 'root-pass' }),
  })
  token = (await res.json()).token
  assert.is((await api('POST', '/api/v0/library/', { name: 'before' })).status, 201)
})

test.after(async () => {
  if (server.child.exitCode === null) {
    server.child.kill('SIGKILL')
    await server.exited
  }
  await home.cleanup()
})

test('the server holds the attach lock of its cluster', async () => {
  assert.is(await lockHolders(), 1)
})

test('every session of the cluster ended: the lock is taken again, and requests are served', async () => {
  const ended = await session(
    async (c) =>
      (
        await c.query<{ n: number }>(
          `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()`,
        )
      ).rows[0].n,
  )
  assert.ok(ended >= 2, `ended ${ended} sessions`) // the lock's and at least one of the pool's
  assert.is(await eventually(lockHolders, (n) => n === 1), 1)
  const health = await eventually(
    () => api('GET', '/healthz'),
    (r) => r.status === 200,
  )
  assert.is(health.status, 200, JSON.stringify(health.data))
  assert.is(server.child.exitCode, null, server.output())
})

test('the cluster stopped under the server: started again by it, with its data, and the lock held again', async () => {
  const before = postgresOf(home.dataDir)
  assert.is(before.length, 1)
  await stopCluster(join(home.dataDir, CLUSTER_DIR))
  // its postmaster is gone; the server may have started the next one already (on a busy machine it did, before
  // this line ran), so what is checked is that the one stopped is not running
  assert.not.ok(postgresOf(home.dataDir).includes(before[0]), 'the cluster stopped')

  const health = await eventually(
    () => api('GET', '/healthz'),
    (r) => r.status === 200,
  )
  assert.is(health.status, 200, `${JSON.stringify(health.data)}\n${server.output()}`)
  assert.is(postgresOf(home.dataDir).length, 1)
  assert.is(await eventually(lockHolders, (n) => n === 1), 1)
  const made = await api('POST', '/api/v0/library/', { name: 'after' })
  assert.is(made.status, 201, JSON.stringify(made.data))
  const names = (await api('GET', '/api/v0/library/')).data.results.map((l: { name: string }) => l.name).sort()
  assert.equal(names, ['after', 'before'])
  assert.is(server.child.exitCode, null, server.output())
})

test('the server leaving last stops the cluster it started again', async () => {
  server.child.kill('SIGTERM')
  assert.is(await server.exited, 0, server.output())
  assert.equal(postgresOf(home.dataDir), [])
})

test.run()
