import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { confirmDestructive, refuseIfNotPermitted, yesFlag } from '../../src/confirm.js'
import { thousandths } from '../../src/output.js'

export default class TagDelete extends AuthCommand<typeof TagDelete> {
  static summary = 'Delete one tag (asks first; --yes when not on a terminal)'
  static examples = ['<%= config.bin %> tag delete 1', '<%= config.bin %> tag delete 1 --yes']
  static args = { id: Args.integer({ description: 'tag id', required: true, min: 1 }) }
  static flags = { yes: yesFlag }

  async run() {
    const tag = await this.api.get(`tag/${this.args.id}/`)
    await refuseIfNotPermitted(this.api, `tag/${tag.id}/`, `tag ${tag.id}`, this.flags.yes)
    await confirmDestructive(`delete tag ${tag.id} (tag class ${tag.tagClass} on media file ${tag.mediaFile}, ` +
      `${thousandths(tag.startTime)}-${thousandths(tag.endTime)} s, tag set ${tag.tagSet})?`, this.flags.yes)
    await this.api.delete(`tag/${tag.id}/`)
    this.logToStderr(`Deleted tag ${tag.id}`)
    return { id: tag.id, deleted: true }
  }
}
