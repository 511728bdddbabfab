import { ApiError, type ApiClient } from './api.js'

// Names for the ids of human output (docs/decisions.md §10: tables show names, --json the API's records):
// each kind of record a table refers to is listed once, and a column shows the name in place of the id.
// Users are named where the caller may read them (site admins); the caller's own id shows as `me`.
// What the caller cannot list stays an id.

export type NameKind = 'library' | 'tagSet' | 'tagClass' | 'mediaFile' | 'sensor' | 'user' | 'group' | 'jobType' | 'projectType' | 'project'

/** Where some kinds are listed from: the tag classes and media files of one library. */
export interface NameScope { library?: number }

const SOURCES: Record<NameKind, { path: (s: NameScope) => string | undefined; name: (r: Record<string, unknown>) => unknown; query?: (s: NameScope) => Record<string, number | undefined> }> = {
  library: { path: () => 'library/', name: (r) => r.name },
  tagSet: { path: () => 'tagSet/', name: (r) => r.name },
  tagClass: { path: () => 'tagClass/', name: (r) => r.className, query: (s) => ({ library: s.library }) },
  mediaFile: { path: (s) => (s.library ? `library/${s.library}/mediaFiles/` : undefined), name: (r) => r.alias },
  sensor: { path: () => 'sensor/', name: (r) => r.name },
  user: { path: () => 'user/', name: (r) => r.username },
  group: { path: () => 'appUserGroup/', name: (r) => r.name },
  jobType: { path: () => 'jobTypes/', name: (r) => r.name },
  projectType: { path: () => 'projectTypes/', name: (r) => r.name },
  project: { path: () => 'project/', name: (r) => r.name },
}

export class Names {
  static readonly none = new Names(new Map(), undefined)

  constructor(private readonly maps: Map<NameKind, Map<number, string>>, private readonly me: number | undefined) {}

  /** The name of record `id` of `kind` (`me` for the caller), or the id when it is not known. */
  of(kind: NameKind, id: unknown): unknown {
    if (typeof id !== 'number') return id
    if (kind === 'user' && id === this.me) return 'me'
    return this.maps.get(kind)?.get(id) ?? id
  }
}

/** One list request per kind (the ones the caller may not list stay ids). */
export async function loadNames(api: ApiClient, kinds: readonly NameKind[], scope: NameScope = {}): Promise<Names> {
  const maps = new Map<NameKind, Map<number, string>>()
  const [me] = await Promise.all([
    kinds.includes('user') ? ownId(api) : undefined,
    ...kinds.map(async (kind) => {
      const source = SOURCES[kind]
      const path = source.path(scope)
      if (!path) return
      const records = await readable(api.all<Record<string, unknown>>(path, source.query?.(scope) ?? {}))
      maps.set(kind, new Map(records.map((r) => [Number(r.id), String(source.name(r))])))
    }),
  ])
  return new Names(maps, me)
}

/** The caller's id, from the owner of its own display settings (listing them creates the default record). */
async function ownId(api: ApiClient): Promise<number | undefined> {
  const settings = await readable(api.all<{ user?: number }>('userSettings/'))
  return settings[0]?.user
}

/** A list the caller may not read (403: user/ and project/ are for site admins) names nothing. */
async function readable<T>(list: Promise<T[]>): Promise<T[]> {
  return list.catch((e) => {
    if (e instanceof ApiError && (e.status === 403 || e.status === 404)) return []
    throw e
  })
}
