import { Args } from '@oclif/core'
import { AuthCommand, usageError } from '../../src/base-command.js'
import { changeProjectMedia } from '../../src/project-media.js'

export default class ProjectRemoveMedia extends AuthCommand<typeof ProjectRemoveMedia> {
  static summary = 'Remove media files from a project'
  static examples = ['<%= config.bin %> project remove-media 1 3']
  static strict = false
  static args = {
    project: Args.integer({ description: 'project id', required: true, min: 1 }),
    media: Args.integer({ description: 'media file id (several may follow)', required: true, min: 1 }),
  }

  async run() {
    const { argv } = await this.parse(ProjectRemoveMedia)
    const ids = (argv as string[]).slice(1).map((v) => (/^\d+$/.test(v) ? Number(v) : usageError(`MEDIA: not a media file id: ${v}`)))
    const results = await changeProjectMedia(this.api, this.args.project, ids, 'remove')
    for (const r of results) this.logToStderr(`${r.mediaFile}: ${r.changed ? 'removed' : 'was not in the project'}`)
    return results
  }
}
