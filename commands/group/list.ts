import { AuthCommand } from '../../src/baseCommand.js'
import { listFlags } from '../../src/listOutput.js'
import { GROUP } from '../../src/columns.js'

export default class GroupList extends AuthCommand<typeof GroupList> {
  static summary = 'List the user groups you can see (created by you, holding you, or shared with you)'
  static examples = ['<%= config.bin %> group list', '<%= config.bin %> group list --json']
  static flags = listFlags

  async run() {
    return this.showListed('appUserGroup/', GROUP)
  }
}
