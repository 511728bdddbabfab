import { ApiError, type ApiClient } from './api.js'
import { failure } from './base-command.js'
import { userId } from './lookup.js'
import { offersExtensions } from './server-offers.js'

// Group members by id (design §10). Names are looked up in user/ where the caller may read it
// (site admins); otherwise mas takes them as `usernames` (an extension), and the original
// service, which has neither, gets a clear refusal asking for ids. What the server answered is
// checked against what was asked, since the original ignores fields it does not know.

export interface Members { users: number[]; usernames: string[] }

/** Users given by name or id, as ids where possible, else as names for a server that takes them. */
export async function resolveMembers(api: ApiClient, values: string[]): Promise<Members> {
  const users: number[] = []
  const usernames: string[] = []
  for (const value of values) {
    try {
      users.push(await userId(api, value))
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 403)) throw err
      if (!await offersExtensions(api)) failure(`This server takes group members only by id, and only site admins may look names up: give the id of "${value}"`)
      usernames.push(value)
    }
  }
  return { users: [...new Set(users)], usernames: [...new Set(usernames)] }
}

/** The body fields for these members on top of `current` (the ids a group already has). */
export function membersBody(current: number[], added: Members): Record<string, unknown> {
  return { users: [...new Set([...current, ...added.users])], ...(added.usernames.length ? { usernames: added.usernames } : {}) }
}

/** A description of the members the server did not take, or undefined when it took them all. */
export function membersMissing(answer: { users: number[] }, current: number[], added: Members): string | undefined {
  const have = new Set(answer.users)
  const missing = [...new Set([...current, ...added.users])].filter((id) => !have.has(id)).map(String)
  const expected = new Set([...current, ...added.users]).size + added.usernames.length
  if (missing.length === 0 && have.size >= expected) return undefined
  return missing.length ? `users ${missing.join(', ')}` : `users ${added.usernames.join(', ')}`
}
