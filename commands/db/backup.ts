import * as Args from '@oclif/core/args'
import { Command } from '@oclif/core/command'
import * as Flags from '@oclif/core/flags'

export default class DbBackup extends Command {
  static summary = 'Back up a data directory (database and media) while the server runs'
  static description = `Copies the embedded PostgreSQL with its low-level base backup (pg_backup_start, the cluster's files,
pg_backup_stop and the WAL written meanwhile) and the media folder into DIR, a new folder. The server may
keep running. Restore with mas db restore. No pg_dump or psql needed. For a PostgreSQL of DATABASE_URL,
use that server's own backup tools.`

  static examples = [
    '<%= config.bin %> db backup backups/2026-11-23',
    '<%= config.bin %> db backup /mnt/backup/mas --data-dir /srv/mas',
  ]

  static args = { dir: Args.string({ required: true, description: 'a new (or empty) folder for the backup' }) }
  static flags = {
    'data-dir': Flags.string({ description: 'the data directory [default: ./.mas, env: MAS_DATA_DIR]' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DbBackup)
    const [{ configFromEnv }, { backup }, { ClusterError }] = await Promise.all([
      import('../../server/config.js'),
      import('../../server/db/backup.js'),
      import('../../server/db/clusterHost.js'),
    ])
    const config = configFromEnv(process.env, flags['data-dir'] ? { dataDir: flags['data-dir'] } : {})
    if (config.databaseUrl) {
      process.stderr.write(
        'Error: DATABASE_URL is set: back up that PostgreSQL with its own tools (pg_basebackup, pg_dump); mas db backup copies the embedded one.\n',
      )
      this.exit(1)
    }
    try {
      const sum = await backup(config.dataDir, args.dir)
      process.stderr.write(
        `backed up ${config.dataDir} into ${args.dir}: ${sum.files} database files (${(sum.bytes / 1024 ** 2).toFixed(1)} MiB) and the media folder\n`,
      )
    } catch (e) {
      if (!(e instanceof ClusterError)) throw e
      process.stderr.write(`Error: ${e.message}\n`)
      this.exit(1)
    }
  }
}
