import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { libraryNamed, scopeLibrary, tagClassId } from '../../src/lookup.js'
import { confirmDestructive, refuseIfNotPermitted, count, recordCount, yesFlag } from '../../src/confirm.js'

export default class TagClassDelete extends AuthCommand<typeof TagClassDelete> {
  static summary = 'Delete a tag class with the tags of that class (asks first; --yes when not on a terminal)'
  static examples = [
    '<%= config.bin %> tagclass delete 2',
    '<%= config.bin %> tagclass delete 2 --yes',
    '<%= config.bin %> tagclass delete turdus_merula --library "Dawn chorus 2026" --yes',
  ]
  static args = {
    id: Args.string({
      description: 'tag class (name when unique among the classes you can read, or id)',
      required: true,
    }),
  }
  static flags = {
    yes: yesFlag,
    library: Flags.string({ char: 'l', description: 'look the class up by name in this library only (name or id)' }),
  }

  async run() {
    const tagClass = await this.api.get(
      `tagClass/${await tagClassId(this.api, 'ID', this.args.id, await scopeLibrary(this.api, this.flags.library))}/`,
    )
    await refuseIfNotPermitted(
      this.api,
      `tagClass/${tagClass.id}/`,
      `tag class ${tagClass.id} '${tagClass.className}'`,
      this.flags.yes,
    )
    if (!this.flags.yes) {
      const tags = await recordCount(this.api, 'tag/', { tagClass: tagClass.id })
      await confirmDestructive(
        `delete tag class ${tagClass.id} '${tagClass.className}' of ${await libraryNamed(this.api, tagClass.library)} with ${count(tags, 'tag')}?`,
        false,
      )
    }
    await this.api.delete(`tagClass/${tagClass.id}/`)
    this.logToStderr(`Deleted tag class ${tagClass.id} '${tagClass.className}'`)
    return { id: tagClass.id, deleted: true }
  }
}
