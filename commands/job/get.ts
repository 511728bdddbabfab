import { Args } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { JOB_STATUS } from '../../src/columns.js'
import { record } from '../../src/output.js'

export default class JobGet extends AuthCommand<typeof JobGet> {
  static summary = 'Show one job, its state and parameters'
  static examples = ['<%= config.bin %> job get 1', '<%= config.bin %> job get 1 --json']
  static args = { id: Args.integer({ description: 'job id', required: true, min: 1 }) }

  async run() {
    const job = await this.api.get(`jobs/${this.args.id}/`)
    const { jobparameters_set: params, ...rest } = job
    const shown: Record<string, unknown> = { ...rest, status: `${JOB_STATUS[job.status] ?? ''} (${job.status})` }
    for (const p of Array.isArray(params) ? params : []) shown[`param ${p.name}`] = p.value
    this.log(record(shown))
    return job
  }
}
