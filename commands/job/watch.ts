import { setTimeout as sleep } from 'node:timers/promises'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { failure } from '../../src/exits.js'
import { JOB_STATUS } from '../../src/columns.js'
import { Progress, stderr } from '../../src/output.js'
import { aliveWorkers } from '../../src/workers.js'
import { resultFilesOf } from '../../src/jobResults.js'
import { named } from '../../server/named.js'

const FINAL = new Set([4, 5, 6])
const QUEUED = 2

/** What a change of the job is judged by: its record, without the seconds its silent worker keeps counting. */
const sameness = (job: Record<string, unknown>) => JSON.stringify({ ...job, workerSilentSeconds: undefined })

export default class JobWatch extends AuthCommand<typeof JobWatch> {
  static summary = 'Follow a job until it completes, fails or stops'
  static description =
    'Exits 0 when the job completes, 1 when it ends in Error or Stopped, or when --timeout passes first. ' +
    'When nothing about the job has changed for --stale-after seconds (no worker runs it, or a stop was asked that nobody applies), ' +
    'it says so on stderr and watches on, as it says when a job is queued while no worker is running. Ctrl-C stops watching (exit 130); the job runs on.'
  static examples = [
    '<%= config.bin %> job watch 1',
    '<%= config.bin %> job watch 1 --interval 5 --json',
    '<%= config.bin %> job watch 1 --timeout 3600',
  ]
  static args = { id: Args.integer({ description: 'job id', required: true, min: 1 }) }
  static flags = {
    interval: Flags.integer({ description: 'seconds between polls', default: 2, min: 1 }),
    timeout: Flags.integer({ description: 'stop watching after this many seconds (exit 1); the job runs on', min: 1 }),
    'stale-after': Flags.integer({
      description: 'say so when nothing about the job has changed for this many seconds',
      default: 60,
      min: 1,
    }),
  }

  async run() {
    let job = await this.api.get(`jobs/${this.args.id}/`)
    /** the job's state when last polled, for the line a Ctrl-C ends the watch with */
    let lastSeen = ''
    const progress = new Progress(100, {
      unit: '%',
      quiet: this.jsonEnabled(),
      status: '',
      interrupted: () =>
        `interrupted: stopped watching job ${this.args.id}, ${lastSeen}; the job is left as it is ` +
        `(${this.config.bin} job watch ${this.args.id} follows it again)`,
    })
    let lastLine = ''
    let silentSaidAt = -Infinity
    let waitingSaid = ''
    const started = Date.now()
    let changedAt = started
    let staleSaid = false
    let seen = sameness(job)
    let workersAsked = false
    // said even with --json (on stderr): a watch must never look hung
    const say = (message: string) => (progress.interactive ? progress.note(message) : stderr(message))
    while (true) {
      const percent = Math.round(Math.max(0, Math.min(1, Number(job.fractionCompleted) || 0)) * 100)
      const state =
        `${JOB_STATUS[job.status] ?? job.status}` +
        (job.numToComplete ? ` (${job.numCompleted}/${job.numToComplete})` : '')
      const line =
        `job ${job.id}: ${JOB_STATUS[job.status] ?? job.status}, ${percent}%` +
        (job.numToComplete ? ` (${job.numCompleted}/${job.numToComplete})` : '')
      progress.set(percent, `job ${job.id}: ${state}`, line !== lastLine ? line : undefined)
      lastLine = line
      lastSeen = `${JOB_STATUS[job.status] ?? job.status} at ${percent}%`
      // asked once, when the job is first seen queued: a worker that stops later is met by the --stale-after note
      if (job.status === QUEUED && !workersAsked) {
        workersAsked = true
        if ((await aliveWorkers(this.api)) === 0) {
          say(
            `job ${job.id}: queued, but no job worker is running; start one with \`${this.config.bin} worker start\`` +
              ` (or run the server without --no-worker); still watching`,
          )
        }
      }
      // a Running job whose worker stopped renewing it waits for a worker: said at once, then each minute
      const silent = job.workerSilentSeconds
      if (typeof silent === 'number' && silent - silentSaidAt >= 60) {
        say(
          `job ${job.id}: no worker has renewed this job for ${silent} s; ` +
            'it goes on when a worker runs (mas worker start, or mas server start)',
        )
        silentSaidAt = silent
      } else if (typeof silent !== 'number') {
        silentSaidAt = -Infinity
      }
      // a job created before its parameters: no worker takes it until it has them (said when it changes)
      const waiting = Array.isArray(job.waitingFor) ? job.waitingFor.join(', ') : ''
      if (waiting !== waitingSaid && waiting !== '') {
        say(`job ${job.id}: waits for ${waiting} before a worker may run it (jobParameters/, or its project)`)
      }
      waitingSaid = waiting
      if (FINAL.has(job.status)) break
      const now = Date.now()
      if (this.flags.timeout !== undefined && now - started >= this.flags.timeout * 1000) {
        progress.stop()
        failure(
          `job ${job.id}: still ${JOB_STATUS[job.status] ?? job.status} after ${this.flags.timeout} s (--timeout); it runs on`,
        )
      }
      // nothing changed for a while: said once, and again after the next change
      if (!staleSaid && now - changedAt >= this.flags['stale-after'] * 1000) {
        const asked = job.requestedStatus === 5 ? '; a stop was asked and nothing has applied it' : ''
        say(
          `job ${job.id}: nothing has changed for ${Math.round((now - changedAt) / 1000)} s ` +
            `(${JOB_STATUS[job.status] ?? job.status}${asked}); is a worker running?`,
        )
        staleSaid = true
      }
      const wait =
        this.flags.timeout === undefined
          ? this.flags.interval * 1000
          : Math.max(0, Math.min(this.flags.interval * 1000, started + this.flags.timeout * 1000 - now))
      await sleep(wait)
      job = await this.api.get(`jobs/${this.args.id}/`)
      const next = sameness(job)
      if (next !== seen) {
        seen = next
        changedAt = Date.now()
        staleSaid = false
      }
    }
    progress.stop()
    if (!this.jsonEnabled())
      stderr(
        `${named('job', job.id, job.name)} ended: ${JOB_STATUS[job.status]}${job.status === 4 ? await this.whyFailed(job.id) : ''}`,
      )
    if (job.status !== 6) process.exitCode = 1
    return job
  }

  /** The reason an ended-in-Error job records in its error.txt result file (docs/decisions.md §8), as ": reason". */
  private async whyFailed(id: number): Promise<string> {
    const error = (await resultFilesOf(this.api, id)).find(
      (f) =>
        String(f.resultFile ?? '')
          .split('/')
          .pop()
          ?.startsWith('error') && f.notes,
    )
    return error ? `: ${error.notes}` : ''
  }
}
