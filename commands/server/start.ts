import { Command, Flags } from '@oclif/core'
import { buildApp, REDACT } from '../../server/app.js'
import { bootstrapAdmin } from '../../server/bootstrap.js'
import { configFromEnv } from '../../server/config.js'
import { migrate, openDatabase } from '../../server/db/database.js'
import { Worker } from '../../server/jobs/worker.js'

export default class ServerStart extends Command {
  static summary = 'Run the mas HTTP server'
  static description = `Serves the API on the embedded database under --data-dir, or on PostgreSQL when DATABASE_URL is set.
Migrations run at start. On an empty database the first admin is created from MAS_ADMIN_USERNAME and
MAS_ADMIN_PASSWORD, or with a generated password printed once.`

  static examples = [
    '<%= config.bin %> server start',
    '<%= config.bin %> server start --port 9000 --data-dir /srv/mas',
    '<%= config.bin %> server start --with-worker',
    'DATABASE_URL=postgres://mas@db/mas <%= config.bin %> server start --host 0.0.0.0',
  ]

  static flags = {
    host: Flags.string({ default: '127.0.0.1', description: 'address to listen on' }),
    port: Flags.integer({ default: 8000, min: 0, max: 65535, description: 'port to listen on (0: any free port)' }),
    'data-dir': Flags.string({ description: 'where the embedded database and media live [default: ./.mas, env: MAS_DATA_DIR]' }),
    'with-worker': Flags.boolean({ default: false, description: 'also run queued jobs in this process (one at a time)' }),
    'log-level': Flags.option({ options: ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const, default: 'info' })(),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerStart)
    const config = configFromEnv(process.env, flags['data-dir'] ? { dataDir: flags['data-dir'] } : {})
    const database = await openDatabase(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir })
    await migrate(database.db)
    const app = await buildApp({
      database, config, ownsDatabase: true,
      logger: { level: flags['log-level'], redact: { paths: REDACT, censor: '[redacted]' } },
    })
    const admin = await bootstrapAdmin(database.db)
    if (admin?.generated) {
      process.stderr.write(`Created the first admin user "${admin.username}" with password: ${admin.password}\n` +
        'This password is shown only once. Change it with: mas user set-password.\n')
    } else if (admin) {
      app.log.info(`created the first admin user "${admin.username}"`)
    }

    const worker = flags['with-worker']
      ? new Worker({ db: database.db, config, log: (m) => app.log.info(m) }).start()
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
    app.log.info(`mas server listening on ${address} (${database.kind}${database.kind === 'pglite' ? ` in ${config.dataDir}` : ''})`)
  }
}
