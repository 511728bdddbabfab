import { Command } from '@oclif/core/command'
import * as Flags from '@oclif/core/flags'

// Flags into the options of the process root (server/main.ts), imported when this command runs, so the rest of
// the CLI starts quickly.

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
    'DATABASE_URL=postgres://mas@db/mas <%= config.bin %> worker start --execution-provider cuda',
  ]

  static flags = {
    concurrency: Flags.integer({ min: 1, max: 256, description: 'jobs run at the same time [default: --threads]' }),
    threads: Flags.integer({
      min: 1,
      max: 256,
      description:
        'threads audio is analysed on: a long file is split by time across them, several files share them [default: the number of cores]',
    }),
    'execution-provider': Flags.option({
      options: ['cpu', 'cuda'] as const,
      default: 'cpu' as const,
      description:
        'where ONNX models run: cpu, or cuda on a machine with an NVIDIA GPU and CUDA (README, "Workers on other machines")',
    })(),
    'data-dir': Flags.string({
      description: 'where the embedded database and media live [default: ./.mas, env: MAS_DATA_DIR]',
    }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(WorkerStart)
    const { startWorker, isStartRefusal } = await import('../../server/main.js')
    try {
      await startWorker({
        dataDir: flags['data-dir'],
        concurrency: flags.concurrency,
        threads: flags.threads,
        executionProvider: flags['execution-provider'],
      })
    } catch (e) {
      if (!isStartRefusal(e)) throw e
      process.stderr.write(`Error: ${e.message}\n`) // one line, as it is
      this.exit(1)
    }
  }
}
