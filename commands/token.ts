import { AuthCommand } from '../src/baseCommand.js'

export default class Token extends AuthCommand<typeof Token> {
  static summary = "Print the profile's token (or MAS_TOKEN), for a script's own requests to the server"
  static description =
    'The token `mas login` stored, alone on stdout, as `gh auth token` prints its own: `curl -H "Authorization: Token $(mas token)" …`. Nothing is asked of the server; `mas whoami` checks that the token still works.'
  static aliases = ['auth:token']
  static examples = ['<%= config.bin %> token', '<%= config.bin %> token --json']

  async run(): Promise<{ server: string; token: string }> {
    // the one every command sends (init refused an absent one: "run mas login")
    if (!this.jsonEnabled()) this.log(this.token)
    return { server: this.server, token: this.token }
  }
}
