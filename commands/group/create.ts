import { Args, Flags } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { splitUsers } from '../../src/lookup.js'

export default class GroupCreate extends AuthCommand<typeof GroupCreate> {
  static summary = 'Create a user group, optionally with members'
  static examples = ['<%= config.bin %> group create birders --user bob', '<%= config.bin %> group create lab --user 2 --json']
  static args = { name: Args.string({ description: 'group name', required: true }) }
  static flags = { user: Flags.string({ char: 'u', description: 'a member, by username or id (repeatable)', multiple: true }) }

  async run() {
    const members = splitUsers(this.flags.user ?? [])
    const body: Record<string, unknown> = { name: this.args.name, users: members.users }
    if (members.usernames.length) body.usernames = members.usernames
    const group = await this.api.post('appUserGroup/', body)
    this.log(String(group.id))
    return group
  }
}
