import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { listFlags } from '../../src/listOutput.js'
import { JOB, JOB_STATUS } from '../../src/columns.js'
import { projectId } from '../../src/lookup.js'
import { stderr } from '../../src/output.js'

export default class JobList extends AuthCommand<typeof JobList> {
  static summary = 'List your jobs'
  static examples = ['<%= config.bin %> job list', '<%= config.bin %> job list --project 1 --status Running --json']
  static flags = {
    ...listFlags,
    project: Flags.string({ char: 'p', description: 'only jobs of this project (name or id)' }),
    children: Flags.boolean({
      description: 'also the jobs a job made for its parts (one per media file of a discovery); --json always has them',
    }),
    status: Flags.custom<number>({
      description: 'only jobs in this status, by name or id (2 Queued, 3 Running, 4 Error, 5 Stopped, 6 Complete)',
      parse: async (input) => {
        const byName = Object.entries(JOB_STATUS).find(([, name]) => name.toLowerCase() === input.trim().toLowerCase())
        if (byName) return Number(byName[0])
        if (/^\s*\d+\s*$/.test(input) && Number(input) >= 1) return Number(input)
        throw new Error(
          `Expected a status name or id (${Object.entries(JOB_STATUS)
            .map(([id, name]) => `${name} ${id}`)
            .join(', ')}) but received: ${input}`,
        )
      },
    })(),
  }

  async run() {
    const project =
      this.flags.project === undefined ? undefined : await projectId(this.api, '--project', this.flags.project)
    const jobs = await this.api.all(
      'jobs/',
      { project, status: this.flags.status },
      { project: '--project', status: '--status' },
    )
    const shown = jobs.filter(
      (j) =>
        (project === undefined || j.project === project) &&
        (this.flags.status === undefined || j.status === this.flags.status),
    )
    // a discovery over a season makes a child job per media file: people see the jobs they made, scripts get every job
    const children = this.jsonEnabled() || this.flags.children ? [] : shown.filter((j) => j.parentJob != null)
    const listed = children.length ? shown.filter((j) => j.parentJob == null) : shown
    const result = await this.showList(listed, JOB)
    if (children.length)
      stderr(
        `${children.length} child job${children.length === 1 ? '' : 's'} of ${new Set(children.map((j) => j.parentJob)).size} not shown (--children shows them)`,
      )
    return result
  }
}
