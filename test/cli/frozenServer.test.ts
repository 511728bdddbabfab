import type { ChildProcess } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { waitFor } from '../helpers/jobs.js'
import { serverHome, type ServerHome, type ServerProcess } from '../helpers/server.js'
import { tempDir } from '../helpers/tempDir.js'
import { makeWav } from '../helpers/wav.js'
import { homeEnv, json, runMas, type Run } from './cli.js'

// A server that accepts connections and never answers (frozen, not dead) is given up on like one that
// cannot be reached: every request has a response timeout (--timeout), and `mas media import` stops with
// the same one line saying how to finish; a re-run once the server answers again completes the import.

const FILES = 60

let home: ServerHome
let server: ServerProcess | undefined
let silent: Server
const sockets: Socket[] = []
let folder: string
let cliHome: string
let token: string

/** `mas args…`, killed (and the test failed) if it has not ended within `seconds`: a hang is a failure, not a stuck run */
async function masWithin(seconds: number, args: string[], env: Record<string, string>): Promise<Run> {
  let child: ChildProcess | undefined
  const run = runMas(args, {
    env: { ...homeEnv(cliHome), ...env },
    onStderr: (_t, c) => {
      child = c
    },
  })
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<Run>((resolve) => {
    timer = setTimeout(() => {
      child?.kill('SIGKILL')
      resolve({ code: null, stdout: '', stderr: `still running after ${seconds} s` })
    }, seconds * 1000)
  })
  const result = await Promise.race([run, deadline])
  clearTimeout(timer)
  if (result.code === null) child?.kill('SIGKILL')
  return result
}

test.before(async () => {
  silent = createServer((socket) => {
    sockets.push(socket)
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  home = await serverHome()
  server = await home.start()
  cliHome = tempDir('mas-frozen-cli-')
  folder = join(cliHome, 'season')
  mkdirSync(folder)
  for (let i = 0; i < FILES; i++)
    writeFileSync(
      join(folder, `rec${String(i).padStart(3, '0')}.wav`),
      makeWav({ frequency: 200 + i, seconds: 4, sampleRate: 22050 }),
    )
  token = (
    await (
      await fetch(`${server.url}/api-token-auth/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'root', password: 'root-pass' }),
      })
    ).json()
  ).token
})
test.after(async () => {
  for (const s of sockets) s.destroy()
  silent.close()
  if (server) {
    server.child.kill('SIGCONT')
    server.child.kill('SIGKILL')
    await server.exited
  }
  await home.cleanup()
  rmSync(home.dataDir, { recursive: true, force: true })
  rmSync(cliHome, { recursive: true, force: true })
})

test('a server that accepts and never answers: the command gives up after --timeout, in one line, exit 1', async () => {
  const { port } = silent.address() as { port: number }
  const run = await masWithin(60, ['library', 'list', '--timeout', '1'], {
    MAS_SERVER: `http://127.0.0.1:${port}`,
    MAS_TOKEN: 'f'.repeat(40),
    MAS_RETRIES: '1',
  })
  assert.is(run.code, 1, run.stderr)
  const said = run.stderr.trim().split('\n')
  assert.is(said.length, 1, run.stderr)
  assert.match(said[0], /^Error: Cannot reach the server at http:\/\/127\.0\.0\.1:\d+ \(ETIMEDOUT\)/)
})

test('the server frozen (SIGSTOP) mid-import: "gave up … run the same command again to finish", exit 1; a re-run completes', async () => {
  const env = { MAS_SERVER: server!.url, MAS_TOKEN: token, MAS_RETRIES: '1' }
  const library = (
    await (
      await fetch(`${server!.url}/api/v0/library/`, {
        method: 'POST',
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'frozen' }),
      })
    ).json()
  ).id as number
  const count = async () =>
    (
      await (
        await fetch(`${server!.url}/api/v0/mediaFile/?library=${library}&page_size=1`, {
          headers: { authorization: `Token ${token}` },
        })
      ).json()
    ).count as number
  const importing = masWithin(
    120,
    ['media', 'import', folder, '--library', String(library), '--concurrency', '2', '--timeout', '2'],
    env,
  )
  await waitFor('some files imported', async () => (await count()) >= 3, 60)
  server!.child.kill('SIGSTOP')
  const run = await importing
  server!.child.kill('SIGCONT')
  assert.is(run.code, 1, run.stderr)
  const said = run.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('Error:'))
  assert.is(said.length, 1, run.stderr)
  // the freeze lands during an upload or during the pre-check of a later batch: both end in the same advice
  assert.match(
    said[0],
    /Cannot reach the server .*\(ETIMEDOUT\).*(gave up after \d+ uploads in a row could not reach it|the check of what it holds failed)/,
    said[0],
  )
  assert.match(said[0], /Run the same command again to finish/, said[0])

  const rerun = await masWithin(120, ['media', 'import', folder, '--library', String(library), '--json'], env)
  assert.is(rerun.code, 0, rerun.stderr)
  assert.ok(json(rerun).every((r: any) => r.outcome === 'imported' || r.outcome === 'duplicate'))
  assert.is(await count(), FILES)
})

test.run()
