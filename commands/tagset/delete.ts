import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { scopeLibrary, tagSetId } from '../../src/lookup.js'
import { confirmDestructive, refuseIfNotPermitted, count, recordCount, yesFlag } from '../../src/confirm.js'

export default class TagSetDelete extends AuthCommand<typeof TagSetDelete> {
  static summary = 'Delete a tag set with its tags (asks first; --yes when not on a terminal)'
  static examples = [
    '<%= config.bin %> tagset delete 2',
    '<%= config.bin %> tagset delete 2 --yes',
    '<%= config.bin %> tagset delete "expert labels" --library "Dawn chorus 2026" --yes',
  ]
  static args = {
    id: Args.string({ description: 'tag set (name when unique among the sets you can read, or id)', required: true }),
  }
  static flags = {
    yes: yesFlag,
    library: Flags.string({ char: 'l', description: 'look the tag set up by name in this library only (name or id)' }),
  }

  async run() {
    const library = await scopeLibrary(this.api, this.flags.library)
    const tagSet = await this.api.get(`tagSet/${await tagSetId(this.api, 'ID', this.args.id, library)}/`)
    await refuseIfNotPermitted(
      this.api,
      `tagSet/${tagSet.id}/`,
      `tag set ${tagSet.id} '${tagSet.name}'`,
      this.flags.yes,
    )
    if (!this.flags.yes) {
      const tags = await recordCount(this.api, `tagSet/${tagSet.id}/tags/`)
      await confirmDestructive(`delete tag set ${tagSet.id} '${tagSet.name}' with ${count(tags, 'tag')}?`, false)
    }
    await this.api.delete(`tagSet/${tagSet.id}/`)
    this.logToStderr(`Deleted tag set ${tagSet.id} '${tagSet.name}'`)
    return { id: tagSet.id, deleted: true }
  }
}
