import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { CLUSTER_DIR, stopCluster } from '../../server/db/cluster.js'
import { openDatabase } from '../../server/db/database.js'
import { tempDir } from './tempDir.js'

// `mas server start` as a real child process on a data directory of its own (its
// embedded PostgreSQL, or with DATABASE_URL a PostgreSQL schema of its own), which
// can be killed and started again on the same data. Cleaning up stops a cluster
// that a killed server left running.

export const BIN = join(process.cwd(), 'bin', 'run.js')

export interface ServerProcess {
  child: ChildProcess
  url: string
  output: () => string
  exited: Promise<number | null>
}

export interface ServerHome {
  dataDir: string
  env: Record<string, string>
  start(): Promise<ServerProcess>
  cleanup(): Promise<void>
}

/** `databaseUrl`: serve that database as it is (the test's own), instead of the embedded cluster or a schema of DATABASE_URL;
 * `embedded`: the embedded cluster of its data directory, even in a run on DATABASE_URL;
 * `args`: more arguments of `mas server start` (e.g. `--no-worker` where a test runs its own worker) */
export async function serverHome(
  opts: { databaseUrl?: string; embedded?: boolean; env?: Record<string, string>; args?: string[] } = {},
): Promise<ServerHome> {
  const dataDir = tempDir('mas-server-')
  const url = opts.databaseUrl || opts.embedded ? undefined : process.env.DATABASE_URL
  let env: Record<string, string> = { DATABASE_URL: opts.databaseUrl ?? '' }
  const removeDataDir = async () => {
    await stopCluster(join(dataDir, CLUSTER_DIR))
    rmSync(dataDir, { recursive: true, force: true })
  }
  let cleanup = removeDataDir
  if (url) {
    const schema = `srv_${randomBytes(5).toString('hex')}`
    const admin = await openDatabase({ url, poolSize: 1 })
    await admin.db.schema.createSchema(schema).execute()
    env = {
      DATABASE_URL: `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    }
    cleanup = async () => {
      await admin.db.schema.dropSchema(schema).cascade().execute()
      await admin.close()
      await removeDataDir()
    }
  }
  env = { ...env, MAS_ADMIN_USERNAME: 'root', MAS_ADMIN_PASSWORD: 'root-pass', ...opts.env }
  return {
    dataDir,
    env,
    cleanup,
    async start() {
      const child = spawn(
        process.execPath,
        [BIN, 'server', 'start', '--port', '0', '--data-dir', dataDir, ...(opts.args ?? [])],
        {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      let out = ''
      child.stdout!.on('data', (d) => {
        out += d
      })
      child.stderr!.on('data', (d) => {
        out += d
      })
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setInterval(() => {
          const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
          if (m) {
            clearInterval(timer)
            resolve(Number(m[1]))
          }
        }, 50)
        void exited.then((code) => {
          clearInterval(timer)
          reject(new Error(`server exited (${code}): ${out}`))
        })
      })
      return { child, url: `http://127.0.0.1:${port}`, output: () => out, exited }
    },
  }
}

/** kill -9, and wait until the process is gone. */
export async function killHard(p: ServerProcess): Promise<void> {
  p.child.kill('SIGKILL')
  await p.exited
}

/** Pids of the PostgreSQL processes whose data directory is `dataDir`'s cluster: its postmasters. A child
 * the postmaster has just forked (a backend for a new connection) carries the postmaster's command line until
 * it names itself ("postgres: mas mas [local] idle"), so a process whose parent is a match is left out, as is
 * one gone before its parent could be read. */
export function postgresOf(dataDir: string): number[] {
  const needle = `-D\0${join(dataDir, CLUSTER_DIR)}\0`
  const matches = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle)
      } catch {
        return false
      }
    })
    .map(Number)
  return matches.filter((pid) => {
    const parent = parentOf(pid)
    return parent !== null && !matches.includes(parent)
  })
}

/** The parent pid of `pid` (from /proc/PID/stat, after the command name, which may hold spaces and
 * parentheses), or null when the process is gone. */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return null
  }
}
