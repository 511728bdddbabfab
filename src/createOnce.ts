import { ApiError, type ApiClient } from './api.js'
import type { ListPath, ListRecord } from './apiPaths.js'
import type { Query } from './query.js'
import type { Grant, Library, Project } from './records.js'
import { ownId } from './names.js'
import { stderr } from './output.js'

// A create that a re-run does not repeat (docs/decisions.md §10): `mas library create X` run twice leaves one
// library X, and a script of creates (the README's quickstart) can be run again. A record of that name where the
// create would have put it (the caller's own library; a tag set or tag class of that library) is answered
// instead of a new one, whose name every later lookup would find twice.

/** The record of the list at `path` that `same` picks (the first, by id), or undefined. */
export async function existing<P extends ListPath>(
  api: ApiClient,
  path: P,
  query: Query,
  same: (r: ListRecord<P>) => boolean,
): Promise<ListRecord<P> | undefined> {
  return firstById(await api.all(path, query), same)
}

/** The first by id of the records `same` picks. */
const firstById = <R extends { id: number }>(records: R[], same: (r: R) => boolean): R | undefined =>
  records.filter(same).sort((a, b) => a.id - b.id)[0]

/** A library of this name the caller owns. */
export async function ownLibraryNamed(api: ApiClient, name: string): Promise<Library | undefined> {
  const [me, found] = await Promise.all([ownId(api), api.all('library/', { name })])
  return firstById(found, (l) => l.name === name && l.user === me)
}

/** A project of this name the caller owns, where the caller may list projects (site admins: the API lists projects
 * to them alone, so anyone else's re-run makes another). */
export async function ownProjectNamed(api: ApiClient, name: string): Promise<Project | undefined> {
  const [me, found] = await Promise.all([
    ownId(api),
    api.all('project/', { name }).catch((e: unknown) => {
      if (e instanceof ApiError && e.status === 403) return []
      throw e
    }),
  ])
  return firstById(found, (p) => p.name === name && p.user === me)
}

/** Says that `what` exists already and nothing was created. */
export function alreadyThere(what: string, record: { id: number }): void {
  stderr(`${what} exists already (id ${record.id}): nothing was created`)
}

const RIGHTS = ['read', 'write', 'launch_job', 'admin'] as const

/** A grant on the target to the bearer (by id, or by username: the bearers of the target's grants are people the
 * caller may name, `usernames/`) with exactly these rights, or undefined. */
export async function sameGrant(
  api: ApiClient,
  target: { target_type: string; target_id: number },
  bearer: Record<string, unknown>,
  rights: Record<(typeof RIGHTS)[number], boolean>,
): Promise<Grant | undefined> {
  const grants = (await api.all('appPermission/', target)).filter(
    (g) =>
      g.target_type === target.target_type &&
      g.target_id === target.target_id &&
      g.bearer_type === bearer.bearer_type &&
      RIGHTS.every((r) => Boolean(g[r]) === Boolean(rights[r])),
  )
  if (!grants.length) return undefined
  if (bearer.bearer_id !== undefined) return grants.find((g) => g.bearer_id === bearer.bearer_id)
  const names = await api
    .all<{ id: number; username: string }>('usernames/', { id: grants.map((g) => g.bearer_id).join(',') })
    .catch(() => [])
  const id = names.find((u) => u.username === bearer.bearer_username)?.id
  return id === undefined ? undefined : grants.find((g) => g.bearer_id === id)
}
