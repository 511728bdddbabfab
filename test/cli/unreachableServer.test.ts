import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { waitFor } from '../helpers/jobs.js'
import { killHard, serverHome, type ServerHome, type ServerProcess } from '../helpers/server.js'
import { makeWav } from '../helpers/wav.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// When the server dies in the middle of `mas media import`, the import stops
// after a few uploads in a row could not reach it, says so in one line with how
// to finish, and exits 1; the same command run again completes the import.

const FILES = 120

let w: CliWorld
let home: ServerHome
let server: ServerProcess | undefined
let folder: string
let token: string

test.before(async () => {
  w = await cliWorld()
  home = await serverHome()
  server = await home.start()
  folder = join(w.newHome(), 'season')
  mkdirSync(folder)
  // distinct bytes, large enough that the import is still running when the server is killed
  for (let i = 0; i < FILES; i++) {
    writeFileSync(
      join(folder, `rec${String(i).padStart(3, '0')}.wav`),
      makeWav({ frequency: 200 + i, seconds: 4, sampleRate: 22050 }),
    )
  }
})
test.after(async () => {
  if (server) await killHard(server)
  await home.cleanup()
  rmSync(home.dataDir, { recursive: true, force: true })
  await w.close()
})

async function count(url: string, library: number): Promise<number> {
  const res = await fetch(`${url}/api/v0/mediaFile/?library=${library}&page_size=1`, {
    headers: { authorization: `Token ${token}` },
  })
  return (await res.json()).count
}

test('the server killed mid-import: one line saying it is unreachable and how to finish, exit 1; a re-run completes', async () => {
  const login = await w.mas(['login', '--server', server!.url, '--username', 'root', '--password-stdin'], {
    input: 'root-pass\n',
  })
  assert.is(login.code, 0, login.stderr)
  token = (
    await (
      await fetch(`${server!.url}/api-token-auth/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'root', password: 'root-pass' }),
      })
    ).json()
  ).token
  const library = Number((await w.mas(['library', 'create', 'season'])).stdout.trim())
  assert.ok(library > 0)

  for (const extra of [[], ['--json']]) {
    const url = server!.url
    const before = await count(url, library)
    const importing = w.mas(['media', 'import', folder, '--library', String(library), '--concurrency', '2', ...extra])
    await waitFor('some more files imported', async () => (await count(url, library)) >= before + 3, 60)
    await killHard(server!)
    server = undefined
    const run = await importing
    assert.is(run.code, 1, run.stderr)
    // one error line (without --json, each file that failed is listed above it, as every outcome is)
    const said = run.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('Error:'))
    assert.is(said.length, 1, run.stderr)
    assert.match(said[0], /Cannot reach the server/)
    assert.ok(/\d+ file\(s\) stored\. Run the same command again to finish/.test(said[0]), said[0])
    assert.not.match(run.stderr, /\n\s+at /, 'no stack trace')
    server = await home.start()
    await w.mas(['login', '--server', server.url, '--username', 'root', '--password-stdin'], { input: 'root-pass\n' })
  }

  const rerun = await w.mas(['media', 'import', folder, '--library', String(library), '--json'])
  assert.is(rerun.code, 0, rerun.stderr)
  assert.ok(json(rerun).every((r: any) => r.outcome === 'imported' || r.outcome === 'duplicate'))
  assert.is(await count(server!.url, library), FILES)
})

test.run()
