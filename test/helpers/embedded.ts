import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { CLUSTER_DIR, stopCluster } from '../../server/db/cluster.js'
import { BIN } from './server.js'
import { tempDir } from './tempDir.js'

// `mas` as a real process on an embedded data directory of its own, and what its tests share.

const ADMIN = { MAS_ADMIN_USERNAME: 'root', MAS_ADMIN_PASSWORD: 'root-pass' }

export interface Run {
  child: ChildProcessWithoutNullStreams
  out: () => string
  exited: Promise<number | null>
}

/** the processes started here and not yet exited: cleanup() ends those a failed test left behind, whose
 * pipes would otherwise keep the test run from ending */
const running = new Set<ChildProcessWithoutNullStreams>()

export function mas(args: string[], opts: { env?: Record<string, string>; uid?: number; gid?: number } = {}): Run {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, DATABASE_URL: '', ...ADMIN, ...opts.env },
    uid: opts.uid,
    gid: opts.gid,
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams
  running.add(child)
  child.on('exit', () => running.delete(child))
  let out = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  child.stderr.on('data', (d) => {
    out += d
  })
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return { child, out: () => out, exited }
}

export async function serve(
  dataDir: string,
  extra: string[] = [],
  opts: { uid?: number; gid?: number; env?: Record<string, string> } = {},
): Promise<Run & { url: string }> {
  const r = mas(['server', 'start', '--port', '0', '--data-dir', dataDir, ...extra], opts)
  for (let i = 0; i < 600; i++) {
    const m = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(r.out())
    if (m) return { ...r, url: m[1] }
    if (r.child.exitCode !== null) break
    await delay(100)
  }
  r.child.kill('SIGKILL')
  throw new Error(`the server did not start: ${r.out()}`)
}

async function token(url: string): Promise<string> {
  const res = await fetch(`${url}/api-token-auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: 'root-pass' }),
  })
  return ((await res.json()) as { token: string }).token
}

export async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; data: any }> {
  const res = await fetch(`${url}/api/v0/${path}`, {
    method,
    headers: { authorization: `Token ${await token(url)}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, data: await res.json() }
}

export function newDataDir(): string {
  return join(tempDir('mas-embedded-'), 'data')
}

export async function cleanup(dataDir: string): Promise<void> {
  for (const child of running) {
    if (!child.spawnargs.includes(dataDir) || child.exitCode !== null || child.signalCode !== null) continue
    const gone = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await gone
  }
  await stopCluster(join(dataDir, CLUSTER_DIR))
  rmSync(join(dataDir, '..'), { recursive: true, force: true })
}
