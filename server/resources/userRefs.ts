import { MSG } from '../http/errors.js'
import { parsePk } from '../http/fields.js'
import type { Db } from './resource.js'

// Naming users in a write: by id (`users`, `bearer_id`) or, for sharing without
// the admin-only user list, by username (`usernames`, `bearer_username`).
// Each answers the user ids, or the first DRF-style message for the field.

export type Resolved = { ok: true; ids: number[] } | { ok: false; error: string }

/** A list of user ids: every item a pk of an existing user. */
export async function resolveUserIds(db: Db, raw: unknown[]): Promise<Resolved> {
  const ids: number[] = []
  for (const item of raw) {
    const p = parsePk(item)
    if (!p.ok) return { ok: false, error: p.error }
    ids.push(p.value as number)
  }
  const found = await existingUsers(db, 'id', ids)
  const missing = ids.find((id) => !found.has(id))
  if (missing !== undefined) return { ok: false, error: MSG.pkMissing(missing) }
  return { ok: true, ids: unique(ids) }
}

/** A list of usernames: every item a string naming an existing user. */
export async function resolveUsernames(db: Db, raw: unknown[]): Promise<Resolved> {
  const bad = raw.find((n) => typeof n !== 'string')
  if (bad !== undefined) return { ok: false, error: MSG.string }
  const names = raw as string[]
  const found = await existingUsers(db, 'username', names)
  const missing = names.find((n) => !found.has(n))
  if (missing !== undefined) return { ok: false, error: `Object with username=${missing} does not exist.` }
  return { ok: true, ids: unique(names.map((n) => found.get(n)!)) }
}

async function existingUsers<K extends 'id' | 'username'>(
  db: Db,
  key: K,
  values: Array<K extends 'id' ? number : string>,
) {
  const found = new Map<unknown, number>()
  const distinct = [...new Set(values)]
  for (let i = 0; i < distinct.length; i += 1000) {
    const chunk = distinct.slice(i, i + 1000)
    const users = db.selectFrom('users').select(['id', 'username'])
    const rows = await (
      key === 'id' ? users.where('id', 'in', chunk as number[]) : users.where('username', 'in', chunk as string[])
    ).execute()
    for (const r of rows) found.set(r[key], r.id)
  }
  return found as Map<K extends 'id' ? number : string, number>
}

const unique = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b)
