import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { alreadyThere, ownProjectNamed } from '../../src/createOnce.js'

export default class ProjectCreate extends AuthCommand<typeof ProjectCreate> {
  static summary = 'Create a project; prints its id'
  static examples = [
    '<%= config.bin %> project create "nest survey"',
    '<%= config.bin %> project create survey --notes "2026 season" --json',
  ]
  static args = { name: Args.string({ description: 'project name', required: true }) }
  static flags = {
    notes: Flags.string({ description: 'free text notes' }),
    type: Flags.integer({
      description: 'project type id (1 audio, 2 image, 3 movement, 4 text, 5 video)',
      default: 1,
      min: 1,
    }),
  }

  async run() {
    const made = await ownProjectNamed(this.api, this.args.name)
    if (made) {
      alreadyThere(`your project '${this.args.name}'`, made)
      this.log(String(made.id))
      return made
    }
    const project = await this.api.post('project/', {
      name: this.args.name,
      type: this.flags.type,
      ...(this.flags.notes !== undefined ? { notes: this.flags.notes } : {}),
    })
    this.log(String(project.id))
    return project
  }
}
