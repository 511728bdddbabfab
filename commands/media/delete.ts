import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { LIBRARY_SCOPE_DESCRIPTION, libraryNamed, mediaFileId, scopeLibrary } from '../../src/lookup.js'
import { confirmDestructive, refuseIfNotPermitted, count, recordCount, yesFlag } from '../../src/confirm.js'

export default class MediaDelete extends AuthCommand<typeof MediaDelete> {
  static summary =
    'Delete a media file with its tags (needs admin on its library; asks first, --yes when not on a terminal)'
  static examples = ['<%= config.bin %> media delete 9', '<%= config.bin %> media delete 9 --yes']
  static args = { id: Args.string({ description: 'media file: alias, file name (when unique) or id', required: true }) }
  static flags = {
    yes: yesFlag,
    library: Flags.string({ char: 'l', description: LIBRARY_SCOPE_DESCRIPTION }),
  }

  async run() {
    const file = await this.api.get(
      `mediaFile/${await mediaFileId(this.api, 'ID', this.args.id, await scopeLibrary(this.api, this.flags.library))}/`,
    )
    await refuseIfNotPermitted(
      this.api,
      `mediaFile/${file.id}/`,
      `media file ${file.id} '${file.alias ?? file.id}'`,
      this.flags.yes,
    )
    if (!this.flags.yes) {
      const tags = await recordCount(this.api, 'tag/', { mediaFile: file.id })
      await confirmDestructive(
        `delete media file ${file.id} '${file.alias ?? file.id}' of ${await libraryNamed(this.api, file.library)} with ${count(tags, 'tag')}?`,
        false,
      )
    }
    await this.api.delete(`mediaFile/${file.id}/`)
    this.logToStderr(`Deleted media file ${file.id} '${file.alias ?? file.id}'`)
    return { id: file.id, deleted: true }
  }
}
