import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { JOB_STATUS } from '../../src/columns.js'
import { JOB_TYPES, USERS } from '../../src/names.js'
import { record } from '../../src/output.js'

export default class JobGet extends AuthCommand<typeof JobGet> {
  static summary = 'Show one job, its state and parameters'
  static examples = ['<%= config.bin %> job get 1', '<%= config.bin %> job get 1 --json']
  static args = { id: Args.integer({ description: 'job id', required: true, min: 1 }) }

  async run() {
    const job = await this.api.get(`jobs/${this.args.id}/`)
    if (this.jsonEnabled()) return job
    const { jobparameters_set: params, waitingFor, ...rest } = job
    const names = await this.names([JOB_TYPES, USERS], {})
    const shown: Record<string, unknown> = { ...rest, type: `${names.of(JOB_TYPES, job.type)} (${job.type})`, status: `${JOB_STATUS[job.status] ?? ''} (${job.status})` }
    if ('user' in job) shown.user = names.of(USERS, job.user)
    // what a job created before its parameters still needs before a worker runs it (mas's extension field)
    if (Array.isArray(waitingFor) && waitingFor.length) shown.waitingFor = waitingFor.join(', ')
    for (const p of Array.isArray(params) ? params : []) shown[`param ${p.name}`] = p.value
    this.log(record(shown))
    return job
  }
}
