import { Flags } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { TAG } from '../../src/columns.js'
import { listFlags } from '../../src/list-output.js'

export default class TagList extends AuthCommand<typeof TagList> {
  static summary = 'List the tags of a tag set'
  static description = 'For every tag in a file that "mas tag import" reads, use "mas tag export".'
  static examples = ['<%= config.bin %> tag list --tag-set 1', '<%= config.bin %> tag list --tag-set 1 --sort -strength --limit 10', '<%= config.bin %> tag list --tag-set 1 --csv']
  static flags = {
    ...listFlags,
    'tag-set': Flags.integer({ description: 'tag set id', required: true, min: 1 }),
  }

  async run() {
    const tags = await this.api.all(`tagSet/${this.flags['tag-set']}/tags/`)
    return this.showList(tags, TAG)
  }
}
