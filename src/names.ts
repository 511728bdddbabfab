import { ApiError, type ApiClient } from './api.js'
import type { Query } from './query.js'

// Names for the ids of human output (docs/decisions.md §10: tables show names, --json the API's records):
// each kind of record a table refers to is listed once, and a column shows the name in place of the id.
// Users are named where the caller shares something with them (mas's `usernames/`, docs/decisions.md §22), or
// where it may read them (site admins, against the original service); the caller's own id shows as `me`.
// What the caller cannot list stays an id.

/** Where some kinds are listed from: the tag classes and media files of one library. */
export interface NameScope {
  library?: number
}

/** Where the records of a kind are listed; `otherwise`, the list to read from a server that has no `path` (404: the
 * original service lacks mas's extensions). */
export interface NameList {
  path: string
  query?: Query
  otherwise?: NameList
}

/** A kind of record a table names: the list holding them (none: not listed in this scope) and a record's name. */
export interface NameSource {
  list: (scope: NameScope) => NameList | undefined
  name: (record: Record<string, unknown>) => unknown
}

const source = (path: string, key: string): NameSource => ({ list: () => ({ path }), name: (r) => r[key] })

export const LIBRARIES = source('library/', 'name')
export const TAG_SETS = source('tagSet/', 'name')
export const TAG_CLASSES: NameSource = {
  list: (s) => ({ path: 'tagClass/', query: { library: s.library } }),
  name: (r) => r.className,
}
export const MEDIA_FILES: NameSource = {
  list: (s) => (s.library ? { path: `library/${s.library}/mediaFiles/` } : undefined),
  name: (r) => r.alias,
}
export const SENSORS = source('sensor/', 'name')
export const SENSOR_ARRAYS = source('sensorArray/', 'name')
export const USERS: NameSource = {
  list: () => ({ path: 'usernames/', otherwise: { path: 'user/' } }),
  name: (r) => r.username,
}
export const GROUPS = source('appUserGroup/', 'name')
export const JOB_TYPES = source('jobTypes/', 'name')
export const PROJECT_TYPES = source('projectTypes/', 'name')
export const MEDIA_TYPES = source('mediaTypes/', 'name')
export const PROJECTS = source('project/', 'name')

export class Names {
  static readonly none = new Names(new Map(), undefined)

  constructor(
    private readonly maps: Map<NameSource, Map<number, string>>,
    private readonly me: number | undefined,
  ) {}

  /** The name of record `id` (`me` for the caller among users), or the id when it is not known. */
  of(kind: NameSource, id: unknown): unknown {
    if (typeof id !== 'number') return id
    if (kind === USERS && id === this.me) return 'me'
    return this.maps.get(kind)?.get(id) ?? id
  }
}

/** One list request per kind (the ones the caller may not list stay ids). */
export async function loadNames(api: ApiClient, kinds: readonly NameSource[], scope: NameScope = {}): Promise<Names> {
  const maps = new Map<NameSource, Map<number, string>>()
  const [me] = await Promise.all([
    kinds.includes(USERS) ? ownId(api) : undefined,
    ...kinds.map(async (kind) => {
      const list = kind.list(scope)
      if (!list) return
      const records = await listed(api, list)
      maps.set(kind, new Map(records.map((r) => [Number(r.id), String(kind.name(r) ?? r.id)])))
    }),
  ])
  return new Names(maps, me)
}

/** The records of `list`, or of its `otherwise` on a server without it; none when the caller may not read them. */
async function listed(api: ApiClient, list: NameList): Promise<Array<Record<string, unknown>>> {
  try {
    return await api.all<Record<string, unknown>>(list.path, list.query ?? {})
  } catch (e) {
    if (list.otherwise && e instanceof ApiError && e.status === 404) return listed(api, list.otherwise)
    if (e instanceof ApiError && (e.status === 403 || e.status === 404)) return []
    throw e
  }
}

/** The caller's id, from the owner of its own display settings (listing them creates the default record). */
export async function ownId(api: ApiClient): Promise<number | undefined> {
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
