import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { migrate, openDatabase } from '../../server/db/database.js'
import { Worker } from '../../server/jobs/worker.js'
import { cliWorld, json } from '../cli/cli.js'
import { makeJob, makeProject, waitFor } from '../helpers/jobs.js'
import { tempDir } from '../helpers/tempDir.js'

// The worker as people run it: `mas server start` (which runs one) and
// `mas worker start` on the embedded database, and a job created and watched
// to its end with the CLI while a worker runs it.

const BIN = resolve(fileURLToPath(import.meta.url), '../../../../bin/run.js')

function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], {
    // the embedded database: these commands are about it, whatever database the suite uses
    env: { ...process.env, DATABASE_URL: '', MAS_IMPORT_ROOT: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams
  const out = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (c) => {
    out.stdout += c
  })
  child.stderr.setEncoding('utf8').on('data', (c) => {
    out.stderr += c
  })
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)))
  /** the process's output, for a failure message */
  const log = () => `stdout:\n${out.stdout.slice(-4000)}\nstderr:\n${out.stderr.slice(-4000)}`
  return { child, out, exited, log }
}

test('mas server start runs queued jobs in the server process by default, and /healthz counts its worker', async () => {
  const dataDir = tempDir('mas-with-worker-')
  const server = start(['server', 'start', '--port', '0', '--data-dir', dataDir], {
    MAS_ADMIN_USERNAME: 'root',
    MAS_ADMIN_PASSWORD: 'root-password',
  })
  try {
    const base = await waitFor(
      'the server to listen',
      async () => /listening on (http:\/\/[\d.:]+)/.exec(server.out.stdout)?.[1],
      60,
    )
    const token = (
      await (
        await fetch(`${base}/api-token-auth/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'root', password: 'root-password' }),
        })
      ).json()
    ).token
    const call = async (method: string, path: string, body?: unknown) =>
      (
        await fetch(`${base}/api/v0/${path}`, {
          method,
          headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json()
    const health = await (await fetch(`${base}/healthz`)).json()
    assert.equal(health, { status: 'ok', database: 'ok', workers: 1 })
    assert.match(server.out.stderr, /jobs: +run in this process, one at a time/)
    const project = await call('POST', 'project/', { name: 'p' })
    const job = await call('POST', 'jobs/', {
      name: 'count',
      project: project.id,
      type: 8,
      parameters: { numToComplete: '3', secondsPerStep: '0' },
    })
    const done = await waitFor(
      'the job to complete',
      async () => {
        const j = await call('GET', `jobs/${job.id}/`)
        return j.status === 6 ? j : undefined
      },
      60,
    )
    assert.equal([done.numCompleted, done.isComplete], [3, true])
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${server.log()}`)
  } finally {
    server.child.kill('SIGTERM')
  }
  assert.is(await server.exited, 0, server.log())
  rmSync(dataDir, { recursive: true, force: true })
})

test('mas worker start runs the queued jobs of the embedded database and stops cleanly', async () => {
  const dataDir = tempDir('mas-worker-')
  const prepare = await openDatabase({ dataDir })
  await migrate(prepare.db)
  const user = await prepare.db
    .insertInto('users')
    .values({ username: 'u', password: 'x', date_joined: '2026-01-01 00:00:00' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const project = await makeProject(prepare.db, user)
  const id = await makeJob(prepare.db, user, project, 8, { numToComplete: '2', secondsPerStep: '0' })
  await prepare.close()

  const worker = start(['worker', 'start', '--data-dir', dataDir], {})
  try {
    await waitFor('the job to complete', async () => worker.out.stderr.includes(`job ${id}: complete`), 60)
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${worker.log()}`)
  } finally {
    worker.child.kill('SIGTERM')
  }
  assert.is(await worker.exited, 0, worker.log())
  assert.match(
    worker.out.stderr,
    /running \d+ job\(s\) at a time on \d+ analysis thread\(s\) \(embedded PostgreSQL in /,
  )
  const after = await openDatabase({ dataDir })
  const row = await after.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  await after.close()
  assert.equal([row.status_id, row.num_completed, row.is_complete, row.worker_id], [6, 2, true, null])
  rmSync(dataDir, { recursive: true, force: true })
})

test('a job created with mas job create is watched to completion with mas job watch', async () => {
  const world = await cliWorld()
  const worker = new Worker({ db: world.t.db, config: world.t.app.config, pollMs: 20 }).start()
  try {
    const alice = await world.t.user('alice')
    assert.is((await world.login(alice)).code, 0)
    const project = await makeProject(world.t.db, alice)
    const created = await world.mas([
      'job',
      'create',
      '--project',
      String(project),
      '--type',
      'Test',
      '--param',
      'numToComplete=4',
      '--param',
      'secondsPerStep=0',
      '--json',
    ])
    assert.is(created.code, 0, created.stderr)
    const id = json(created).id
    const watched = await world.mas(['job', 'watch', String(id), '--interval', '1', '--json'])
    assert.is(watched.code, 0, watched.stderr)
    const job = json(watched)
    assert.equal([job.status, job.numCompleted, job.fractionCompleted], [6, 4, 1])
  } finally {
    await worker.stop()
    await world.close()
  }
})

test.run()
