import { Args } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { userId } from '../../src/lookup.js'

export default class UserDeactivate extends AuthCommand<typeof UserDeactivate> {
  static summary = 'Deactivate a user: they can no longer log in or use their token (site admins only)'
  static examples = ['<%= config.bin %> user deactivate bob']
  static args = { user: Args.string({ description: 'username or id', required: true }) }

  async run() {
    const id = await userId(this.api, this.args.user)
    const user = await this.api.patch(`user/${id}/`, { is_active: false })
    this.logToStderr(`Deactivated ${user.username}`)
    return user
  }
}
