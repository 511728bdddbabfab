import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { confirmDestructive, yesFlag } from '../../src/confirm.js'
import { userId } from '../../src/lookup.js'

export default class UserDeactivate extends AuthCommand<typeof UserDeactivate> {
  static summary =
    'Deactivate a user: they can no longer log in or use their token (site admins only; asks first, --yes when not on a terminal)'
  static examples = ['<%= config.bin %> user deactivate bob', '<%= config.bin %> user deactivate bob --yes']
  static args = { user: Args.string({ description: 'username or id', required: true }) }

  static flags = { yes: yesFlag }

  async run() {
    const id = await userId(this.api, this.args.user)
    await confirmDestructive(
      `deactivate user ${id}${/^\d+$/.test(this.args.user) ? '' : ` '${this.args.user}'`} (they can no longer log in or use their token)?`,
      this.flags.yes,
    )
    const user = await this.api.patch(`user/${id}/`, { is_active: false })
    this.logToStderr(`Deactivated ${user.username}`)
    return user
  }
}
