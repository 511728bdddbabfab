import * as Flags from '@oclif/core/flags'
import { AuthCommand } from '../../src/baseCommand.js'
import { groupId, libraryId, tagSetId } from '../../src/lookup.js'
import { listFlags } from '../../src/listOutput.js'
import { PERMISSION } from '../../src/columns.js'

export default class PermsList extends AuthCommand<typeof PermsList> {
  static summary = 'List the grants you can see (yours, to you, and on what you administer)'
  static examples = ['<%= config.bin %> perms list', '<%= config.bin %> perms list --library 1 --json']
  static flags = {
    ...listFlags,
    library: Flags.string({ description: 'only grants on this library (name or id)' }),
    'tag-set': Flags.string({ description: 'only grants on this tag set (name or id)', aliases: ['tagset'] }),
    'group-target': Flags.string({ description: 'only grants on this group (name or id)' }),
  }

  async run() {
    const f = this.flags
    const target =
      f.library !== undefined
        ? ['library', await libraryId(this.api, '--library', f.library)]
        : f['tag-set'] !== undefined
          ? ['tagset', await tagSetId(this.api, '--tag-set', f['tag-set'])]
          : f['group-target'] !== undefined
            ? ['appusergroup', await groupId(this.api, f['group-target'], '--group-target')]
            : undefined
    const grants = await this.api.all('appPermission/', target ? { target_type: target[0], target_id: target[1] } : {})
    const shown = target ? grants.filter((g) => g.target_type === target[0] && g.target_id === target[1]) : grants
    return this.showList(shown, PERMISSION)
  }
}
