import { ApiError, type ApiClient } from './api.js'
import { failure } from './exits.js'
import { userId } from './lookup.js'
import { offersExtensions } from './serverOffers.js'
import { loadNames, USERS } from './names.js'

// Group members by id (docs/decisions.md §10). Names are looked up in user/ where the caller may read it
// (site admins); otherwise mas takes them as `usernames` (an extension), and the original
// service, which has neither, gets a clear refusal asking for ids. What the server answered is
// checked against what was asked.

export interface Members {
  users: number[]
  usernames: string[]
}

/** Users given by name or id, as ids where possible, else as names for a server that takes them. */
export async function resolveMembers(api: ApiClient, values: string[]): Promise<Members> {
  const users: number[] = []
  const usernames: string[] = []
  for (const value of values) {
    try {
      users.push(await userId(api, value))
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 403)) throw err
      if (!(await offersExtensions(api)))
        failure(
          `This server takes group members only by id, and only site admins may look names up: give the id of "${value}"`,
        )
      usernames.push(value)
    }
  }
  return { users: [...new Set(users)], usernames: [...new Set(usernames)] }
}

/** The body fields for these members on top of `current` (the ids a group already has). */
export function membersBody(current: number[], added: Members): Record<string, unknown> {
  return {
    users: [...new Set([...current, ...added.users])],
    ...(added.usernames.length ? { usernames: added.usernames } : {}),
  }
}

/** A group's members as messages name them: usernames where the caller may name them (src/names.ts; the caller
 * is `me`), else ids. */
export async function memberNames(api: ApiClient, ids: readonly number[]): Promise<string> {
  const names = await loadNames(api, [USERS])
  return ids.map((id) => String(names.of(USERS, id))).join(', ') || '(none)'
}

/** The ids asked for that the server's answer lacks, described; undefined when it has them all. Names
 * go only to a server that takes `usernames` (mas), which refuses an unknown one with 400. */
export function membersMissing(answer: { users: number[] }, current: number[], added: Members): string | undefined {
  const have = new Set(answer.users)
  const missing = [...new Set([...current, ...added.users])].filter((id) => !have.has(id))
  return missing.length ? `users ${missing.join(', ')}` : undefined
}
