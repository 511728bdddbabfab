import { Command } from '@oclif/core/command'
import * as Flags from '@oclif/core/flags'

// Flags into the options of the process root (server/main.ts), which is imported when this command runs, not
// when the CLI loads its command list, so every other `mas` command starts quickly.

export default class ServerStart extends Command {
  static summary = 'Run the mas HTTP server'
  static description =
    'Serves the API on the embedded PostgreSQL of --data-dir (started with the first mas process on that' +
    ' data directory, stopped with the last), or on the PostgreSQL of DATABASE_URL. Migrations run at start. On an empty' +
    ' database the first admin is created from MAS_ADMIN_USERNAME and MAS_ADMIN_PASSWORD, or with a generated password' +
    ' printed once. The log goes to stdout: one readable line per request on a terminal, JSON lines on a pipe or in a' +
    ' file (--log-format chooses); request bodies and secrets are never logged. Queued jobs run in the server process, one' +
    ' at a time, unless --no-worker is given (for deployments that run `mas worker start` apart).'

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
    'data-dir': Flags.string({
      description: 'where the embedded database and media live [default: ./.mas, env: MAS_DATA_DIR]',
    }),
    worker: Flags.boolean({
      default: true,
      allowNo: true,
      description:
        'run queued jobs in this process, one at a time (--no-worker: leave them to `mas worker start` processes)',
    }),
    // the default since jobs run on the default server; still accepted so older scripts keep working
    'with-worker': Flags.boolean({ hidden: true, default: false }),
    workers: Flags.integer({
      default: 1,
      min: 1,
      max: 64,
      description:
        'HTTP server processes sharing the port (node:cluster); 1 by default, so mas and its embedded PostgreSQL' +
        ' stay under 250 MB (two processes take about 380 MiB): raise it up to the number of cores where memory allows',
    }),
    'log-level': Flags.option({
      options: ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const,
      default: 'info',
    })(),
    'log-format': Flags.option({
      options: ['pretty', 'json'] as const,
      description:
        'pretty: one readable line per request; json: JSON lines [default: pretty on a terminal, json otherwise]',
    })(),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerStart)
    const { startServer, isStartRefusal } = await import('../../server/main.js')
    try {
      await startServer({
        host: flags.host,
        port: flags.port,
        dataDir: flags['data-dir'],
        worker: flags.worker,
        workers: flags.workers,
        logLevel: flags['log-level'],
        logFormat: flags['log-format'],
      })
    } catch (e) {
      if (!isStartRefusal(e)) throw e
      process.stderr.write(`Error: ${e.message}\n`) // one line, as it is
      this.exit(1)
    }
  }
}
