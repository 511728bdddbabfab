import { existsSync, readFileSync, readlinkSync, realpathSync } from 'node:fs'
import { join } from 'node:path'

// What a data directory's postmaster.pid, and /proc, say about the PostgreSQL serving it (./cluster.ts).

/** What postmaster.pid says about a running (or stale) cluster. */
export interface PidFile {
  pid: number
  socketDir: string
  status: string
}

export function readPidFile(pgdata: string): PidFile | undefined {
  let text: string
  try {
    text = readFileSync(join(pgdata, 'postmaster.pid'), 'utf8')
  } catch {
    return undefined
  }
  const lines = text.split('\n')
  const pid = Number(lines[0])
  if (!Number.isInteger(pid) || pid <= 0) return undefined
  return { pid, socketDir: lines[4] ?? '', status: (lines[7] ?? '').trim() }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Whether the live process `pid` is a postgres serving `pgdata`, from its command line (readable for any
 * process): the postmaster runs as `postgres -D <pgdata> …` (startCluster), else its working directory is
 * its data directory. Where /proc tells nothing (another system) it is taken to be one, as before.
 */
export function servesCluster(pid: number, pgdata: string): boolean {
  if (!existsSync('/proc/self/cmdline')) return true
  let args: string[]
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
  } catch {
    return false // gone meanwhile
  }
  if (!/(^|\/)postgres$/.test(args[0] ?? '')) return false
  const same = (path: string) => {
    try {
      return realpathSync(path) === realpathSync(pgdata)
    } catch {
      return false
    }
  }
  const d = args.indexOf('-D')
  if (d >= 0) return same(args[d + 1] ?? '')
  try {
    return same(readlinkSync(`/proc/${pid}/cwd`))
  } catch {
    return true // a postgres of another account whose directory is hidden from us: left alone
  }
}
