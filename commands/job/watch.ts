import { setTimeout as sleep } from 'node:timers/promises'
import { Args, Flags } from '@oclif/core'
import { AuthCommand } from '../../src/baseCommand.js'
import { JOB_STATUS } from '../../src/columns.js'
import { Progress, stderr } from '../../src/output.js'
import { aliveWorkers } from '../../src/workers.js'

const FINAL = new Set([4, 5, 6])
const QUEUED = 2

export default class JobWatch extends AuthCommand<typeof JobWatch> {
  static summary = 'Follow a job until it completes, fails or stops'
  static description = 'Exits 0 when the job completes, 1 when it ends in Error or Stopped. Ctrl-C stops watching (exit 130); the job runs on.'
    + ' A queued job while no worker is running, and a job that has not changed for --stale-after seconds, are said on stderr.'
  static examples = ['<%= config.bin %> job watch 1', '<%= config.bin %> job watch 1 --interval 5 --json', '<%= config.bin %> job watch 1 --stale-after 300']
  static args = { id: Args.integer({ description: 'job id', required: true, min: 1 }) }
  static flags = {
    interval: Flags.integer({ description: 'seconds between polls', default: 2, min: 1 }),
    'stale-after': Flags.integer({ description: 'say when the job has not changed for this many seconds', default: 60, min: 1 }),
  }

  async run() {
    let job = await this.api.get(`jobs/${this.args.id}/`)
    const progress = new Progress(100, {
      unit: '%', quiet: this.jsonEnabled(), status: '',
      interrupted: () => `interrupted: job ${this.args.id} runs on; ${this.config.bin} job watch ${this.args.id} follows it again`,
    })
    let lastLine = ''
    let silentSaidAt = -Infinity
    let changedAt = Date.now()
    let staleSaid = false
    let noWorkerSaid = false
    // said even with --json (on stderr): a watch must never look hung
    const say = (message: string) => (progress.interactive ? progress.note(message) : stderr(message))
    while (true) {
      const percent = Math.round(Math.max(0, Math.min(1, Number(job.fractionCompleted) || 0)) * 100)
      const state = `${JOB_STATUS[job.status] ?? job.status}` + (job.numToComplete ? ` (${job.numCompleted}/${job.numToComplete})` : '')
      const line = `job ${job.id}: ${JOB_STATUS[job.status] ?? job.status}, ${percent}%` +
        (job.numToComplete ? ` (${job.numCompleted}/${job.numToComplete})` : '')
      progress.set(percent, `job ${job.id}: ${state}`, line !== lastLine ? line : undefined)
      if (line !== lastLine) {
        changedAt = Date.now()
        staleSaid = false
      }
      lastLine = line
      if (job.status === QUEUED && !noWorkerSaid && await aliveWorkers(this.api) === 0) {
        say(`job ${job.id}: queued, but no job worker is running; start one with \`${this.config.bin} worker start\``
          + ` (or run the server without --no-worker); still watching`)
        noWorkerSaid = true
      }
      const unchanged = Math.round((Date.now() - changedAt) / 1000)
      if (!staleSaid && !FINAL.has(job.status) && unchanged >= this.flags['stale-after']) {
        say(`job ${job.id}: nothing has changed for ${unchanged} s (${state}); still watching`)
        staleSaid = true
      }
      // a Running job whose worker stopped renewing it waits for a worker: said at once, then each minute
      const silent = job.workerSilentSeconds
      if (typeof silent === 'number' && silent - silentSaidAt >= 60) {
        say(`job ${job.id}: no worker has renewed this job for ${silent} s; ` +
          'it goes on when a worker runs (mas worker start, or mas server start)')
        silentSaidAt = silent
      } else if (typeof silent !== 'number') {
        silentSaidAt = -Infinity
      }
      if (FINAL.has(job.status)) break
      await sleep(this.flags.interval * 1000)
      job = await this.api.get(`jobs/${this.args.id}/`)
    }
    progress.stop()
    if (!this.jsonEnabled()) stderr(`job ${job.id} ended: ${JOB_STATUS[job.status]}`)
    if (job.status !== 6) process.exitCode = 1
    return job
  }
}
