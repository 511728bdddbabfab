import { Flags } from '@oclif/core'
import { AuthCommand } from '../../src/base-command.js'
import { listFlags } from '../../src/list-output.js'
import { PERMISSION } from '../../src/columns.js'

export default class PermsList extends AuthCommand<typeof PermsList> {
  static summary = 'List the grants you can see (yours, to you, and on what you administer)'
  static examples = ['<%= config.bin %> perms list', '<%= config.bin %> perms list --library 1 --json']
  static flags = {
    ...listFlags,
    library: Flags.integer({ description: 'only grants on this library', min: 1 }),
    tagset: Flags.integer({ description: 'only grants on this tag set', min: 1 }),
    'group-target': Flags.integer({ description: 'only grants on this group', min: 1 }),
  }

  async run() {
    const f = this.flags
    const target = f.library !== undefined ? ['library', f.library] : f.tagset !== undefined ? ['tagset', f.tagset]
      : f['group-target'] !== undefined ? ['appusergroup', f['group-target']] : undefined
    const grants = await this.api.all('appPermission/', target ? { target_type: target[0], target_id: target[1] } : {})
    const shown = target ? grants.filter((g) => g.target_type === target[0] && g.target_id === target[1]) : grants
    return this.showList(shown, PERMISSION)
  }
}
