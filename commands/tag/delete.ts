import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { confirmDestructive, refuseIfNotPermitted, yesFlag } from '../../src/confirm.js'
import { thousandths } from '../../src/output.js'
import { mediaFileNamed, named, tagSetNamed } from '../../server/named.js'

export default class TagDelete extends AuthCommand<typeof TagDelete> {
  static summary = 'Delete one tag (asks first; --yes when not on a terminal)'
  static examples = ['<%= config.bin %> tag delete 1', '<%= config.bin %> tag delete 1 --yes']
  static args = { id: Args.integer({ description: 'tag id', required: true, min: 1 }) }
  static flags = { yes: yesFlag }

  async run() {
    const tag = await this.api.get(`tag/${this.args.id}/`)
    await refuseIfNotPermitted(this.api, `tag/${tag.id}/`, `tag ${tag.id}`, this.flags.yes)
    if (!this.flags.yes) {
      // the question names what people know the tag by; a record the caller cannot read stays an id
      const [tagSet, tagClass, file] = await Promise.all([
        this.api.get(`tagSet/${tag.tagSet}/`).catch(() => undefined),
        this.api.get(`tagClass/${tag.tagClass}/`).catch(() => undefined),
        this.api.get(`mediaFile/${tag.mediaFile}/`).catch(() => undefined),
      ])
      await confirmDestructive(
        `delete tag ${tag.id} of ${tagSetNamed({ id: tag.tagSet, name: tagSet?.name })}: ` +
          `${named('tag class', tag.tagClass, tagClass?.className)} on ${mediaFileNamed({ id: tag.mediaFile, alias: file?.alias })}, ` +
          `${thousandths(tag.startTime)}-${thousandths(tag.endTime)} s?`,
        false,
      )
    }
    await this.api.delete(`tag/${tag.id}/`)
    this.logToStderr(`Deleted tag ${tag.id}`)
    return { id: tag.id, deleted: true }
  }
}
