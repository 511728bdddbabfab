import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { usageError } from '../../src/exits.js'
import { newPassword } from '../../src/stdin.js'

export default class UserCreate extends AuthCommand<typeof UserCreate> {
  static summary = 'Create a user (site admins only)'
  static description = 'The password is read from stdin with --password-stdin, or asked for twice on a terminal.'
  static examples = [
    'echo "$PASSWORD" | <%= config.bin %> user create bob --password-stdin',
    'echo "$PASSWORD" | <%= config.bin %> user create carol --admin --password-stdin',
  ]

  static args = { name: Args.string({ description: 'username', required: true }) }
  static flags = {
    admin: Flags.boolean({ description: 'make the user a site admin' }),
    'password-stdin': Flags.boolean({ description: 'read the password from stdin (first line)' }),
  }

  async run() {
    const password = await newPassword(this.flags['password-stdin'])
    if (!password) usageError('Give --password-stdin to read the password when not on a terminal')
    const user = await this.api.post('user/', { username: this.args.name, password, is_admin: this.flags.admin })
    this.log(String(user.id))
    return user
  }
}
