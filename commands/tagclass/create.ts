import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { alreadyThere, existing } from '../../src/createOnce.js'
import { libraryId, libraryNamed } from '../../src/lookup.js'

export default class TagClassCreate extends AuthCommand<typeof TagClassCreate> {
  static summary =
    "Create a tag class in a library; prints its id (the existing one's, when the library has a class of that name)"
  static examples = [
    '<%= config.bin %> tagclass create turdus_merula --library 1 --display-name Blackbird',
    '<%= config.bin %> tagclass create sylvia_atricapilla --library 1',
  ]
  static args = { name: Args.string({ description: 'class name', required: true }) }
  static flags = {
    library: Flags.string({ char: 'l', description: 'library (name or id; needs write on it)', required: true }),
    'display-name': Flags.string({ description: 'name shown to people [default: the class name]' }),
  }

  async run() {
    const library = await libraryId(this.api, '--library', this.flags.library)
    const made = await existing(
      this.api,
      'tagClass/',
      { library },
      (c) => c.className === this.args.name && c.library === library,
    )
    if (made) {
      alreadyThere(`tag class '${this.args.name}' of ${await libraryNamed(this.api, library)}`, made)
      this.log(String(made.id))
      return made
    }
    const tagClass = await this.api.post('tagClass/', {
      className: this.args.name,
      library,
      displayName: this.flags['display-name'] ?? this.args.name,
    })
    this.log(String(tagClass.id))
    return tagClass
  }
}
