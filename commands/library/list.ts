import { AuthCommand } from '../../src/base-command.js'
import { LIBRARY } from '../../src/columns.js'

export default class LibraryList extends AuthCommand<typeof LibraryList> {
  static summary = 'List the libraries you can read'
  static examples = ['<%= config.bin %> library list', '<%= config.bin %> library list --json']

  async run() {
    const libraries = await this.api.all('library/')
    this.showTable(libraries, LIBRARY)
    return libraries
  }
}
