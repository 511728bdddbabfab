import { Args, Flags } from '@oclif/core'
import { AuthCommand, usageError } from '../../src/base-command.js'
import { userId } from '../../src/lookup.js'
import { newPassword } from '../../src/stdin.js'

export default class UserSetPassword extends AuthCommand<typeof UserSetPassword> {
  static summary = "Change a user's password (site admins only)"
  static examples = ['echo "$NEW_PASSWORD" | <%= config.bin %> user set-password bob --password-stdin']
  static args = { user: Args.string({ description: 'username or id', required: true }) }
  static flags = { 'password-stdin': Flags.boolean({ description: 'read the password from stdin (first line)' }) }

  async run() {
    const password = await newPassword(this.flags['password-stdin'])
    if (!password) usageError('Give --password-stdin to read the password when not on a terminal')
    const id = await userId(this.api, this.args.user)
    const user = await this.api.patch(`user/${id}/`, { password })
    this.logToStderr(`Password of ${user.username} changed`)
    return user
  }
}
