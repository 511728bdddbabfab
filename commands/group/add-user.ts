import { Args } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { findGroup, splitUsers } from '../../src/lookup.js'

export default class GroupAddUser extends AuthCommand<typeof GroupAddUser> {
  static summary = 'Add users to a group'
  static examples = ['<%= config.bin %> group add-user birders carol', '<%= config.bin %> group add-user 2 carol 1']
  static strict = false
  static args = {
    group: Args.string({ description: 'group name or id', required: true }),
    user: Args.string({ description: 'username or id (several may follow)', required: true }),
  }

  async run() {
    const { argv } = await this.parse(GroupAddUser)
    const group = await findGroup(this.api, this.args.group)
    const added = splitUsers((argv as string[]).slice(1))
    const body: Record<string, unknown> = { users: [...new Set([...group.users, ...added.users])] }
    if (added.usernames.length) body.usernames = added.usernames
    const updated = await this.api.patch(`appUserGroup/${group.id}/`, body)
    this.logToStderr(`Group ${updated.name} (${updated.id}) has users ${updated.users.join(', ') || '(none)'}`)
    return updated
  }
}
