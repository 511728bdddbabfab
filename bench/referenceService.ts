import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { besideCheckout } from './beside.js'
import { freePort } from './processes.js'

// The original service, the reference implementation of the API (a Django REST framework service with its own
// PostgreSQL), run by its own scripts as `.ci/run` runs it: setup.sh (idempotent), seed.py (the benchmark data
// set; an existing seed is kept and its ids written again), serve.sh on a free port, stop.sh at the end.

export interface ReferenceService {
  base: string
  token: string
  idsFile: string
  stop(): void
}

/** Its folder: MAS_DRF_SERVICE_DIR, else shared/reference/drf-service beside this checkout (or its origin). */
export function referenceServiceDir(): { dir: string } | { error: string } {
  const given = process.env.MAS_DRF_SERVICE_DIR
  const candidates = given ? [given] : besideCheckout(join('shared', 'reference', 'drf-service'))
  const dir = candidates.find((d) => existsSync(join(d, 'setup.sh')) && existsSync(join(d, 'serve.sh')))
  return dir
    ? { dir }
    : { error: `no reference service (setup.sh and serve.sh) in ${candidates.join(', ')}: set MAS_DRF_SERVICE_DIR` }
}

export async function startReferenceService(dir: string): Promise<ReferenceService> {
  const run = (file: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
    execFileSync(file, args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } })
  const idsDir = mkdtempSync(join(tmpdir(), 'mas-sbs-ids-'))
  const idsFile = join(idsDir, 'seed-ids.json')
  run(join(dir, 'setup.sh'), [])
  run('/usr/bin/python3', ['seed.py', '--out', idsFile])
  // this run's gunicorn keeps its pid and log apart; the service's PostgreSQL stays in its own state folder
  const state = mkdtempSync(join(tmpdir(), 'mas-sbs-gunicorn-'))
  const port = await freePort()
  run(join(dir, 'serve.sh'), [String(port)], { DRF_STATE_DIR: state })
  const base = `http://127.0.0.1:${port}`
  const stop = () => {
    try {
      run(join(dir, 'stop.sh'), [], { DRF_STATE_DIR: state })
    } finally {
      rmSync(state, { recursive: true, force: true })
      rmSync(idsDir, { recursive: true, force: true })
    }
  }
  try {
    const res = await fetch(`${base}/api-token-auth/`, {
      method: 'POST',
      body: new URLSearchParams({ username: 'alice', password: 'alice-pass' }),
    })
    if (!res.ok) throw new Error(`the reference service refused alice's log-in: ${res.status}`)
    const { token } = (await res.json()) as { token: string }
    return { base, token, idsFile, stop }
  } catch (e) {
    stop()
    throw e
  }
}
