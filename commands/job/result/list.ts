import { Args } from '@oclif/core'
import { AuthCommand } from '../../../src/baseCommand.js'
import { listFlags } from '../../../src/listOutput.js'
import { RESULT_FILE } from '../../../src/columns.js'

export default class JobResultList extends AuthCommand<typeof JobResultList> {
  static summary = 'List the result files of a job'
  static examples = ['<%= config.bin %> job result list 1', '<%= config.bin %> job result list 1 --json']
  static flags = listFlags
  static args = { job: Args.integer({ description: 'job id', required: true, min: 1 }) }

  async run() {
    const files = (await this.api.all('jobResultFile/', { job: this.args.job })).filter((f) => f.job === this.args.job)
    return this.showList(files, RESULT_FILE)
  }
}
