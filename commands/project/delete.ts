import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { projectId } from '../../src/lookup.js'
import { confirmDestructive, refuseIfNotPermitted, count, recordCount, yesFlag } from '../../src/confirm.js'

export default class ProjectDelete extends AuthCommand<typeof ProjectDelete> {
  static summary =
    'Delete a project with its jobs; its media files stay in their libraries (asks first; --yes when not on a terminal)'
  static examples = ['<%= config.bin %> project delete 2', '<%= config.bin %> project delete 2 --yes']
  static args = { id: Args.string({ description: 'project (name or id)', required: true }) }
  static flags = { yes: yesFlag }

  async run() {
    const project = await this.api.get(`project/${await projectId(this.api, 'ID', this.args.id)}/`)
    await refuseIfNotPermitted(
      this.api,
      `project/${project.id}/`,
      `project ${project.id} '${project.name}'`,
      this.flags.yes,
    )
    if (!this.flags.yes) {
      const jobs = await recordCount(this.api, 'jobs/', { project: project.id })
      await confirmDestructive(
        `delete project ${project.id} '${project.name}' with ${count(jobs, 'job')} ` +
          `(its ${count(project.mediaFiles?.length ?? 0, 'media file')} stay in their libraries)?`,
        false,
      )
    }
    await this.api.delete(`project/${project.id}/`)
    this.logToStderr(`Deleted project ${project.id} '${project.name}'`)
    return { id: project.id, deleted: true }
  }
}
