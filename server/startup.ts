import { setTimeout as delay } from 'node:timers/promises'
import { checkJobTypeRows } from './analysis/jobTypeRows.js'
import { bootstrapAdmin } from './bootstrap.js'
import type { AppConfig } from './config.js'
import { isSessionEnded } from './db/connectionLost.js'
import { migrate, openDatabase, type Database } from './db/database.js'
import { abandonedUploadMs } from './maintenance.js'
import { sweepUncommittedMedia } from './media/import.js'
import { openStorage } from './storage/index.js'

// What every server or worker process does before it serves: open the
// database (the embedded PostgreSQL of the data directory, started if no other process has started it,
// or DATABASE_URL's), bring its schema up to date, check its job types
// against the catalog, create the first admin on an empty database (saying
// a generated password once), and clear away uploads that a process which died mid-upload left behind,
// and stored media files whose import never committed. Each step may be done again, so a database that
// ends the process's sessions while it starts (a restart, a failover) is waited for (docs/decisions.md §16).

/** how long a start waits for a database whose sessions are being ended before it gives up */
const STARTUP_PATIENCE_MS = 60_000

export interface Prepared {
  database: Database
  adminCreated?: string
  staleUploadsRemoved: number
  uncommittedRemoved: number
}

export async function prepare(
  config: AppConfig,
  opts: { poolSize?: number; bootstrap?: boolean } = {},
): Promise<Prepared> {
  const database = await openDatabase(
    config.databaseUrl
      ? { url: config.databaseUrl, poolSize: opts.poolSize }
      : { dataDir: config.dataDir, poolSize: opts.poolSize },
  )
  const until = Date.now() + STARTUP_PATIENCE_MS
  for (let said = false; ; said = true) {
    try {
      return await prepareOn(database, config, opts)
    } catch (e) {
      if (!isSessionEnded(e) || Date.now() > until) {
        await database.close()
        throw e
      }
      if (!said) process.stderr.write(`waiting for the database (${e instanceof Error ? e.message : String(e)})\n`)
      await delay(500)
    }
  }
}

async function prepareOn(database: Database, config: AppConfig, opts: { bootstrap?: boolean }): Promise<Prepared> {
  const started = Date.now()
  let upgrading = false
  await migrate(database.db, {
    // a migration may rewrite a table of millions of rows (docs/decisions.md §43): say why the start waits
    onUpgrade: (pending) => {
      upgrading = true
      process.stderr.write(
        `upgrading the database: ${pending.length} migration${pending.length === 1 ? '' : 's'} to apply; ` +
          'one that rewrites a large table can take minutes\n',
      )
    },
  })
  if (upgrading) process.stderr.write(`database upgraded in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
  await checkJobTypeRows(database.db)
  let adminCreated: string | undefined
  if (opts.bootstrap !== false) {
    const admin = await bootstrapAdmin(database.db)
    if (admin?.generated) {
      process.stderr.write(
        `Created the first admin user "${admin.username}" with password: ${admin.password}\n` +
          'This password is shown only once. Change it with: mas user set-password.\n',
      )
    }
    adminCreated = admin?.username
  }
  const storage = openStorage(config)
  const staleUploadsRemoved = await storage.sweepIncoming(abandonedUploadMs(config))
  const uncommittedRemoved = await sweepUncommittedMedia(database.db, storage)
  return { database, adminCreated, staleUploadsRemoved, uncommittedRemoved }
}
