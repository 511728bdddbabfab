import { Args } from '@oclif/core'
import { AuthCommand } from '../../src/baseCommand.js'
import { mediaFileIds, projectId } from '../../src/lookup.js'
import { changeProjectMedia } from '../../src/projectMedia.js'

export default class ProjectAddMedia extends AuthCommand<typeof ProjectAddMedia> {
  static summary = 'Add media files to a project'
  static examples = ['<%= config.bin %> project add-media 1 1 2 3']
  static strict = false
  static args = {
    project: Args.string({ description: 'project (name or id)', required: true }),
    media: Args.string({ description: 'media file: alias, file name (when unique) or id (several may follow)', required: true }),
  }

  async run() {
    const { argv } = await this.parse(ProjectAddMedia)
    const ids = await mediaFileIds(this.api, (argv as string[]).slice(1), 'MEDIA')
    const results = await changeProjectMedia(this.api, await projectId(this.api, 'PROJECT', this.args.project), ids, 'add')
    for (const r of results) this.logToStderr(`${r.mediaFile}: ${r.changed ? 'added' : 'already in the project'}`)
    return results
  }
}
