import { Flags } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { listFlags } from '../../src/list-output.js'
import { JOB } from '../../src/columns.js'

export default class JobList extends AuthCommand<typeof JobList> {
  static summary = 'List your jobs'
  static examples = ['<%= config.bin %> job list', '<%= config.bin %> job list --project 1 --status 3 --json']
  static flags = {
    ...listFlags,
    project: Flags.integer({ char: 'p', description: 'only jobs of this project', min: 1 }),
    status: Flags.integer({ description: 'only jobs in this status (2 Queued, 3 Running, 4 Error, 5 Stopped, 6 Complete)', min: 1 }),
  }

  async run() {
    const jobs = await this.api.all('jobs/', { project: this.flags.project, status: this.flags.status })
    const shown = jobs.filter((j) => (this.flags.project === undefined || j.project === this.flags.project) &&
      (this.flags.status === undefined || j.status === this.flags.status))
    return this.showList(shown, JOB)
  }
}
