import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { libraryId } from '../../src/lookup.js'
import { confirmDestructive, refuseIfNotPermitted, count, recordCount, yesFlag } from '../../src/confirm.js'

export default class LibraryDelete extends AuthCommand<typeof LibraryDelete> {
  static summary = 'Delete a library with its media files, tag sets and tags (asks first; --yes when not on a terminal)'
  static examples = ['<%= config.bin %> library delete 2', '<%= config.bin %> library delete 2 --yes']
  static args = { id: Args.string({ description: 'library (name or id)', required: true }) }
  static flags = { yes: yesFlag }

  async run() {
    const library = await this.api.get(`library/${await libraryId(this.api, 'ID', this.args.id)}/`)
    await refuseIfNotPermitted(
      this.api,
      `library/${library.id}/`,
      `library ${library.id} '${library.name}'`,
      this.flags.yes,
    )
    if (!this.flags.yes) {
      const tagSets = await this.api.all('tagSet/', { library: library.id })
      let tags = 0
      for (const s of tagSets) tags += await recordCount(this.api, `tagSet/${s.id}/tags/`)
      await confirmDestructive(
        `delete library ${library.id} '${library.name}' with ${count(library.mediaFiles?.length ?? 0, 'media file')}, ` +
          `${count(tagSets.length, 'tag set')} and ${count(tags, 'tag')}?`,
        false,
      )
    }
    await this.api.delete(`library/${library.id}/`)
    this.logToStderr(`Deleted library ${library.id} '${library.name}'`)
    return { id: library.id, deleted: true }
  }
}
