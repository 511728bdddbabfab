import type { ApiClient, Query } from './api.js'
import { ownId } from './names.js'
import { stderr } from './output.js'

// A create that a re-run does not repeat (docs/decisions.md §10): `mas library create X` run twice leaves one
// library X, and a script of creates (the README's quickstart) can be run again. A record of that name where the
// create would have put it (the caller's own library; a tag set or tag class of that library) is answered
// instead of a new one, whose name every later lookup would find twice.

export interface Named { id: number; [k: string]: unknown }

/** The record of `list` that `same` picks (the first, by id), or undefined. */
export async function existing(api: ApiClient, path: string, query: Query, same: (r: Named) => boolean): Promise<Named | undefined> {
  return (await api.all<Named>(path, query)).filter(same).sort((a, b) => a.id - b.id)[0]
}

/** A library of this name the caller owns. */
export async function ownLibraryNamed(api: ApiClient, name: string): Promise<Named | undefined> {
  const [me, found] = await Promise.all([ownId(api), api.all<Named>('library/', { name })])
  return found.filter((l) => l.name === name && l.user === me).sort((a, b) => a.id - b.id)[0]
}

/** Says that `what` exists already and nothing was created. */
export function alreadyThere(what: string, record: Named): void {
  stderr(`${what} exists already (id ${record.id}): nothing was created`)
}
