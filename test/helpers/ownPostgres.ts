import { spawn, spawnSync } from 'node:child_process'
import { chownSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import { SUPERUSER } from '../../server/db/cluster.js'
import { alive } from '../../server/db/postmaster.js'
import { binaries, clusterAccount } from '../../server/db/clusterHost.js'
import { tempDir } from './tempDir.js'

// A PostgreSQL of the test's own, from the embedded binaries, listening on a TCP port of its own on
// 127.0.0.1, which the test stops and starts as it likes (a database restart, a failover) without
// touching the run's shared server.

export interface OwnPostgres {
  /** postgres://… of its database `mas` */
  url: string
  start(): Promise<void>
  /** a fast shutdown, waiting until the postmaster is gone */
  stop(): Promise<void>
  cleanup(): Promise<void>
}

async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as { port: number }).port
  await new Promise((resolve) => s.close(resolve))
  return port
}

export async function ownPostgres(): Promise<OwnPostgres> {
  const bins = await binaries()
  const account = clusterAccount()
  const dir = tempDir('mas-own-pg-')
  const pgdata = join(dir, 'data')
  if (account.uid !== undefined) chownSync(dir, account.uid, account.gid!)
  const as = { uid: account.uid, gid: account.gid }
  const init = spawnSync(
    bins.initdb,
    ['-D', pgdata, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
    { ...as, env: { ...process.env, LC_ALL: 'C' } },
  )
  if (init.status !== 0) throw new Error(`initdb: ${init.stderr}`)
  writeFileSync(join(pgdata, 'pg_hba.conf'), 'host all all 127.0.0.1/32 trust\n')
  const port = await freePort()
  let pid: number | undefined

  const own: OwnPostgres = {
    url: `postgres://${SUPERUSER}@127.0.0.1:${port}/mas`,
    async start() {
      const child = spawn(
        bins.postgres,
        [
          '-D',
          pgdata,
          '-p',
          String(port),
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          `unix_socket_directories=${dir}`,
          '-c',
          'fsync=off',
        ],
        {
          ...as,
          stdio: 'ignore',
          detached: true,
          env: { ...process.env, LC_ALL: 'C' },
        },
      )
      child.unref()
      pid = child.pid
      for (let i = 0; i < 400; i++) {
        const c = new pg.Client({ connectionString: `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres` })
        c.on('error', () => {})
        try {
          await c.connect()
          await c.end()
          return
        } catch {
          await delay(50)
        }
      }
      throw new Error("the test's own PostgreSQL did not start")
    },
    async stop() {
      if (pid === undefined || !alive(pid)) return
      process.kill(pid, 'SIGINT')
      while (alive(pid)) await delay(25)
    },
    async cleanup() {
      await own.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  await own.start()
  const c = new pg.Client({ connectionString: `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres` })
  await c.connect()
  await c.query('create database mas')
  await c.end()
  return own
}
