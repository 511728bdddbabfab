import { AuthCommand } from '../src/baseCommand.js'
import { record } from '../src/output.js'

export default class Whoami extends AuthCommand<typeof Whoami> {
  static summary = 'Show the server and user of the profile, checking that the token still works'
  static examples = ['<%= config.bin %> whoami', '<%= config.bin %> whoami --json']

  async run(): Promise<{ server: string; username: string | null; profile: string }> {
    await this.api.get('jobTypes/') // any authenticated request: a rejected token answers 401
    const result = {
      server: this.api.server,
      username: process.env.MAS_TOKEN ? null : (this.profile?.username ?? null),
      profile: this.flags.profile,
    }
    this.log(
      record({ server: result.server, username: result.username ?? '(token from MAS_TOKEN)', profile: result.profile }),
    )
    return result
  }
}
