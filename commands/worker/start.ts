import { Command } from '@oclif/core/command'
import * as Flags from '@oclif/core/flags'

// The server's modules are imported when this command runs, so the rest of the CLI starts quickly.

export default class WorkerStart extends Command {
  static summary = 'Run queued jobs'
  static description = `Claims queued jobs from the database the server uses (PostgreSQL at DATABASE_URL, or the embedded
PostgreSQL of --data-dir, which it starts if no other mas process has) and runs them. Any number of workers
may share one database: each job is run by one of them. A job whose worker dies is taken over by another
once its lease (MAS_JOB_LEASE_SECONDS, default 30) runs out.`

  static examples = [
    '<%= config.bin %> worker start --data-dir ./.mas',
    '<%= config.bin %> worker start --data-dir ./.mas --threads 2',
    'DATABASE_URL=postgres://mas@db/mas <%= config.bin %> worker start',
    'DATABASE_URL=postgres://mas@db/mas <%= config.bin %> worker start --concurrency 4',
  ]

  static flags = {
    concurrency: Flags.integer({ min: 1, max: 256, description: 'jobs run at the same time [default: --threads]' }),
    threads: Flags.integer({
      min: 1, max: 256,
      description: 'threads audio is analysed on: a long file is split by time across them, several files share them [default: the number of cores]',
    }),
    'data-dir': Flags.string({ description: 'where the embedded database and media live [default: ./.mas, env: MAS_DATA_DIR]' }),
  }

  async run(): Promise<void> {
    try {
      await this.work()
    } catch (e) {
      const [{ ClusterError }, { ConfigError }] = await Promise.all([import('../../server/db/clusterHost.js'), import('../../server/config.js')])
      if (!(e instanceof ClusterError || e instanceof ConfigError)) throw e
      process.stderr.write(`Error: ${e.message}\n`) // one line, as it is
      this.exit(1)
    }
  }

  private async work(): Promise<void> {
    const { flags } = await this.parse(WorkerStart)
    const [{ configFromEnv }, { prepare }, { Worker }, { allCores }] = await Promise.all([
      import('../../server/config.js'), import('../../server/startup.js'), import('../../server/jobs/worker.js'),
      import('../../server/analysis/threads.js'),
    ])
    const threads = flags.threads ?? allCores()
    const concurrency = flags.concurrency ?? threads
    const config = configFromEnv(process.env, flags['data-dir'] ? { dataDir: flags['data-dir'] } : {})
    const { database } = await prepare(config, { poolSize: concurrency + 2, bootstrap: false })
    const worker = new Worker({
      db: database.db, config, concurrency, threads,
      log: (m) => process.stderr.write(`${new Date().toISOString()} ${m}\n`),
    }).start()
    process.stderr.write(`mas worker ${worker.id} running ${concurrency} job(s) at a time on ${threads} analysis thread(s) (${database.kind === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL'})\n`)

    await new Promise<void>((resolve) => {
      let closing = false
      const shutdown = () => {
        if (closing) return
        closing = true
        process.stderr.write('stopping: jobs in progress go back to the queue\n')
        worker.stop().then(() => database.close()).then(resolve, resolve)
      }
      process.on('SIGTERM', shutdown)
      process.on('SIGINT', shutdown)
    })
  }
}
