import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../../src/baseCommand.js'
import { confirmDestructive, refuseIfNotPermitted, yesFlag } from '../../../src/confirm.js'

export default class JobResultDelete extends AuthCommand<typeof JobResultDelete> {
  static summary = 'Delete a result file of a job (asks first; --yes when not on a terminal)'
  static examples = ['<%= config.bin %> job result delete 1', '<%= config.bin %> job result delete 1 --yes']
  static args = { id: Args.integer({ description: 'result file id', required: true, min: 1 }) }
  static flags = { yes: yesFlag }

  async run() {
    const result = await this.api.get(`jobResultFile/${this.args.id}/`)
    const name = String(result.resultFile ?? '')
      .split('/')
      .pop()
    await refuseIfNotPermitted(this.api, `jobResultFile/${result.id}/`, `result file ${result.id}`, this.flags.yes)
    await confirmDestructive(
      `delete result file ${result.id} of job ${result.job}${name ? ` (${decodeURIComponent(name)})` : ''}?`,
      this.flags.yes,
    )
    await this.api.delete(`jobResultFile/${result.id}/`)
    this.logToStderr(`Deleted result file ${result.id}`)
    return { id: result.id, deleted: true }
  }
}
