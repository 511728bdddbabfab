import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { libraryId } from '../../src/lookup.js'

export default class TagSetCreate extends AuthCommand<typeof TagSetCreate> {
  static summary = 'Create a tag set; prints its id'
  static examples = ['<%= config.bin %> tagset create "expert labels" --library 1', '<%= config.bin %> tagset create scratch --json']
  static args = { name: Args.string({ description: 'tag set name', required: true }) }
  static flags = { library: Flags.string({ char: 'l', description: 'library the tag set belongs to (name or id; needs write on it)' }) }

  async run() {
    const tagSet = await this.api.post('tagSet/', {
      // the original and mas require the field; mas takes null for a tag set of no library
      name: this.args.name, library: this.flags.library !== undefined ? await libraryId(this.api, '--library', this.flags.library) : null,
    })
    this.log(String(tagSet.id))
    return tagSet
  }
}
