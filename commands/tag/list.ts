import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { findTagSet } from '../../src/lookup.js'
import { TAG } from '../../src/columns.js'
import { listFlags } from '../../src/listOutput.js'

export default class TagList extends AuthCommand<typeof TagList> {
  static summary = 'List the tags of a tag set'
  static description = 'For every tag in a file that "mas tag import" reads, use "mas tag export".'
  static examples = [
    '<%= config.bin %> tag list --tag-set 1',
    '<%= config.bin %> tag list --tag-set 1 --sort -strength --limit 10',
    '<%= config.bin %> tag list --tag-set 1 --csv',
  ]
  static flags = {
    ...listFlags,
    'tag-set': Flags.string({ description: 'tag set (name or id)', required: true }),
  }

  async run() {
    const tagSet = await findTagSet(this.api, '--tag-set', this.flags['tag-set'])
    return this.showListed(`tagSet/${tagSet.id}/tags/`, TAG, { library: tagSet.library ?? undefined })
  }
}
