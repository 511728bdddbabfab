import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'

export default class LibraryCreate extends AuthCommand<typeof LibraryCreate> {
  static summary = 'Create a library; prints its id'
  static examples = ['<%= config.bin %> library create "Dawn chorus 2026"', '<%= config.bin %> library create field --json']
  static args = { name: Args.string({ description: 'library name', required: true }) }

  async run() {
    const library = await this.api.post('library/', { name: this.args.name })
    this.log(String(library.id))
    return library
  }
}
