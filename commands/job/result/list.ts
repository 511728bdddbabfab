import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../../src/baseCommand.js'
import { listFlags } from '../../../src/listOutput.js'
import { RESULT_FILE } from '../../../src/columns.js'
import { resultFilesOf } from '../../../src/jobResults.js'

export default class JobResultList extends AuthCommand<typeof JobResultList> {
  static summary = 'List the result files of a job and of its child jobs'
  static description =
    'A job that splits its work (a discovery over several media files) keeps the results in its children: they are listed with it, the JOB column saying whose each is.'
  static examples = ['<%= config.bin %> job result list 1', '<%= config.bin %> job result list 1 --json']
  static flags = listFlags
  static args = { job: Args.integer({ description: 'job id', required: true, min: 1 }) }

  async run() {
    const family = await this.family(this.args.job)
    const files = (await Promise.all(family.map((job) => resultFilesOf(this.api, job)))).flat()
    return this.showList(files, RESULT_FILE)
  }

  /** The job and its descendants, parents first. */
  private async family(root: number): Promise<number[]> {
    const out = [root]
    for (let i = 0; i < out.length; i++) {
      const children = await this.api.all('jobs/', { parentJob: out[i] })
      out.push(...children.filter((c) => c.parentJob === out[i]).map((c) => c.id))
    }
    return out
  }
}
