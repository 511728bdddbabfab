import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { failure } from '../../src/exits.js'
import { membersBody, membersMissing, resolveMembers } from '../../src/groupMembers.js'
import { named } from '../../server/named.js'

export default class GroupCreate extends AuthCommand<typeof GroupCreate> {
  static summary = 'Create a user group, optionally with members'
  static description =
    'Members by name are looked up in user/ where you may read it (site admins); on mas others may give names too, on the original service they give ids.'
  static examples = [
    '<%= config.bin %> group create birders --user bob',
    '<%= config.bin %> group create lab --user 2 --json',
  ]
  static args = { name: Args.string({ description: 'group name', required: true }) }
  static flags = {
    user: Flags.string({ char: 'u', description: 'a member, by username or id (repeatable)', multiple: true }),
  }

  async run() {
    const members = await resolveMembers(this.api, this.flags.user ?? [])
    const group = await this.api.post('appUserGroup/', {
      name: this.args.name,
      ...membersBody([], members),
    })
    const missing = membersMissing(group, [], members)
    if (missing) {
      await this.api.delete(`appUserGroup/${group.id}/`).catch(() => {})
      failure(
        `The server did not take ${missing} as members; ${named('group', group.id, this.args.name)} was deleted again`,
      )
    }
    this.log(String(group.id))
    return group
  }
}
