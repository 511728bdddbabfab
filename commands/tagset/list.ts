import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { libraryId } from '../../src/lookup.js'
import { listFlags } from '../../src/listOutput.js'
import { TAG_SET } from '../../src/columns.js'

export default class TagSetList extends AuthCommand<typeof TagSetList> {
  static summary = 'List the tag sets you can read'
  static examples = ['<%= config.bin %> tagset list', '<%= config.bin %> tagset list --library 1 --json']
  static flags = {
    ...listFlags,
    library: Flags.string({ char: 'l', description: 'only tag sets of this library (name or id)' }),
  }

  async run() {
    const library =
      this.flags.library === undefined ? undefined : await libraryId(this.api, '--library', this.flags.library)
    const sets = await this.api.all('tagSet/', { library }, { library: '--library' })
    return this.showList(sets, TAG_SET)
  }
}
