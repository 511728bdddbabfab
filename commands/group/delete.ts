import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { confirmDestructive, refuseIfNotPermitted, count, yesFlag } from '../../src/confirm.js'
import { findGroup } from '../../src/lookup.js'

export default class GroupDelete extends AuthCommand<typeof GroupDelete> {
  static summary = 'Delete a user group and the grants made to it (asks first; --yes when not on a terminal)'
  static examples = ['<%= config.bin %> group delete birders', '<%= config.bin %> group delete 2 --yes']
  static args = { group: Args.string({ description: 'group name or id', required: true }) }
  static flags = { yes: yesFlag }

  async run() {
    const group = await findGroup(this.api, this.args.group)
    await refuseIfNotPermitted(
      this.api,
      `appUserGroup/${group.id}/`,
      `group ${group.id} '${group.name}'`,
      this.flags.yes,
    )
    await confirmDestructive(
      `delete group ${group.id} '${group.name}' with ${count(group.users.length, 'member')}?`,
      this.flags.yes,
    )
    await this.api.delete(`appUserGroup/${group.id}/`)
    this.logToStderr(`Deleted group ${group.id} '${group.name}'`)
    return { id: group.id, deleted: true }
  }
}
