import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { alreadyThere, ownLibraryNamed } from '../../src/createOnce.js'

export default class LibraryCreate extends AuthCommand<typeof LibraryCreate> {
  static summary =
    'Create a library; prints its id (the id of yours of that name, when you have one: nothing is created twice)'
  static examples = [
    '<%= config.bin %> library create "Dawn chorus 2026"',
    '<%= config.bin %> library create field --json',
  ]
  static args = { name: Args.string({ description: 'library name', required: true }) }

  async run() {
    const made = await ownLibraryNamed(this.api, this.args.name)
    if (made) {
      alreadyThere(`your library '${this.args.name}'`, made)
      this.log(String(made.id))
      return made
    }
    const library = await this.api.post('library/', { name: this.args.name })
    this.log(String(library.id))
    return library
  }
}
