import { AuthCommand } from '../../src/baseCommand.js'
import { listFlags } from '../../src/listOutput.js'

export default class UserList extends AuthCommand<typeof UserList> {
  static summary = 'List every user (site admins only)'
  static examples = ['<%= config.bin %> user list', '<%= config.bin %> user list --json']
  static flags = listFlags

  async run() {
    return this.showListed('user/', [
      { header: 'id', get: (u) => u.id },
      { header: 'username', get: (u) => u.username },
    ])
  }
}
