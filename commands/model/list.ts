import { AuthCommand } from '../../src/baseCommand.js'
import { MODEL } from '../../src/columns.js'
import { listFlags } from '../../src/listOutput.js'

export default class ModelList extends AuthCommand<typeof ModelList> {
  static summary = 'List the ONNX models jobs can run'
  static examples = ['<%= config.bin %> model list', '<%= config.bin %> model list --json']
  static flags = listFlags

  async run() {
    return this.showListed('model/', MODEL)
  }
}
