import { BaseCommand } from '../src/baseCommand.js'
import { forgetToken } from '../src/profiles.js'

export default class Logout extends BaseCommand<typeof Logout> {
  static summary = 'Forget the token stored in the profile'
  static examples = ['<%= config.bin %> logout', '<%= config.bin %> logout --profile lab']

  async run(): Promise<{ profile: string; loggedOut: boolean }> {
    const loggedOut = await forgetToken(this.config.configDir, this.flags.profile)
    this.logToStderr(
      loggedOut ? `Logged out (profile "${this.flags.profile}")` : `Not logged in (profile "${this.flags.profile}")`,
    )
    return { profile: this.flags.profile, loggedOut }
  }
}
