import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'

// The embedded database lives in one process: a second process opening the
// same files would see stale data and could corrupt them. A lock file holding
// the owner's pid keeps a data directory to one process; a lock left by a
// process that no longer runs is taken over.

export class DataDirInUse extends Error {
  constructor(readonly dataDir: string, readonly pid: number) {
    super(`The embedded database in ${dataDir} is in use by another process (pid ${pid}). ` +
      'It serves one process at a time: stop that process, run jobs with `mas server start --with-worker`, ' +
      'or use PostgreSQL (DATABASE_URL) for several processes.')
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Hold `dataDir` for this process until it exits; throws DataDirInUse when a live process holds it. */
export function lockDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true })
  const path = join(dataDir, 'db.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      process.once('exit', () => { try { unlinkSync(path) } catch { /* already gone */ } })
      return
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      const owner = Number(readFileSync(path, 'utf8').trim())
      if (owner === process.pid) return
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) throw new DataDirInUse(dataDir, owner)
      unlinkSync(path)
    }
  }
  throw new Error(`could not lock ${dataDir}`)
}
