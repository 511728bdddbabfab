import { sql } from 'kysely'
import { groupAllows, libraryAllows, onPermission, tagSetAllows, type Caller } from '../access.js'
import { badRequest, MSG } from '../http/errors.js'
import { CREATION_DATE, type TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { appUserGroups } from './appUserGroup.js'
import { defineResource, resourceEndpoints, readable, type Db } from './resource.js'
import { resolveUsernames } from './userRefs.js'
import { users } from './users.js'

// appPermission/: a grant of read/write/launch_job/admin on a library, tag set
// or appUserGroup to a user or a group. Its creator, its bearer (directly or
// through a group) and admins of its target read it; only admins of its target
// (owners count) create, change or delete it, and a change is judged again by
// its new target. As an extension a user bearer may be named by
// `bearer_username` (write-only) instead of `bearer_id`.

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  bearer_type: { type: 'choice', column: 'bearer_type', choices: ['user', 'appusergroup'], filter: true },
  bearer_id: { type: 'integer', column: 'bearer_id', min: 1, filter: true },
  bearer_username: { type: 'string', writeOnly: true, maxLength: 150 },
  target_type: {
    type: 'choice',
    column: 'target_type',
    choices: ['tagset', 'library', 'appusergroup'],
    required: true,
    filter: true,
  },
  target_id: { type: 'integer', column: 'target_id', required: true, min: 1, filter: true },
  creationDate: { type: 'datetime', column: 'creation_date', description: CREATION_DATE },
  createdBy: { type: 'pk', column: 'created_by', target: () => users, readOnly: true },
  read: { type: 'boolean', column: 'read', default: false },
  write: { type: 'boolean', column: 'write', default: false },
  launch_job: { type: 'boolean', column: 'launch_job', default: false },
  admin: { type: 'boolean', column: 'admin', default: false },
} satisfies TableFields<'app_permissions'>

/** A grant (appPermission/) as the API answers it. */
export type AppPermissionRecord = WireRecord<typeof fields>

type Allows = typeof libraryAllows
const TARGETS: Record<string, { table: 'libraries' | 'tag_sets' | 'app_user_groups'; allows: Allows }> = {
  library: { table: 'libraries', allows: libraryAllows },
  tagset: { table: 'tag_sets', allows: tagSetAllows },
  appusergroup: { table: 'app_user_groups', allows: groupAllows },
}

/** Does the target exist and may the caller read it? */
async function targetReadable(db: Db, caller: Caller, type: string, id: number): Promise<boolean> {
  const t = TARGETS[type]
  const row = await db
    .selectFrom(`${t.table} as t` as 'libraries as t')
    .select('t.id')
    .where('t.id', '=', id)
    .where((eb) => t.allows(eb, caller, sql.ref('t.id'), 'read'))
    .executeTakeFirst()
  return !!row
}

/** Does the bearer exist? Users are shared by id or name; a group must be one the caller can read. */
async function bearerExists(db: Db, caller: Caller, type: string, id: number): Promise<boolean> {
  if (type === 'user') return !!(await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst())
  return !!(await readable(db, appUserGroups, caller).select('r.id').where('r.id', '=', id).executeTakeFirst())
}

export const appPermissions = defineResource({
  name: 'appPermission',
  title: 'App Permission',
  table: 'app_permissions',
  fields,
  scope: onPermission,
  owner: 'created_by',
  stamps: ['creation_date'],
  validate: async (ctx, values, existing) => {
    const whole = !existing || ctx.req.method === 'PUT'
    const errors: Record<string, string[]> = {}
    if (values.bearer_username !== undefined) {
      if (values.bearer_id !== undefined) errors.non_field_errors = ['Give bearer_id or bearer_username, not both.']
      if (values.bearer_type !== undefined && values.bearer_type !== 'user') {
        errors.bearer_type = ['Must be "user" when bearer_username is given.']
      }
      const r = await resolveUsernames(ctx.db, [values.bearer_username])
      if (!r.ok) errors.bearer_username = [r.error]
      else {
        values.bearer_type = 'user'
        values.bearer_id = r.ids[0]
      }
      delete values.bearer_username
    } else if (whole) {
      if (values.bearer_type === undefined) errors.bearer_type = [MSG.required]
      if (values.bearer_id === undefined) errors.bearer_id = [MSG.required]
    }
    if (Object.keys(errors).length) throw badRequest(errors)

    const final = (k: string) => (values[k] ?? existing?.[k]) as never
    if (values.bearer_type !== undefined || values.bearer_id !== undefined) {
      if (!(await bearerExists(ctx.db, ctx.caller, final('bearer_type'), final('bearer_id')))) {
        errors.bearer_id = [MSG.pkMissing(final('bearer_id'))]
      }
    }
    if (values.target_type !== undefined || values.target_id !== undefined) {
      if (!(await targetReadable(ctx.db, ctx.caller, final('target_type'), final('target_id')))) {
        errors.target_id = [MSG.pkMissing(final('target_id'))]
      }
    }
    if (Object.keys(errors).length) throw badRequest(errors)
  },
})

export const endpoints = () => resourceEndpoints(appPermissions)
