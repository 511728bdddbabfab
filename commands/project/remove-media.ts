import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { LIBRARY_SCOPE_DESCRIPTION, mediaFileIds, projectId, scopeLibrary } from '../../src/lookup.js'
import { changeProjectMedia } from '../../src/projectMedia.js'

export default class ProjectRemoveMedia extends AuthCommand<typeof ProjectRemoveMedia> {
  static summary = 'Remove media files from a project'
  static examples = ['<%= config.bin %> project remove-media 1 3']
  static strict = false
  static flags = {
    library: Flags.string({ char: 'l', description: LIBRARY_SCOPE_DESCRIPTION }),
  }
  static args = {
    project: Args.string({ description: 'project (name or id)', required: true }),
    media: Args.string({
      description: 'media file: alias, file name (when unique) or id (several may follow)',
      required: true,
    }),
  }

  async run() {
    const { argv } = await this.parse(ProjectRemoveMedia)
    const given = (argv as string[]).slice(1)
    const ids = await mediaFileIds(this.api, given, 'MEDIA', await scopeLibrary(this.api, this.flags.library))
    const results = await changeProjectMedia(
      this.api,
      await projectId(this.api, 'PROJECT', this.args.project),
      ids,
      'remove',
    )
    // each file as it was given (its alias, or its id)
    for (const [i, r] of results.entries())
      this.logToStderr(`${given[i]}: ${r.changed ? 'removed' : 'was not in the project'}`)
    return results
  }
}
