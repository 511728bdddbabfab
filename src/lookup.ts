import type { ApiClient } from './api.js'
import { failure } from './base-command.js'

// Names to ids: users, groups and job types may be given by name or by id.

const isId = (s: string) => /^\d+$/.test(s)

/** A user id; names are looked up in user/ (site admins only). */
export async function userId(api: ApiClient, nameOrId: string): Promise<number> {
  if (isId(nameOrId)) return Number(nameOrId)
  const users = await api.all<{ id: number; username: string }>('user/')
  const user = users.find((u) => u.username === nameOrId)
  if (!user) failure(`No user named "${nameOrId}"`)
  return user.id
}

export interface Group { id: number; name: string; users: number[]; creationDate?: string; createdBy?: number }

/** A group by id or by name among the groups the caller can see. */
export async function findGroup(api: ApiClient, nameOrId: string): Promise<Group> {
  if (isId(nameOrId)) return api.get<Group>(`appUserGroup/${nameOrId}/`)
  const matches = (await api.all<Group>('appUserGroup/')).filter((g) => g.name === nameOrId)
  if (matches.length === 0) failure(`No group named "${nameOrId}"`)
  if (matches.length > 1) failure(`Several groups are named "${nameOrId}" (ids ${matches.map((g) => g.id).join(', ')}): give the id`)
  return matches[0]
}

export async function groupId(api: ApiClient, nameOrId: string): Promise<number> {
  return isId(nameOrId) ? Number(nameOrId) : (await findGroup(api, nameOrId)).id
}

/** A job type id from its name (case-insensitive) or id, checked against jobTypes/. */
export async function jobTypeId(api: ApiClient, nameOrId: string): Promise<number> {
  const types = await api.all<{ id: number; name: string }>('jobTypes/')
  const type = types.find((t) => String(t.id) === nameOrId || t.name.toLowerCase() === nameOrId.toLowerCase())
  if (!type) failure(`Unknown job type "${nameOrId}"; known: ${types.map((t) => `${t.name} (${t.id})`).join(', ')}`)
  return type.id
}
