import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { libraryId } from '../../src/lookup.js'
import { listFlags } from '../../src/listOutput.js'
import { TAG_CLASS } from '../../src/columns.js'

export default class TagClassList extends AuthCommand<typeof TagClassList> {
  static summary = 'List the tag classes you can read'
  static examples = ['<%= config.bin %> tagclass list', '<%= config.bin %> tagclass list --library 1 --json']
  static flags = {
    ...listFlags,
    library: Flags.string({ char: 'l', description: 'only classes of this library (name or id)' }),
  }

  async run() {
    const library =
      this.flags.library === undefined ? undefined : await libraryId(this.api, '--library', this.flags.library)
    const classes = await this.api.all('tagClass/', { library }, { library: '--library' })
    return this.showList(classes, TAG_CLASS)
  }
}
