import * as Args from '@oclif/core/args'
import { Command } from '@oclif/core/command'
import * as Flags from '@oclif/core/flags'

export default class DbRestore extends Command {
  static summary = 'Restore a backup made by mas db backup into a new data directory'
  static description = `Copies the backup's database and media into --data-dir, which must be new or empty. Start the server
on it afterwards: PostgreSQL replays the WAL of the backup when it first starts there.`

  static examples = ['<%= config.bin %> db restore backups/2026-11-23 --data-dir ./restored']

  static args = { dir: Args.string({ required: true, description: 'the backup folder' }) }
  static flags = {
    'data-dir': Flags.string({ required: true, description: 'the new data directory' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DbRestore)
    const [{ restore }, { ClusterError }] = await Promise.all([
      import('../../server/db/backup.js'),
      import('../../server/db/clusterHost.js'),
    ])
    try {
      restore(args.dir, flags['data-dir'])
      process.stderr.write(
        `restored ${args.dir} into ${flags['data-dir']}: start it with mas server start --data-dir ${flags['data-dir']}\n`,
      )
    } catch (e) {
      if (!(e instanceof ClusterError)) throw e
      process.stderr.write(`Error: ${e.message}\n`)
      this.exit(1)
    }
  }
}
