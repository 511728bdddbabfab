import { sql } from 'kysely'
import { adminsOnly } from '../access.js'
import { hashPassword } from '../auth/passwords.js'
import { fieldError } from '../http/errors.js'
import type { TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { defineResource, resourceEndpoints } from './resource.js'

// user/ and user/{Id}/: site admins only (403 for everyone else, even on their
// own record). The admin extension creates users and changes password,
// is_admin and is_active; those fields are write-only. A changed password or a
// deactivation removes the user's tokens and sessions.

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  username: {
    type: 'string',
    column: 'username',
    required: true,
    maxLength: 150,
    pattern: '^[\\w.@+-]+$',
    patternMessage: 'Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.',
  },
  groups: { type: 'list', items: 'integer', readOnly: true },
  password: { type: 'string', column: 'password', required: true, writeOnly: true, maxLength: 4096 },
  is_admin: { type: 'boolean', column: 'is_admin', writeOnly: true, default: false, label: 'Is admin' },
  is_active: { type: 'boolean', column: 'is_active', writeOnly: true, default: true, label: 'Is active' },
} satisfies TableFields<'users'>

/** A user as the API answers it (its password and flags are never answered). */
export type UserRecord = WireRecord<typeof fields>

export const users = defineResource({
  name: 'user',
  title: 'User',
  table: 'users',
  fields,
  scope: adminsOnly,
  createScope: adminsOnly,
  stamps: ['date_joined'],
  destroy: false,
  updatable: ['password', 'is_admin', 'is_active'],
  siteAdminsOnly: true,
  validate: async (ctx, values, existing) => {
    if (!existing && typeof values.username === 'string') {
      const taken = await ctx.db
        .selectFrom('users')
        .select('id')
        .where('username', '=', values.username)
        .executeTakeFirst()
      if (taken) throw fieldError('username', 'A user with that username already exists.')
    }
  },
  // a new password or a deactivation ends every token and session of the user: whoever held one must
  // present the new password (a token is issued again at the next login)
  afterWrite: async (trx, row, values, _ctx, created) => {
    if (created || (values.password === undefined && values.is_active !== false)) return
    await trx.deleteFrom('tokens').where('user_id', '=', row.id).execute()
    await trx.deleteFrom('sessions').where('user_id', '=', row.id).execute()
  },
  transform: async (cols) => {
    if (typeof cols.password === 'string') cols.password = await hashPassword(cols.password)
  },
  // a changed user (is_active, is_admin, password) authenticates from the database again at once in this
  // process: before the change commits, and after, so no request in between keeps the old state
  aroundWrite: async (ctx, write) => {
    ctx.services.callers.forget()
    try {
      return await write()
    } finally {
      ctx.services.callers.forget()
    }
  },
  computed: {
    groups: sql`array(select g.group_id from user_auth_groups g where g.user_id = r.id order by g.group_id)`,
  },
})

export const endpoints = () => resourceEndpoints(users)
