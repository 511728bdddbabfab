import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { COMPLETE } from '../../server/analysis/state.js'
import { buildApp } from '../../server/app.js'
import { REASON_CHARS, refusalReason } from '../../server/http/refusalReason.js'
import { renewHeartbeat } from '../../server/jobs/heartbeat.js'
import { serverLog, type ServerLog } from '../../server/log.js'
import { homeEnv, runMas } from '../cli/cli.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { makeJob, makeProject, waitFor } from '../helpers/jobs.js'

// The request lines of the server's log, as an app built with server/log.ts writes them: a refused request's
// line carries the reason its answer gave (never a secret), and health checks answered 200 are counted, not
// logged; `mas job watch` asks for one only once.

const t = suiteApp(test)
let alice: TestUser

interface LoggedApp {
  app: FastifyInstance
  log: ServerLog
  written: () => string
}

async function loggedApp(format: 'json' | 'pretty'): Promise<LoggedApp> {
  let text = ''
  const out = new Writable({
    write(chunk, _enc, cb) {
      text += chunk.toString()
      cb()
    },
  })
  const log = serverLog(format, 'info', out)
  const app = await buildApp({ database: t.database, config: t.app.config, ...log })
  t.beforeClose(() => app.close())
  return { app, log, written: () => text }
}

const json = { 'content-type': 'application/json' }

test.before(async () => {
  alice = await t.user('alice', { password: 'alice-Secret-Pass-0001' })
})

test('JSON lines: a 4xx "request completed" carries its reason; a wrong password is refused without being logged', async () => {
  const { app, written } = await loggedApp('json')
  assert.is(
    (await app.inject({ method: 'POST', url: '/api/v0/library/', headers: { ...json, ...alice.auth }, payload: '{}' }))
      .statusCode,
    400,
  )
  assert.is((await app.inject({ method: 'GET', url: '/api/v0/library/99999/', headers: alice.auth })).statusCode, 404)
  const wrong = await app.inject({
    method: 'POST',
    url: '/api-token-auth/',
    headers: json,
    payload: JSON.stringify({ username: 'alice', password: 'alice-Secret-Pass-0001-wrong' }),
  })
  assert.is(wrong.statusCode, 400)
  assert.is((await app.inject({ method: 'GET', url: '/api/v0/library/', headers: alice.auth })).statusCode, 200)
  const completed = written()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
    .filter((e) => e.msg === 'request completed')
    .map((e) => [e.res.statusCode, e.reason])
  assert.equal(completed, [
    [400, 'name: This field is required.'],
    [404, 'Not found.'],
    [400, 'Unable to log in with provided credentials.'],
    [200, undefined],
  ])
  assert.not.ok(written().includes('alice-Secret-Pass-0001'), 'the password is in the log')
  assert.not.ok(written().includes(alice.token), 'the token is in the log')
})

test('readable lines: the reason after the time taken; health checks answered 200 counted, not logged', async () => {
  const { app, log, written } = await loggedApp('pretty')
  const tag = await app.inject({
    method: 'POST',
    url: '/api/v0/tag/',
    headers: { ...json, ...alice.auth },
    payload: JSON.stringify({ tagSet: 999999, mediaFile: 1, startTime: 'soon' }),
  })
  assert.is(tag.statusCode, 400)
  for (let i = 0; i < 3; i++) assert.is((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
  const lines = written()
    .split('\n')
    .filter((l) => /INFO: [A-Z]+ \//.test(l))
    .map((l) => l.replace(/^\[[\d:.]+\] /, '').replace(/ [\d.]+ ms/, ' N ms'))
  assert.is(lines.length, 1, written())
  assert.match(lines[0], /^INFO: POST \/api\/v0\/tag\/ 400 N ms — \S+: /)
  // the line says what the client read
  const reason = lines[0].slice(lines[0].indexOf(' — ') + 3)
  assert.is(reason, refusalReason(tag.body))
  assert.not.match(written(), /healthz/)
  assert.is(log.logController.healthChecks, 3)
})

test('the reason of every error shape: detail, field and nested errors, bulk items; quoted text of secret fields withheld; cut to its length', () => {
  assert.is(refusalReason('{"detail":"Not found."}'), 'Not found.')
  assert.is(
    refusalReason('{"startTime":["A valid number is required."],"non_field_errors":["Bad."]}'),
    'startTime: A valid number is required.; Bad.',
  )
  assert.is(
    refusalReason('{"parameters":{"minFrequency":["Must be a number."]}}'),
    'parameters.minFrequency: Must be a number.',
  )
  assert.is(refusalReason('[{},{"endTime":["Too late."]}]'), '[1] endTime: Too late.')
  assert.is(
    refusalReason('{"password":["\\"hunter2\\" is too common."],"name":["\\"x\\" is taken."]}'),
    'password: "[redacted]" is too common.; name: "x" is taken.',
  )
  assert.is(refusalReason(Buffer.from('{"token":["\'abc123\' is not valid."]}')), 'token: "[redacted]" is not valid.')
  const long = refusalReason(JSON.stringify({ detail: 'x'.repeat(1000) }))!
  assert.is(long.length, REASON_CHARS)
  assert.ok(long.endsWith('…'))
  assert.is(refusalReason('not json'), null)
  assert.is(refusalReason('{}'), null)
})

test('mas job watch asks whether a worker runs once, however long the job stays queued', async () => {
  const { app, log, written } = await loggedApp('json')
  const server = await app.listen({ port: 0, host: '127.0.0.1' })
  const home = mkdtempSync(join(tmpdir(), 'mas-cli-home-'))
  try {
    const env = homeEnv(home)
    const login = await runMas(['login', '--server', server, '--username', 'alice', '--password-stdin'], {
      input: 'alice-Secret-Pass-0001\n',
      env,
    })
    assert.is(login.code, 0, login.stderr)
    await renewHeartbeat(t.db, 'a-worker-that-runs-nothing')
    const job = await makeJob(t.db, alice, await makeProject(t.db, alice), 8, { numToComplete: '1' })
    const polled = () =>
      written()
        .split('\n')
        .filter((l) => l.includes(`"url":"/api/v0/jobs/${job}/"`) && l.includes('incoming request')).length
    const watching = runMas(['job', 'watch', String(job), '--interval', '1'], { env })
    // the job stays queued for several polls, a worker alive all the while
    await waitFor('four polls of the queued job', async () => polled() >= 4)
    await t.db
      .updateTable('jobs')
      .set({ status_id: COMPLETE, is_complete: true, is_running: false })
      .where('id', '=', job)
      .execute()
    const run = await watching
    assert.is(run.code, 0, run.stderr)
    assert.not.match(run.stderr, /no job worker is running/)
    assert.is(log.logController.healthChecks, 1)
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
})

test.run()
