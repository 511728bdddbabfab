import * as Args from '@oclif/core/args'
import { ApiError } from '../../src/api.js'
import { AuthCommand } from '../../src/baseCommand.js'
import { failure } from '../../src/exits.js'
import { findGroup, userId } from '../../src/lookup.js'
import { memberNames } from '../../src/groupMembers.js'
import { named } from '../../server/named.js'

export default class GroupRemoveUser extends AuthCommand<typeof GroupRemoveUser> {
  static summary = 'Remove users from a group'
  static description =
    'Users given by name are looked up in user/, which only site admins may read; others give user ids.'
  static examples = ['<%= config.bin %> group remove-user birders 3', '<%= config.bin %> group remove-user 2 carol']
  static strict = false
  static args = {
    group: Args.string({ description: 'group name or id', required: true }),
    user: Args.string({ description: 'username or id (several may follow)', required: true }),
  }

  async run() {
    const { argv } = await this.parse(GroupRemoveUser)
    const group = await findGroup(this.api, this.args.group)
    const removed = new Set<number>()
    for (const u of (argv as string[]).slice(1)) {
      try {
        removed.add(await userId(this.api, u))
      } catch (err) {
        if (err instanceof ApiError && err.status === 403)
          failure(`Only site admins can look users up by name: give the id of "${u}"`)
        throw err
      }
    }
    const updated = await this.api.patch(`appUserGroup/${group.id}/`, {
      users: group.users.filter((id) => !removed.has(id)),
    })
    this.logToStderr(
      `${named('Group', updated.id, updated.name)} has users ${await memberNames(this.api, updated.users)}`,
    )
    return updated
  }
}
