import { AuthCommand } from '../../src/baseCommand.js'
import { listFlags } from '../../src/listOutput.js'
import { LIBRARY } from '../../src/columns.js'

export default class LibraryList extends AuthCommand<typeof LibraryList> {
  static summary = 'List the libraries you can read'
  static examples = ['<%= config.bin %> library list', '<%= config.bin %> library list --json']
  static flags = listFlags

  async run() {
    return this.showListed('library/', LIBRARY)
  }
}
