import { sql, type Transaction } from 'kysely'
import { onGroup } from '../access.js'
import type { DB } from '../db/schema.js'
import { badRequest, notFound } from '../http/errors.js'
import { CREATION_DATE, type TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { defineResource, resourceEndpoints } from './resource.js'
import { resolveUserIds, resolveUsernames } from './userRefs.js'
import { users } from './users.js'

// appUserGroup/: named sets of users that grants can be given to. Creator,
// members and holders of a grant on a group read it; its creator or an admin
// grant on it change it. Members are given by id (`users`) and/or, as an
// extension, by name (`usernames`, write-only); a write that names members
// replaces the membership in the same transaction.

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  name: { type: 'string', column: 'name', required: true, maxLength: 255 },
  users: { type: 'list', items: 'integer', default: [] },
  usernames: { type: 'list', items: 'string', writeOnly: true },
  creationDate: { type: 'datetime', column: 'creation_date', description: CREATION_DATE },
  createdBy: { type: 'pk', column: 'created_by', target: () => users, readOnly: true },
} satisfies TableFields<'app_user_groups'>

/** A group (appUserGroup/) as the API answers it. */
export type AppUserGroupRecord = WireRecord<typeof fields>

async function replaceMembers(trx: Transaction<DB>, groupId: number, userIds: number[]) {
  // two simultaneous replacements run one after the other, so neither sees half of the other
  const group = await trx
    .selectFrom('app_user_groups')
    .select('id')
    .where('id', '=', groupId)
    .forUpdate()
    .executeTakeFirst()
  if (!group) throw notFound() // deleted by a simultaneous request
  await trx.deleteFrom('app_user_group_users').where('group_id', '=', groupId).execute()
  if (userIds.length) {
    await trx
      .insertInto('app_user_group_users')
      .values(userIds.map((user_id) => ({ group_id: groupId, user_id })))
      .execute()
  }
}

export const appUserGroups = defineResource({
  name: 'appUserGroup',
  title: 'App User Group',
  table: 'app_user_groups',
  fields,
  scope: onGroup('id'),
  createScope: null,
  owner: 'created_by',
  stamps: ['creation_date'],
  // members named by id and by name become one list of ids in `users`
  validate: async (ctx, values) => {
    if (values.users === undefined && values.usernames === undefined) return
    const errors: Record<string, string[]> = {}
    const ids: number[] = []
    if (values.users !== undefined) {
      const r = await resolveUserIds(ctx.db, values.users as unknown[])
      if (r.ok) ids.push(...r.ids)
      else errors.users = [r.error]
    }
    if (values.usernames !== undefined) {
      const r = await resolveUsernames(ctx.db, values.usernames as unknown[])
      if (r.ok) ids.push(...r.ids)
      else errors.usernames = [r.error]
    }
    if (Object.keys(errors).length) throw badRequest(errors)
    values.users = [...new Set(ids)]
    delete values.usernames
  },
  afterWrite: async (trx, row, values) => {
    if (Array.isArray(values.users)) await replaceMembers(trx, row.id, values.users as number[])
  },
  beforeDelete: async (trx, row) => {
    await trx
      .deleteFrom('app_permissions')
      .where((eb) =>
        eb.or([
          eb.and([eb('bearer_type', '=', 'appusergroup'), eb('bearer_id', '=', row.id)]),
          eb.and([eb('target_type', '=', 'appusergroup'), eb('target_id', '=', row.id)]),
        ]),
      )
      .execute()
    await trx.deleteFrom('app_user_group_users').where('group_id', '=', row.id).execute()
  },
  computed: {
    users: sql`array(select m.user_id from app_user_group_users m where m.group_id = r.id order by m.user_id)`,
  },
})

export const endpoints = () => resourceEndpoints(appUserGroups)
