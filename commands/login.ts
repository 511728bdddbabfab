import * as Flags from '@oclif/core/flags'
import { input, password as passwordPrompt } from '@inquirer/prompts'
import { ApiError, ConnectionError, normalizeServer } from '../src/api.js'
import { BaseCommand, DEFAULT_SERVER } from '../src/baseCommand.js'
import { failure, usageError } from '../src/exits.js'
import { profilePath, saveProfile } from '../src/profiles.js'
import { readPassword } from '../src/stdin.js'

export default class Login extends BaseCommand<typeof Login> {
  static summary = 'Log in to a mas server and store the token in the profile'
  static description = `Asks on a terminal for the server (when neither --server, MAS_SERVER nor the profile gives one; it must answer before the password is asked for), the username and the password (hidden), or takes --username with the password on stdin (--password-stdin). The token from api-token-auth is stored in the profile file; the password is never stored or printed.`

  static examples = [
    '<%= config.bin %> login --server https://mas.example.org',
    'echo "$MAS_PASSWORD" | <%= config.bin %> login --server http://127.0.0.1:8000 --username admin --password-stdin',
    '<%= config.bin %> login --profile lab --server https://lab.example.org',
  ]

  static flags = {
    server: Flags.string({
      description: `server address [default: the profile's, or ${DEFAULT_SERVER}]`,
      env: 'MAS_SERVER',
    }),
    username: Flags.string({ char: 'u', description: 'username (asked for on a terminal when missing)' }),
    'password-stdin': Flags.boolean({ description: 'read the password from stdin (first line)' }),
  }

  async run(): Promise<{ server: string; username: string; profile: string }> {
    const interactive = process.stdin.isTTY && !this.flags['password-stdin']
    const given = this.flags.server ?? this.profile?.server
    const server = normalizeServer(
      given ??
        (interactive
          ? await input({ message: 'Server:', default: DEFAULT_SERVER, required: true }, { output: process.stderr })
          : DEFAULT_SERVER),
    )
    if (interactive) await this.answers(server)
    let username = this.flags.username
    if (!username) {
      if (!interactive) usageError('Give --username (and --password-stdin) when not on a terminal')
      username = await input({ message: 'Username:', required: true }, { output: process.stderr })
    }
    let password: string
    if (this.flags['password-stdin']) password = await readPassword()
    else if (interactive)
      password = await passwordPrompt({ message: 'Password:', mask: true }, { output: process.stderr })
    else usageError('Give --password-stdin to read the password when not on a terminal')
    if (!password) usageError('The password is empty: give it on the first line of stdin with --password-stdin')

    const api = this.client(undefined, server)
    const answer = await api.tokenLogin(username, password)
    if (answer.status === 400)
      failure('Unable to log in with the given username and password: check --username and the password')
    if (answer.status >= 400) throw new ApiError(answer.status, answer.data, 'POST', api.tokenLoginUrl)
    const token = answer.data?.token
    if (typeof token !== 'string' || !token) failure(`${server} did not answer with a token: is it a mas server?`)

    await saveProfile(this.config.configDir, this.flags.profile, { server, username, token })
    this.logToStderr(
      `Logged in to ${server} as ${username} (profile "${this.flags.profile}", saved in ${profilePath(this.config.configDir)})`,
    )
    return { server, username, profile: this.flags.profile }
  }

  /** Does anything answer at `server`? Asked before the password, so a mistyped address costs no typing. */
  private async answers(server: string): Promise<void> {
    const api = this.client(undefined, server)
    try {
      await api.request('GET', api.url(''), { retry: false })
    } catch (err) {
      if (err instanceof ConnectionError) failure(`${err.message}; check the address (--server)`)
      throw err
    }
  }
}
