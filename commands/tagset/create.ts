import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { alreadyThere, existing } from '../../src/createOnce.js'
import { libraryId, libraryNamed } from '../../src/lookup.js'
import { ownId } from '../../src/names.js'

export default class TagSetCreate extends AuthCommand<typeof TagSetCreate> {
  static summary = "Create a tag set; prints its id (the existing one's, when the library has a tag set of that name)"
  static examples = [
    '<%= config.bin %> tagset create "expert labels" --library 1',
    '<%= config.bin %> tagset create scratch --json',
  ]
  static args = { name: Args.string({ description: 'tag set name', required: true }) }
  static flags = {
    library: Flags.string({ char: 'l', description: 'library the tag set belongs to (name or id; needs write on it)' }),
  }

  async run() {
    const library = this.flags.library !== undefined ? await libraryId(this.api, '--library', this.flags.library) : null
    // a tag set of no library: the caller's own of that name
    const made =
      library === null
        ? await ownId(this.api).then((me) =>
            existing(
              this.api,
              'tagSet/',
              { name: this.args.name },
              (s) => s.name === this.args.name && s.library === null && s.user === me,
            ),
          )
        : await existing(this.api, 'tagSet/', { library }, (s) => s.name === this.args.name && s.library === library)
    if (made) {
      alreadyThere(
        `tag set '${this.args.name}'${library === null ? '' : ` of ${await libraryNamed(this.api, library)}`}`,
        made,
      )
      this.log(String(made.id))
      return made
    }
    // the original and mas require the field; mas takes null for a tag set of no library
    const tagSet = await this.api.post('tagSet/', { name: this.args.name, library })
    this.log(String(tagSet.id))
    return tagSet
  }
}
