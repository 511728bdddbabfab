import { spawn } from 'node:child_process'
import { ALL_JOB_TYPES } from '../../server/analysis/catalog.js'
import { request } from 'node:http'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { BIN, postgresOf, serverHome } from '../helpers/server.js'

// `mas server start` as a user runs it: a child process, a real port, a signal to stop.

test('server start: migrates, bootstraps the admin, serves, and finishes an in-flight request on SIGTERM', async () => {
  const home = await serverHome()
  const s = await home.start()
  const port = Number(new URL(s.url).port)
  try {
    const res = await fetch(`${s.url}/api-token-auth/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password: 'root-pass' }),
    })
    assert.is(res.status, 200)
    const { token } = (await res.json()) as { token: string }
    const types = await fetch(`${s.url}/api/v0/jobTypes/`, { headers: { authorization: `Token ${token}` } })
    assert.is(((await types.json()) as { count: number }).count, ALL_JOB_TYPES.length)

    // a request whose body is still arriving when the signal comes must still be answered
    const body = JSON.stringify({ username: 'root', password: 'root-pass' })
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api-token-auth/',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (r) => {
          let text = ''
          r.on('data', (d) => {
            text += d
          })
          r.on('end', () => resolve({ status: r.statusCode ?? 0, text }))
        },
      )
      req.on('error', reject)
      req.write(body.slice(0, 10))
      setTimeout(() => {
        s.child.kill('SIGTERM')
        setTimeout(() => req.end(body.slice(10)), 300)
      }, 200)
    })
    const late = await answered
    assert.is(late.status, 200)
    assert.is(JSON.parse(late.text).token, token)
    assert.is(await s.exited, 0)
    assert.match(s.output(), /shutting down/)
    assert.is(
      lastLogLine(s.output()),
      `stopped: server on ${s.url} and its job worker; 1 request in flight finished`,
      s.output().split('\n').slice(-8).join('\n'),
    )
    assert.not.match(s.output(), /root-pass/)
  } finally {
    if (s.child.exitCode === null) s.child.kill('SIGKILL')
    await home.cleanup()
  }
})

/** The message of the last JSON line of a server's output. */
const lastLogLine = (output: string) =>
  JSON.parse(
    output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .at(-1)!,
  ).msg as string

test('server start: Ctrl-C ends with one line saying what stopped: the address, the job worker and the job it gave back, the health checks answered', async () => {
  const home = await serverHome()
  const s = await home.start()
  try {
    const login = await fetch(`${s.url}/api-token-auth/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password: 'root-pass' }),
    })
    const headers = {
      authorization: `Token ${((await login.json()) as { token: string }).token}`,
      'content-type': 'application/json',
    }
    const call = async (method: string, path: string, body?: unknown) =>
      (
        await fetch(`${s.url}/api/v0/${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json() as Promise<any>
    const project = await call('POST', 'project/', { name: 'p' })
    const job = await call('POST', 'jobs/', {
      name: 'long count',
      project: project.id,
      type: 8,
      parameters: { numToComplete: '1000', secondsPerStep: '0.2' },
    })
    for (let i = 0; i < 3; i++) assert.is((await fetch(`${s.url}/healthz`)).status, 200)
    while ((await call('GET', `jobs/${job.id}/`)).status !== 3) await new Promise((resolve) => setTimeout(resolve, 100))
    s.child.kill('SIGINT')
    assert.is(await s.exited, 0)
    assert.is(
      lastLogLine(s.output()),
      `stopped: server on ${s.url} and its job worker (job ${job.id} back in the queue); 3 health checks answered`,
    )
    assert.not.match(s.output(), /healthz/)
  } finally {
    if (s.child.exitCode === null) s.child.kill('SIGKILL')
    await home.cleanup()
  }
})

test('server start: Ctrl-C after its log reader went (npm start | tee) still stops the embedded PostgreSQL', async () => {
  const home = await serverHome({ embedded: true })
  const s = await home.start()
  try {
    assert.ok(postgresOf(home.dataDir).length > 0, 'the embedded PostgreSQL runs')
    // the reader of its output ends, as tee does on Ctrl-C: the server's next lines meet a closed pipe
    s.child.stdout!.destroy()
    s.child.stderr!.destroy()
    s.child.kill('SIGINT')
    assert.is(await s.exited, 0)
    assert.equal(postgresOf(home.dataDir), [], 'no PostgreSQL left running on its data directory')
  } finally {
    if (s.child.exitCode === null) s.child.kill('SIGKILL')
    await home.cleanup()
  }
})

test('server start: a generated admin password is printed once, on first start only; --no-worker and --with-worker are taken', async () => {
  const home = await serverHome()
  const run = (...extra: string[]) =>
    new Promise<string>((resolve) => {
      const child = spawn(
        process.execPath,
        [BIN, 'server', 'start', '--port', '0', '--data-dir', home.dataDir, ...extra],
        {
          env: { ...process.env, ...home.env, MAS_ADMIN_PASSWORD: '', MAS_ADMIN_USERNAME: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      let out = ''
      const onData = (d: Buffer) => {
        out += d
        if (/listening on/.test(out) && /stop with Ctrl-C/.test(out)) child.kill('SIGINT')
      }
      child.stdout.on('data', onData)
      child.stderr.on('data', onData)
      child.on('exit', () => resolve(out))
    })
  try {
    const first = await run()
    const m = /Created the first admin user "admin" with password: (\S+)/.exec(first)
    assert.ok(m, first)
    assert.match(first, /jobs: +run in this process, one at a time/)
    const second = await run('--no-worker')
    assert.not.match(second, /password:/)
    assert.match(second, /jobs: +left to mas worker start \(--no-worker\)/)
    const third = await run('--with-worker')
    assert.match(third, /jobs: +run in this process, one at a time/)
  } finally {
    await home.cleanup()
  }
})

test('server start: MAS_TRUST_PROXY=true still works, with a warning; a value it cannot read is refused in one line', async () => {
  const home = await serverHome({ env: { MAS_TRUST_PROXY: 'true' } })
  try {
    const s = await home.start()
    s.child.kill('SIGINT')
    await s.exited
    assert.match(s.output(), /MAS_TRUST_PROXY=true believes X-Forwarded-For from any peer/)
    const refused = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'server', 'start', '--port', '0', '--data-dir', home.dataDir], {
        env: { ...process.env, ...home.env, MAS_TRUST_PROXY: 'the-load-balancer' },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let out = ''
      child.stdout.on('data', (d) => {
        out += d
      })
      child.stderr.on('data', (d) => {
        out += d
      })
      child.on('exit', (code) => resolve({ code, out }))
    })
    assert.is(refused.code, 1)
    assert.equal(refused.out.trim().split('\n'), [
      'Error: MAS_TRUST_PROXY must be the proxies\' addresses or CIDR ranges separated by commas, a number of hops, true or false, not "the-load-balancer"',
    ])
  } finally {
    await home.cleanup()
  }
})

test.run()
