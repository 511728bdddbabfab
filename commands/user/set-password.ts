import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { usageError } from '../../src/exits.js'
import { userId } from '../../src/lookup.js'
import { saveProfile } from '../../src/profiles.js'
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
    // a new password ends the user's tokens: when that is this profile's own, it logs in again with it
    const own = !process.env.MAS_TOKEN && this.profile?.token && this.profile.username === user.username
    if (own) {
      const answer = await this.api.tokenLogin(user.username, password)
      if (typeof answer.data?.token === 'string') {
        await saveProfile(this.config.configDir, this.flags.profile, { ...this.profile!, token: answer.data.token })
      }
    }
    this.logToStderr(
      `Password of ${user.username} changed; their tokens and sessions have ended` +
        (own
          ? ' (this profile has logged in again with the new password)'
          : ', so they log in again with the new password'),
    )
    return user
  }
}
