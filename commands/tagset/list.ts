import { Flags } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { listFlags } from '../../src/list-output.js'
import { TAG_SET } from '../../src/columns.js'

export default class TagSetList extends AuthCommand<typeof TagSetList> {
  static summary = 'List the tag sets you can read'
  static examples = ['<%= config.bin %> tagset list', '<%= config.bin %> tagset list --library 1 --json']
  static flags = { ...listFlags, library: Flags.integer({ char: 'l', description: 'only tag sets of this library', min: 1 }) }

  async run() {
    const sets = await this.api.all('tagSet/', { library: this.flags.library })
    const shown = this.flags.library ? sets.filter((s) => s.library === this.flags.library) : sets
    return this.showList(shown, TAG_SET)
  }
}
