import * as Args from '@oclif/core/args'
import { AuthCommand } from '../../src/baseCommand.js'
import { confirmDestructive, refuseIfNotPermitted, yesFlag } from '../../src/confirm.js'

export default class PermsRevoke extends AuthCommand<typeof PermsRevoke> {
  static summary = 'Revoke a grant (asks first; --yes when not on a terminal)'
  static examples = ['<%= config.bin %> perms revoke 1', '<%= config.bin %> perms revoke 1 --yes']
  static args = { id: Args.integer({ description: 'grant id (see mas perms list)', required: true, min: 1 }) }

  static flags = { yes: yesFlag }

  async run() {
    if (!this.flags.yes) {
      const grant = await this.api.get(`appPermission/${this.args.id}/`)
      await refuseIfNotPermitted(this.api, `appPermission/${grant.id}/`, `grant ${grant.id}`, false, 'revoke')
      const rights =
        (['read', 'write', 'launch_job', 'admin'] as const).filter((r) => grant[r]).join(', ') || 'no rights'
      await confirmDestructive(
        `revoke grant ${grant.id} (${rights} on ${grant.target_type} ${grant.target_id} for ${grant.bearer_type} ${grant.bearer_id})?`,
        false,
      )
    }
    await this.api.delete(`appPermission/${this.args.id}/`)
    this.logToStderr(`Revoked grant ${this.args.id}`)
    return { id: this.args.id, revoked: true }
  }
}
