import { Command } from '@oclif/core/command'
import * as Flags from '@oclif/core/flags'

// Local to the machine that runs the server: no profile, no token.

export default class DbUrl extends Command {
  static summary = 'Print a connection string for the database of a data directory'
  static description = `For the embedded PostgreSQL, a libpq connection string for its Unix socket, while a mas process on
that data directory runs (psql and any libpq-based tool take it). With DATABASE_URL set, that URL.`

  static examples = ['<%= config.bin %> db url', 'psql "$(<%= config.bin %> db url --data-dir /srv/mas)"']

  static flags = {
    'data-dir': Flags.string({ description: 'the data directory [default: ./.mas, env: MAS_DATA_DIR]' }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(DbUrl)
    const [{ configFromEnv }, { runningUrl, refuseEarlierDataDir }, { ClusterError }] = await Promise.all([
      import('../../server/config.js'),
      import('../../server/db/cluster.js'),
      import('../../server/db/clusterHost.js'),
    ])
    const config = configFromEnv(process.env, flags['data-dir'] ? { dataDir: flags['data-dir'] } : {})
    if (config.databaseUrl) {
      this.log(config.databaseUrl)
      return
    }
    try {
      refuseEarlierDataDir(config.dataDir)
    } catch (e) {
      if (!(e instanceof ClusterError)) throw e
      process.stderr.write(`Error: ${e.message}\n`)
      this.exit(1)
    }
    const url = await runningUrl(config.dataDir)
    if (!url) {
      process.stderr.write(
        `Error: no mas process is running on ${config.dataDir}: start one (mas server start --data-dir ${config.dataDir}) first.\n`,
      )
      this.exit(1)
    }
    this.log(url!)
  }
}
