import { Flags } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { listFlags } from '../../src/list-output.js'
import { TAG_CLASS } from '../../src/columns.js'

export default class TagClassList extends AuthCommand<typeof TagClassList> {
  static summary = 'List the tag classes you can read'
  static examples = ['<%= config.bin %> tagclass list', '<%= config.bin %> tagclass list --library 1 --json']
  static flags = { ...listFlags, library: Flags.integer({ char: 'l', description: 'only classes of this library', min: 1 }) }

  async run() {
    const classes = await this.api.all('tagClass/', { library: this.flags.library })
    const shown = this.flags.library ? classes.filter((c) => c.library === this.flags.library) : classes
    return this.showList(shown, TAG_CLASS)
  }
}
