import { Args } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'

export default class PermsRevoke extends AuthCommand<typeof PermsRevoke> {
  static summary = 'Revoke a grant'
  static examples = ['<%= config.bin %> perms revoke 21']
  static args = { id: Args.integer({ description: 'grant id (see mas perms list)', required: true, min: 1 }) }

  async run() {
    await this.api.delete(`appPermission/${this.args.id}/`)
    this.logToStderr(`Revoked grant ${this.args.id}`)
    return { id: this.args.id, revoked: true }
  }
}
