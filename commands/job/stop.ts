import { Args } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'

export default class JobStop extends AuthCommand<typeof JobStop> {
  static summary = 'Ask a queued or running job to stop'
  static examples = ['<%= config.bin %> job stop 42']
  static args = { id: Args.integer({ description: 'job id', required: true, min: 1 }) }

  async run() {
    const job = await this.api.patch(`jobs/${this.args.id}/`, { requestedStatus: 5 })
    this.logToStderr(job.status === 5 ? `Job ${job.id} stopped` : `Asked job ${job.id} to stop`)
    return job
  }
}
