import cluster from 'node:cluster'
import { Command } from '@oclif/core/command'
import * as Flags from '@oclif/core/flags'
import type { AppConfig } from '../../server/config.js'
import type { LogFormat } from '../../server/log.js'

// The server's modules are imported when this command runs, not when the CLI
// loads its command list, so every other `mas` command starts quickly.

export default class ServerStart extends Command {
  static summary = 'Run the mas HTTP server'
  static description = 'Serves the API on the embedded PostgreSQL of --data-dir (started with the first mas process on that'
    + ' data directory, stopped with the last), or on the PostgreSQL of DATABASE_URL. Migrations run at start. On an empty'
    + ' database the first admin is created from MAS_ADMIN_USERNAME and MAS_ADMIN_PASSWORD, or with a generated password'
    + ' printed once. The log goes to stdout: one readable line per request on a terminal, JSON lines on a pipe or in a'
    + ' file (--log-format chooses); request bodies and secrets are never logged. Queued jobs run in the server process, one'
    + ' at a time, unless --no-worker is given (for deployments that run `mas worker start` apart).'

  static examples = [
    '<%= config.bin %> server start',
    '<%= config.bin %> server start --port 9000 --data-dir /srv/mas',
    '<%= config.bin %> server start --no-worker',
    '<%= config.bin %> server start --workers 4',
    '<%= config.bin %> server start > mas-server.log 2>&1 &',
    'DATABASE_URL=postgres://mas@db/mas <%= config.bin %> server start --host 0.0.0.0',
  ]

  static flags = {
    host: Flags.string({ default: '127.0.0.1', description: 'address to listen on' }),
    port: Flags.integer({ default: 8000, min: 0, max: 65535, description: 'port to listen on (0: any free port)' }),
    'data-dir': Flags.string({ description: 'where the embedded database and media live [default: ./.mas, env: MAS_DATA_DIR]' }),
    worker: Flags.boolean({
      default: true, allowNo: true,
      description: 'run queued jobs in this process, one at a time (--no-worker: leave them to `mas worker start` processes)',
    }),
    // the default since jobs run on the default server; still accepted so older scripts keep working
    'with-worker': Flags.boolean({ hidden: true, default: false }),
    workers: Flags.integer({
      default: 1, min: 1, max: 64,
      description: 'HTTP server processes sharing the port (node:cluster); 1 by default, so mas and its embedded PostgreSQL'
        + ' stay under 250 MB (two processes take about 380 MiB): raise it up to the number of cores where memory allows',
    }),
    'log-level': Flags.option({ options: ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const, default: 'info' })(),
    'log-format': Flags.option({
      options: ['pretty', 'json'] as const,
      description: 'pretty: one readable line per request; json: JSON lines [default: pretty on a terminal, json otherwise]',
    })(),
  }

  async run(): Promise<void> {
    try {
      await this.serve()
    } catch (e) {
      const [{ ClusterError }, { ConfigError }] = await Promise.all([import('../../server/db/clusterHost.js'), import('../../server/config.js')])
      if (!(e instanceof ClusterError || e instanceof ConfigError)) throw e
      process.stderr.write(`Error: ${e.message}\n`) // one line, as it is
      this.exit(1)
    }
  }

  private async serve(): Promise<void> {
    const { boundServerHeap } = await import('../../server/heap.js')
    boundServerHeap()
    const { flags } = await this.parse(ServerStart)
    const { configFromEnv } = await import('../../server/config.js')
    const config = configFromEnv(process.env, flags['data-dir'] ? { dataDir: flags['data-dir'] } : {})
    const { defaultLogFormat } = await import('../../server/log.js')
    const logFormat = flags['log-format'] ?? defaultLogFormat(process.stdout)
    if (flags.workers > 1 && cluster.isPrimary) return this.runPrimary(flags.workers, config, flags.worker, logFormat)
    const clustered = !cluster.isPrimary
    const [{ buildApp }, { openDatabase }, { prepare }, { Worker }, { serverLog }, { coresButOne }] = await Promise.all([
      import('../../server/app.js'), import('../../server/db/database.js'), import('../../server/startup.js'),
      import('../../server/jobs/worker.js'), import('../../server/log.js'), import('../../server/analysis/threads.js'),
    ])
    // the primary of a cluster has migrated and created the first admin already
    const prepared = clustered
      ? { database: await openDatabase(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir }), adminCreated: undefined, staleUploadsRemoved: 0, uncommittedRemoved: 0 }
      : await prepare(config)
    const { database } = prepared
    const log = serverLog(logFormat, flags['log-level'])
    const app = await buildApp({ database, config, ownsDatabase: true, ...log })
    if (config.trustProxy === true) {
      app.log.warn('MAS_TRUST_PROXY=true believes X-Forwarded-For from any peer, so a client can choose the address its login attempts count against: set it to the proxies\' addresses (e.g. MAS_TRUST_PROXY=10.0.0.5) or their number (MAS_TRUST_PROXY=1)')
    }
    if (prepared.adminCreated) app.log.info(`created the first admin user "${prepared.adminCreated}"`)
    if (prepared.staleUploadsRemoved) app.log.info(`removed ${prepared.staleUploadsRemoved} unfinished upload(s) left by an earlier process`)
    if (prepared.uncommittedRemoved) app.log.info(`removed ${prepared.uncommittedRemoved} stored file(s) of imports that never committed`)

    const worker = flags.worker && !clustered
      ? new Worker({ db: database.db, config, storage: app.storage, threads: coresButOne(), log: (m) => app.log.info(m) }).start()
      : undefined

    let closing = false
    const shutdown = (signal: string) => {
      if (closing) return
      closing = true
      app.log.info({ signal }, 'shutting down: finishing requests in flight')
      Promise.resolve(worker?.stop()).then(() => app.close()).then(() => process.exit(0), (err) => { app.log.error(err); process.exit(1) })
    }
    process.on('SIGTERM', () => shutdown('SIGTERM'))
    process.on('SIGINT', () => shutdown('SIGINT'))

    const address = await app.listen({ host: flags.host, port: flags.port })
    app.log.info(`mas server listening on ${address} (${database.kind === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL'})`
      + (clustered ? `, worker process ${cluster.worker?.id}` : ''))
    if (!clustered || cluster.worker?.id === 1) process.stderr.write(startupSummary(address, config, database.kind, flags.worker))
  }

  /** The primary of `--workers N`: migrate, create the first admin, run the job worker if asked, and keep N
   * server processes running (each re-runs this command as a cluster worker; they share the port). */
  private async runPrimary(count: number, config: AppConfig, withWorker: boolean, logFormat: LogFormat): Promise<void> {
    const [{ prepare }, { Worker }, { lineWriter }, { coresButOne }] = await Promise.all([
      import('../../server/startup.js'), import('../../server/jobs/worker.js'), import('../../server/log.js'),
      import('../../server/analysis/threads.js'),
    ])
    // the primary stays attached to the embedded PostgreSQL until its server processes have exited
    const { database } = await prepare(config, { poolSize: 2 })
    const log = lineWriter(logFormat)
    const jobs = withWorker ? new Worker({ db: database.db, config, threads: coresButOne(), log }).start() : undefined

    let closing = false
    cluster.on('exit', (w, code, signal) => {
      if (closing) return
      log(`server process ${w.process.pid} exited (${signal ?? code}); starting another`)
      cluster.fork()
    })
    for (let i = 0; i < count; i++) cluster.fork()
    const shutdown = () => {
      if (closing) return
      closing = true
      log('shutting down: server processes finish their requests in flight')
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM')
      const done = () => Object.keys(cluster.workers ?? {}).length === 0
      const wait = new Promise<void>((resolve) => { if (done()) resolve(); cluster.on('exit', () => { if (done()) resolve() }) })
      Promise.all([wait, jobs?.stop()]).then(() => database.close())
        .then(() => process.exit(0), () => process.exit(1))
    }
    process.on('SIGTERM', shutdown)
    process.on('SIGINT', shutdown)
  }
}

/** What a person starting the server needs to know, in plain words. */
function startupSummary(address: string, config: AppConfig, kind: 'embedded' | 'postgres', worker: boolean): string {
  const database = kind === 'embedded'
    ? `embedded PostgreSQL in ${config.dataDir}/postgres (mas db url --data-dir ${config.dataDir} prints how to connect)`
    : `PostgreSQL at ${withoutPassword(config.databaseUrl!)}`
  return [
    `mas is serving on ${address}`,
    `  data directory: ${config.dataDir}`,
    `  database:       ${database}`,
    `  jobs:           ${worker ? 'run in this process, one at a time' : 'left to mas worker start (--no-worker)'}`,
    `  log in with:    mas login --server ${address}`,
    '  stop with Ctrl-C',
    '',
  ].join('\n')
}

function withoutPassword(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = ''
    return u.toString()
  } catch {
    return 'DATABASE_URL'
  }
}
