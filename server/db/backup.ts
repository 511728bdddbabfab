import { randomBytes } from 'node:crypto'
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join, resolve } from 'node:path'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { attachCluster, CLUSTER_DIR, refuseEarlierDataDir } from './cluster.js'
import { checkReachable, clusterAccount, ClusterError, ownTree } from './clusterHost.js'
import { survivingLostConnections } from './database.js'

// A copy of a data directory while its server runs (README, "Backup and restore"), with no client
// programs: PostgreSQL's low-level base backup (pg_backup_start, a copy of the cluster's files,
// pg_backup_stop, then the WAL written meanwhile, which a temporary replication slot keeps from being
// recycled), and the media folder. Restoring copies both into a new data directory; PostgreSQL replays
// the WAL when it starts there.

const MANIFEST = 'mas-backup.json'
const MEDIA_DIR = 'media'
/** WAL segment and timeline history file names (pg_wal also holds temporary files and archive_status/) */
const WAL_FILE = /^[0-9A-F]{24}$|^[0-9A-F]{8}\.history$/
/** Folders whose contents a base backup leaves out (PostgreSQL's documentation on the low-level API) */
const EMPTIED = [
  'pg_wal',
  'pg_replslot',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_stat_tmp',
  'pg_subtrans',
]
/** Files a base backup leaves out */
const LEFT_OUT = new Set(['postmaster.pid', 'postmaster.opts', 'backup_label.old', 'pg_internal.init'])

export interface BackupSummary {
  files: number
  bytes: number
}

/** Copy `from` into `to`, leaving out what a base backup leaves out; files that vanish meanwhile are skipped. */
function copyCluster(from: string, to: string, top: boolean, sum: BackupSummary): void {
  mkdirSync(to, { recursive: true, mode: 0o700 })
  for (const name of readdirSync(from)) {
    if (LEFT_OUT.has(name) || name.startsWith('pgsql_tmp') || name.startsWith('.s.PGSQL')) continue
    const src = join(from, name)
    let st
    try {
      st = statSync(src)
    } catch {
      continue
    }
    if (st.isDirectory()) {
      if (top && EMPTIED.includes(name)) mkdirSync(join(to, name), { mode: 0o700 })
      else copyCluster(src, join(to, name), false, sum)
    } else if (st.isFile()) {
      try {
        copyFileSync(src, join(to, name))
        sum.files++
        sum.bytes += st.size
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
      }
    }
  }
}

function emptyOrAbsent(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0
}

/** Back up the data directory `dataDir` (its cluster running or not) into the new folder `target`. */
export async function backup(dataDir: string, target: string): Promise<BackupSummary> {
  dataDir = resolve(dataDir)
  target = resolve(target)
  if (!emptyOrAbsent(target)) throw new ClusterError(`${target} is not empty: a backup goes into a new folder.`)
  if (!existsSync(join(dataDir, CLUSTER_DIR))) {
    refuseEarlierDataDir(dataDir)
    throw new ClusterError(`${dataDir} holds no embedded PostgreSQL to back up.`)
  }
  const cluster = await attachCluster(dataDir)
  const sum: BackupSummary = { files: 0, bytes: 0 }
  const pool = new pg.Pool({ connectionString: cluster.url('postgres'), max: 1 })
  survivingLostConnections(pool) // the session's own errors reach its queries
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) })
  try {
    const pgdata = join(dataDir, CLUSTER_DIR)
    const copy = join(target, CLUSTER_DIR)
    // one session from start to stop: a base backup ends with the session that began it
    await db.connection().execute(async (session) => {
      await sql`select pg_create_physical_replication_slot(${`mas_backup_${randomBytes(4).toString('hex')}`}, true, true)`.execute(
        session,
      )
      await sql`select pg_backup_start(${`mas backup ${new Date().toISOString()}`}, true)`.execute(session)
      copyCluster(pgdata, copy, true, sum)
      const stop = await sql<{
        labelfile: string
        spcmapfile: string
      }>`select labelfile, spcmapfile from pg_backup_stop(false)`.execute(session)
      writeFileSync(join(copy, 'backup_label'), stop.rows[0].labelfile)
      if (stop.rows[0].spcmapfile) writeFileSync(join(copy, 'tablespace_map'), stop.rows[0].spcmapfile)
      // the WAL from the start's checkpoint to the stop, kept by the slot
      // (segments and timeline history only: a segment being written goes by a temporary name
      // (xlogtemp.PID) that may be renamed or removed while this runs)
      for (const name of readdirSync(join(pgdata, 'pg_wal'))) {
        if (!WAL_FILE.test(name)) continue
        const src = join(pgdata, 'pg_wal', name)
        try {
          copyFileSync(src, join(copy, 'pg_wal', name))
          sum.files++
          sum.bytes += statSync(join(copy, 'pg_wal', name)).size
        } catch (e) {
          // a segment older than the backup's start, recycled meanwhile; the ones it needs are held by the slot
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
        }
      }
    })
  } finally {
    await db.destroy()
    await cluster.release()
  }
  const media = join(dataDir, MEDIA_DIR)
  if (existsSync(media))
    cpSync(media, join(target, MEDIA_DIR), {
      recursive: true,
      filter: (src) => !src.startsWith(join(media, '.incoming')),
    })
  writeFileSync(
    join(target, MANIFEST),
    `${JSON.stringify({ made: new Date().toISOString(), postgres: readFileSync(join(dataDir, CLUSTER_DIR, 'PG_VERSION'), 'utf8').trim() })}\n`,
  )
  return sum
}

/** Restore the backup in `source` into the new data directory `dataDir`. */
export function restore(source: string, dataDir: string): void {
  source = resolve(source)
  dataDir = resolve(dataDir)
  if (!existsSync(join(source, MANIFEST)) || !existsSync(join(source, CLUSTER_DIR)))
    throw new ClusterError(`${source} is not a backup made by mas db backup.`)
  if (!emptyOrAbsent(dataDir))
    throw new ClusterError(`${dataDir} is not empty: a backup is restored into a new data directory.`)
  const account = clusterAccount()
  checkReachable(dataDir, account)
  mkdirSync(dataDir, { recursive: true })
  const building = join(dataDir, `${CLUSTER_DIR}.new`)
  cpSync(join(source, CLUSTER_DIR), building, { recursive: true })
  chmodSync(building, 0o700)
  ownTree(building, account)
  renameSync(building, join(dataDir, CLUSTER_DIR))
  if (existsSync(join(source, MEDIA_DIR)))
    cpSync(join(source, MEDIA_DIR), join(dataDir, MEDIA_DIR), { recursive: true })
}
