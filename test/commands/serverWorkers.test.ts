import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openDatabase } from '../../server/db/database.js'
import { freePort } from '../../bench/processes.js'
import { postgresOf } from '../helpers/server.js'
import { tempDir } from '../helpers/tempDir.js'

// `mas server start --workers N`: N processes sharing one port and one database.

const BIN = join(process.cwd(), 'bin', 'run.js')

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'server', 'start', ...args], {
    env: { ...process.env, MAS_ADMIN_USERNAME: 'root', MAS_ADMIN_PASSWORD: 'root-pass', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (d) => {
    out += d
  })
  child.stderr!.on('data', (d) => {
    out += d
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, exited, output: () => out }
}

test('--workers 2: two server processes answer on one port and stop on SIGTERM (embedded PostgreSQL or DATABASE_URL)', async () => {
  const url = process.env.DATABASE_URL
  const schema = `wrk_${randomBytes(5).toString('hex')}`
  const dataDir = tempDir('mas-workers-')
  const admin = url ? await openDatabase({ url, poolSize: 1 }) : undefined
  await admin?.db.schema.createSchema(schema).execute()
  try {
    const port = await freePort()
    const env = url
      ? {
          DATABASE_URL: `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
        }
      : { DATABASE_URL: '' }
    const r = run(['--workers', '2', '--port', String(port), '--log-level', 'warn', '--data-dir', dataDir], env)
    let pids = new Set<number>()
    for (let i = 0; i < 150 && pids.size < 2; i++) {
      await new Promise((res) => setTimeout(res, 200))
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { connection: 'close' } })
        if (res.ok) pids = new Set([...pids, ...childPids(r.child.pid!)])
      } catch {
        /* not up yet */
      }
    }
    assert.is(pids.size, 2, r.output())
    const login = await fetch(`http://127.0.0.1:${port}/api/v0/`, {
      headers: { authorization: `Basic ${Buffer.from('root:root-pass').toString('base64')}` },
    })
    assert.is(login.status, 200)
    r.child.kill('SIGTERM')
    assert.is(await r.exited, 0)
    // the primary's last line says what stopped
    const last = r
      .output()
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .at(-1)!
    assert.is(JSON.parse(last).msg, 'stopped: 2 server processes and the job worker', r.output())
    assert.equal(postgresOf(dataDir), [])
  } finally {
    await admin?.db.schema.dropSchema(schema).cascade().execute()
    await admin?.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
})

/** The server processes of the primary `pid` (not the PostgreSQL it started). */
function childPids(pid: number): number[] {
  let pids: number[] = []
  try {
    pids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
  return pids.filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(BIN)
    } catch {
      return false
    }
  })
}

test.run()
