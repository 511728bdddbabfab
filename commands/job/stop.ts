import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'

/** Job states that are an end (jobStatusTypes ids, the same on the original service). */
const ENDED: Record<number, string> = { 4: 'Error', 5: 'Stopped', 6: 'Complete' }

export default class JobStop extends AuthCommand<typeof JobStop> {
  static summary = 'Ask a queued or running job to stop'
  static description =
    'A job that has already ended (Complete, Error or Stopped) is left as it is, and the command says so (exit 0).'
  static examples = ['<%= config.bin %> job stop 2']
  static args = { id: Args.integer({ description: 'job id', required: true, min: 1 }) }

  async run() {
    const current = await this.api.get(`jobs/${this.args.id}/`)
    const ended = ENDED[current.status as number]
    if (ended) {
      this.logToStderr(`Job ${current.id} already ended (${ended})`)
      return current
    }
    const job = await this.api.patch(`jobs/${this.args.id}/`, { requestedStatus: 5 })
    this.logToStderr(job.status === 5 ? `Job ${job.id} stopped` : `Asked job ${job.id} to stop`)
    return job
  }
}
