import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import { hashPassword } from './auth/passwords.js'
import type { DB } from './db/schema.js'
import { localTimestamp } from './db/time.js'

export interface BootstrapResult {
  username: string
  password?: string
  generated: boolean
}

/**
 * On an empty user table, create the first site admin from MAS_ADMIN_USERNAME /
 * MAS_ADMIN_PASSWORD, or with a generated password that the caller prints once.
 */
export async function bootstrapAdmin(
  db: Kysely<DB>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BootstrapResult | null> {
  const any = await db.selectFrom('users').select('id').limit(1).executeTakeFirst()
  if (any) return null
  const username = env.MAS_ADMIN_USERNAME || 'admin'
  const generated = !env.MAS_ADMIN_PASSWORD
  const password = env.MAS_ADMIN_PASSWORD || randomBytes(12).toString('base64url')
  const inserted = await db
    .insertInto('users')
    .values({
      username,
      password: await hashPassword(password),
      is_admin: true,
      is_active: true,
      date_joined: localTimestamp(),
    })
    .onConflict((oc) => oc.column('username').doNothing())
    .returning('id')
    .executeTakeFirst()
  if (!inserted) return null
  return { username, password: generated ? password : undefined, generated }
}
