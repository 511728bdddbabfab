import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openDatabase } from '../../server/db/database.js'

// `mas server start` as a user runs it: a child process, a real port, a signal to stop.

const BIN = join(process.cwd(), 'bin', 'run.js')

interface Started { child: ChildProcess; port: number; output: () => string; exited: Promise<number | null> }

async function databaseEnv(): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  const url = process.env.DATABASE_URL
  if (!url) return { env: { DATABASE_URL: '' }, cleanup: async () => {} }
  const schema = `srv_${randomBytes(5).toString('hex')}`
  const admin = await openDatabase({ url, poolSize: 1 })
  await admin.db.schema.createSchema(schema).execute()
  return {
    env: { DATABASE_URL: `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}` },
    cleanup: async () => { await admin.db.schema.dropSchema(schema).cascade().execute(); await admin.close() },
  }
}

async function start(env: Record<string, string>): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-server-'))
  const child = spawn(process.execPath, [BIN, 'server', 'start', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, MAS_ADMIN_USERNAME: 'root', MAS_ADMIN_PASSWORD: 'root-pass', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (d) => { out += d })
  child.stderr!.on('data', (d) => { out += d })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (m) { clearInterval(timer); resolve(Number(m[1])) }
    }, 50)
    exited.then((code) => { clearInterval(timer); reject(new Error(`server exited (${code}): ${out}`)) })
  })
  return { child, port, output: () => out, exited }
}

test('server start: migrates, bootstraps the admin, serves, and finishes an in-flight request on SIGTERM', async () => {
  const db = await databaseEnv()
  const s = await start(db.env)
  try {
    const res = await fetch(`http://127.0.0.1:${s.port}/api-token-auth/`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'root', password: 'root-pass' }),
    })
    assert.is(res.status, 200)
    const { token } = await res.json() as { token: string }
    const types = await fetch(`http://127.0.0.1:${s.port}/api/v0/jobTypes/`, { headers: { authorization: `Token ${token}` } })
    assert.is((await types.json() as { count: number }).count, 11)

    // a request whose body is still arriving when the signal comes must still be answered
    const body = JSON.stringify({ username: 'root', password: 'root-pass' })
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: s.port, method: 'POST', path: '/api-token-auth/',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (r) => {
        let text = ''
        r.on('data', (d) => { text += d })
        r.on('end', () => resolve({ status: r.statusCode ?? 0, text }))
      })
      req.on('error', reject)
      req.write(body.slice(0, 10))
      setTimeout(() => { s.child.kill('SIGTERM'); setTimeout(() => req.end(body.slice(10)), 300) }, 200)
    })
    const late = await answered
    assert.is(late.status, 200)
    assert.is(JSON.parse(late.text).token, token)
    assert.is(await s.exited, 0)
    assert.match(s.output(), /shutting down/)
    assert.not.match(s.output(), /root-pass/)
  } finally {
    if (s.child.exitCode === null) s.child.kill('SIGKILL')
    await db.cleanup()
  }
})

test('server start: a generated admin password is printed once, on first start only', async () => {
  const db = await databaseEnv()
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-server-'))
  const run = () => new Promise<string>((resolve) => {
    const child = spawn(process.execPath, [BIN, 'server', 'start', '--port', '0', '--data-dir', dataDir],
      { env: { ...process.env, MAS_ADMIN_PASSWORD: '', MAS_ADMIN_USERNAME: '', ...db.env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    const onData = (d: Buffer) => {
      out += d
      if (/listening on/.test(out)) child.kill('SIGINT')
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', () => resolve(out))
  })
  try {
    const first = await run()
    const m = /Created the first admin user "admin" with password: (\S+)/.exec(first)
    assert.ok(m, first)
    const second = await run()
    assert.not.match(second, /password:/)
  } finally {
    await db.cleanup()
  }
})

test.run()
