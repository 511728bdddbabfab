import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openDatabase } from '../../server/db/database.js'
import { freePort } from '../../bench/processes.js'

// `mas server start --workers N`: N processes sharing one port on PostgreSQL;
// refused on the embedded database, which only one process may open.

const BIN = join(process.cwd(), 'bin', 'run.js')

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'server', 'start', ...args], {
    env: { ...process.env, MAS_ADMIN_USERNAME: 'root', MAS_ADMIN_PASSWORD: 'root-pass', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (d) => { out += d })
  child.stderr!.on('data', (d) => { out += d })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, exited, output: () => out }
}

test('--workers above 1 on the embedded database is refused with a clear message', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-workers-'))
  const r = run(['--workers', '2', '--port', '0', '--data-dir', dataDir], { DATABASE_URL: '' })
  assert.is(await r.exited, 2)
  assert.match(r.output().replace(/\s+›?\s*/g, ' '), 'needs PostgreSQL (DATABASE_URL)')
})

test('--workers 2 on PostgreSQL: two server processes answer on one port and stop on SIGTERM (one process on the embedded database)', async () => {
  const url = process.env.DATABASE_URL
  if (!url) {
    // the embedded database: --workers 1 (the default) is one process serving directly
    const port = await freePort()
    const r = run(['--workers', '1', '--port', String(port), '--log-level', 'warn', '--data-dir', mkdtempSync(join(tmpdir(), 'mas-workers-'))], { DATABASE_URL: '' })
    let ok = false
    for (let i = 0; i < 100 && !ok; i++) {
      await new Promise((res) => setTimeout(res, 200))
      ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((res) => res.ok, () => false)
    }
    assert.ok(ok, r.output())
    assert.equal(childPids(r.child.pid!), [])
    r.child.kill('SIGTERM')
    assert.is(await r.exited, 0)
    return
  }
  const schema = `wrk_${randomBytes(5).toString('hex')}`
  const admin = await openDatabase({ url, poolSize: 1 })
  await admin.db.schema.createSchema(schema).execute()
  try {
    const port = await freePort()
    const env = { DATABASE_URL: `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}` }
    const r = run(['--workers', '2', '--port', String(port), '--log-level', 'warn'], env)
    let pids = new Set<number>()
    for (let i = 0; i < 100 && pids.size < 2; i++) {
      await new Promise((res) => setTimeout(res, 200))
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { connection: 'close' } })
        if (res.ok) pids = new Set([...pids, ...childPids(r.child.pid!)])
      } catch { /* not up yet */ }
    }
    assert.is(pids.size, 2, r.output())
    const login = await fetch(`http://127.0.0.1:${port}/api/v0/`, { headers: { authorization: `Basic ${Buffer.from('root:root-pass').toString('base64')}` } })
    assert.is(login.status, 200)
    r.child.kill('SIGTERM')
    assert.is(await r.exited, 0)
  } finally {
    await admin.db.schema.dropSchema(schema).cascade().execute()
    await admin.close()
  }
})

function childPids(pid: number): number[] {
  try { return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) } catch { return [] }
}

test.run()
