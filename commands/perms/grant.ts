import * as Flags from '@oclif/core/flags'
import { ApiError } from '../../src/api.js'
import { AuthCommand } from '../../src/baseCommand.js'
import { failure, usageError } from '../../src/exits.js'
import { alreadyThere, sameGrant } from '../../src/createOnce.js'
import { groupId, libraryId, tagSetId, userId } from '../../src/lookup.js'

export default class PermsGrant extends AuthCommand<typeof PermsGrant> {
  static summary = 'Grant a user or a group rights on a library, tag set or group; prints the grant id'
  static description = `Needs admin on the target (owners have it). A grant on a library also covers its tag sets. Users are given by name or id, groups by name or id. Without any of --read/--write/--launch-job/--admin, --read is granted.`

  static examples = [
    '<%= config.bin %> perms grant --user bob --library 1 --read',
    '<%= config.bin %> perms grant --group birders --tag-set 1 --read --write',
    '<%= config.bin %> perms grant --user 2 --group-target 1 --admin --json',
  ]

  static flags = {
    user: Flags.string({ description: 'user receiving the grant (name or id)', exactlyOne: ['user', 'group'] }),
    group: Flags.string({ description: 'group receiving the grant (name or id)', exactlyOne: ['user', 'group'] }),
    library: Flags.string({ description: 'library (name or id)', exactlyOne: ['library', 'tag-set', 'group-target'] }),
    'tag-set': Flags.string({
      description: 'tag set (name or id)',
      aliases: ['tagset'],
      exactlyOne: ['library', 'tag-set', 'group-target'],
    }),
    'group-target': Flags.string({
      description: 'group (name or id; rights on the group itself)',
      exactlyOne: ['library', 'tag-set', 'group-target'],
    }),
    read: Flags.boolean({ description: 'may read' }),
    write: Flags.boolean({ description: 'may change' }),
    'launch-job': Flags.boolean({ description: 'may run jobs on it' }),
    admin: Flags.boolean({ description: 'may do everything, including granting rights' }),
  }

  async run() {
    const f = this.flags
    const flags = { read: f.read, write: f.write, launch_job: f['launch-job'], admin: f.admin }
    if (!Object.values(flags).some(Boolean)) flags.read = true
    const target =
      f.library !== undefined
        ? { target_type: 'library', target_id: await libraryId(this.api, '--library', f.library) }
        : f['tag-set'] !== undefined
          ? { target_type: 'tagset', target_id: await tagSetId(this.api, '--tag-set', f['tag-set']) }
          : f['group-target'] !== undefined
            ? { target_type: 'appusergroup', target_id: await groupId(this.api, f['group-target'], '--group-target') }
            : usageError('Give --library, --tag-set or --group-target')
    let bearer: Record<string, unknown>
    if (f.user !== undefined) {
      bearer = { bearer_type: 'user', ...(await this.userBearer(f.user)) }
    } else if (f.group !== undefined) {
      bearer = { bearer_type: 'appusergroup', bearer_id: await groupId(this.api, f.group, '--group') }
    } else usageError('Give --user or --group')
    const given = await sameGrant(this.api, target as { target_type: string; target_id: number }, bearer, flags)
    if (given) {
      alreadyThere(`grant ${given.id} of these rights`, given)
      this.log(String(given.id))
      return given
    }
    const grant = await this.api.post('appPermission/', { ...bearer, ...target, ...flags }).catch((e) => {
      // a server without the bearer_username extension (the original) asks for the id
      if (
        e instanceof ApiError &&
        e.status === 400 &&
        'bearer_username' in bearer &&
        (e.body as Record<string, unknown>)?.bearer_id
      ) {
        failure(
          `This server takes users of grants only by id, and only site admins may look names up: give --user with ${f.user}'s id`,
        )
      }
      throw e
    })
    this.log(String(grant.id))
    return grant
  }

  /** The user by id: looked up in user/ where the caller may read it (site admins), else sent by name
   * (bearer_username, a mas extension). */
  private async userBearer(user: string): Promise<{ bearer_id: number } | { bearer_username: string }> {
    try {
      return { bearer_id: await userId(this.api, user, '--user') }
    } catch (e) {
      if (e instanceof ApiError && e.status === 403) return { bearer_username: user }
      throw e
    }
  }
}
