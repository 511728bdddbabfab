import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { LIBRARY_SCOPE_DESCRIPTION, mediaFileIds, projectId, scopeLibrary } from '../../src/lookup.js'
import { changeProjectMedia } from '../../src/projectMedia.js'

export default class ProjectAddMedia extends AuthCommand<typeof ProjectAddMedia> {
  static summary = 'Add media files to a project'
  static examples = [
    '<%= config.bin %> project add-media 1 1 2 3',
    '<%= config.bin %> project add-media 1 dawn.wav dusk.wav --library 1',
  ]
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
    const { argv } = await this.parse(ProjectAddMedia)
    const given = (argv as string[]).slice(1)
    const ids = await mediaFileIds(this.api, given, 'MEDIA', await scopeLibrary(this.api, this.flags.library))
    const results = await changeProjectMedia(
      this.api,
      await projectId(this.api, 'PROJECT', this.args.project),
      ids,
      'add',
    )
    // each file as it was given (its alias, or its id)
    for (const [i, r] of results.entries())
      this.logToStderr(`${given[i]}: ${r.changed ? 'added' : 'already in the project'}`)
    return results
  }
}
