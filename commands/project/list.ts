import { AuthCommand } from '../../src/baseCommand.js'
import { PROJECT } from '../../src/columns.js'
import { listFlags } from '../../src/listOutput.js'

export default class ProjectList extends AuthCommand<typeof ProjectList> {
  static summary = 'List every project (site admins only: the API lists projects to them alone)'
  static examples = [
    '<%= config.bin %> project list',
    '<%= config.bin %> project list --sort name --columns id,name,media',
    '<%= config.bin %> project list --json',
  ]
  static flags = listFlags

  async run() {
    return this.showListed('project/', PROJECT)
  }
}
