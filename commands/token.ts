import { AuthCommand } from '../src/baseCommand.js'

export default class Token extends AuthCommand<typeof Token> {
  static summary = "Print the profile's token (or MAS_TOKEN), for a script's own requests to the server"
  static description =
    'The token `mas login` stored, alone on stdout, as `gh auth token` prints its own: `curl -H "Authorization: Token $(mas token)" …`. Nothing is asked of the server; `mas whoami` checks that the token still works.'
  static aliases = ['auth:token']
  static examples = ['<%= config.bin %> token', '<%= config.bin %> token --json']

  async run(): Promise<{ server: string; token: string }> {
    // init refused an absent token ("run mas login"); MAS_TOKEN stands before the profile's, as for every command
    const token = (process.env.MAS_TOKEN || this.profile?.token) as string
    if (!this.jsonEnabled()) this.log(token)
    return { server: this.server, token }
  }
}
