import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { failure } from '../../src/exits.js'
import { memberNames, membersBody, membersMissing, resolveMembers } from '../../src/groupMembers.js'
import { findGroup } from '../../src/lookup.js'
import { named } from '../../server/named.js'

export default class GroupAddUser extends AuthCommand<typeof GroupAddUser> {
  static summary = 'Add users to a group'
  static description =
    'Users by name are looked up in user/ where you may read it (site admins); on mas others may give names too, on the original service they give ids.'
  static examples = ['<%= config.bin %> group add-user birders carol', '<%= config.bin %> group add-user 2 carol 1']
  static strict = false
  static args = {
    group: Args.string({ description: 'group name or id', required: true }),
    user: Args.string({ description: 'username or id (several may follow)', required: true }),
  }

  async run() {
    const { argv } = await this.parse(GroupAddUser)
    const group = await findGroup(this.api, this.args.group)
    const added = await resolveMembers(this.api, (argv as string[]).slice(1))
    const updated = await this.api.patch(`appUserGroup/${group.id}/`, membersBody(group.users, added))
    const missing = membersMissing(updated, group.users, added)
    if (missing) {
      await this.api.patch(`appUserGroup/${group.id}/`, { users: group.users }).catch(() => {})
      failure(
        `The server did not take ${missing} as members; ${named('group', group.id, group.name)} keeps users ${await memberNames(this.api, group.users)}`,
      )
    }
    this.logToStderr(
      `${named('Group', updated.id, updated.name)} has users ${await memberNames(this.api, updated.users)}`,
    )
    return updated
  }
}
