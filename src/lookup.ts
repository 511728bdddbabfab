import { ApiError, type ApiClient, type Page } from './api.js'
import type { Query } from './query.js'
import { failure } from './exits.js'
import { closest } from './closest.js'
import { parseRef, type Ref } from './refs.js'
import type { TagInput, TagRow } from './tagFormats.js'
import type { Group, Library, MediaFile, Project, TagClass, TagSet, User } from './records.js'
import { JOB_TYPE_PARAMS } from '../server/analysis/catalog.js'
import { tagSetNamed } from '../server/named.js'

// Records given by name or by id, for every command and every tag file (docs/decisions.md §10):
// a value of digits only is an id, `name:X` is the name X (a class literally named 12 is `name:12`),
// anything else a name. Names are resolved in bulk: one list request per kind of record, then every
// row of a file is looked up in memory, so a 100,000-row import costs the same few requests as one row.
// A name matching nothing or several records is an error naming the candidates.

/** A record as a value refers to it: by id, or by name. */
/** The outcome of looking one value up: the id, or why not (`missing`: no record has that name). */
export type Found = { id: number } | { error: string; missing?: string }

/** How a directory finds records by name, beyond its name exactly. */
export interface DirectoryOptions<R> {
  /** how names match (media files: by the endings of their aliases), instead of exactly */
  matcher?: (name: string, byName: Map<string, R[]>) => R[]
  /** what a candidate of an ambiguous name shows beside its id (its library, where records of several are looked in) */
  aside?: (r: R) => string
  /** a name that matches no record exactly matches the one record whose name differs from it only in case
   * (tag classes: a Raven row's `CHIRP` is the library's `chirp`); several such records are an error naming them */
  ignoreCase?: boolean
}

/** Records of one kind with a way to find them by name. */
/** A name in quotes as a message shows it: a quote, a line break or a tab escaped, a Windows path's backslashes not. */
const quoted = (name: string) => `"${name.replace(/["\r\n\t]/g, (c) => JSON.stringify(c).slice(1, -1))}"`

export class Directory<R extends { id: number }> {
  private readonly byName = new Map<string, R[]>()
  private readonly byFoldedName = new Map<string, R[]>()
  private readonly ids = new Map<number, R>()
  private readonly cache = new Map<string, Found>()

  /** `kind` ("tag class"), `where` (' in library "Season"'), the records, the name of a record, and how names match. */
  constructor(
    readonly kind: string,
    readonly where: string,
    readonly records: readonly R[],
    private readonly nameOf: (r: R) => string,
    private readonly options: DirectoryOptions<R> = {},
  ) {
    for (const r of records) {
      this.ids.set(r.id, r)
      add(this.byName, this.options.matcher ? baseName(nameOf(r)) : nameOf(r), r)
      if (options.ignoreCase) add(this.byFoldedName, foldCase(nameOf(r)), r)
    }
  }

  /** An id as given, or the one record with that name. */
  find(ref: Ref): Found {
    if ('id' in ref) return ref
    const hit = this.cache.get(ref.name)
    if (hit) return hit
    const matches = this.matching(ref.name)
    const folded =
      matches.length === 0 && this.options.ignoreCase ? (this.byFoldedName.get(foldCase(ref.name)) ?? []) : []
    const found: Found =
      matches.length === 1
        ? { id: matches[0].id }
        : matches.length > 1
          ? {
              error: `${matches.length} ${plural(this.kind)}${this.where} match ${quoted(ref.name)}: ${this.candidates(matches)}; give one of them (or its id)`,
            }
          : folded.length === 1
            ? { id: folded[0].id }
            : folded.length > 1
              ? {
                  error: `${folded.length} ${plural(this.kind)}${this.where} differ from ${quoted(ref.name)} only in case: ${this.candidates(folded)}; give one of them as it is written (or its id)`,
                }
              : {
                  error: `no ${this.kind} named ${quoted(ref.name)}${this.where}${this.known()}`,
                  missing: ref.name,
                }
    this.cache.set(ref.name, found)
    return found
  }

  /** The records whose name is `name` (as the directory's matcher takes it). */
  private matching(name: string): R[] {
    return this.options.matcher ? this.options.matcher(name, this.byName) : (this.byName.get(name) ?? [])
  }

  /** Is record `id` one of those `name` matches? */
  matches(name: string, id: number): boolean {
    const record = this.ids.get(id)
    if (!record) return false
    return this.matching(name).includes(record)
  }

  /** The record an id names, when it is in this directory. */
  byId(id: number): R | undefined {
    return this.ids.get(id)
  }

  /** The names there are, when a few (media files are found by path, and are too many to list). */
  private known(): string {
    if (this.options.matcher || this.records.length > 20) return ''
    return this.records.length ? ` (there are: ${this.records.map(this.nameOf).join(', ')})` : ` (there are none)`
  }

  private candidates(matches: R[]): string {
    // in name order, so the message is the same whatever order the server listed the records in
    const sorted = [...matches].sort((a, b) => this.nameOf(a).localeCompare(this.nameOf(b)) || a.id - b.id)
    const shown = sorted
      .slice(0, 10)
      .map((r) => `${this.nameOf(r)} (id ${r.id}${this.options.aside ? `, ${this.options.aside(r)}` : ''})`)
      .join(', ')
    return matches.length > 10 ? `${shown} and ${matches.length - 10} more` : shown
  }
}

function add<R>(map: Map<string, R[]>, key: string, r: R): void {
  const list = map.get(key)
  if (list) list.push(r)
  else map.set(key, [r])
}

/** A name as compared when case does not matter. */
export const foldCase = (name: string) => name.normalize('NFC').toLowerCase()

const plural = (kind: string) =>
  kind.endsWith('y') ? `${kind.slice(0, -1)}ies` : kind.endsWith('s') ? `${kind}es` : `${kind}s`

// ---- media files: by alias, by the longest alias ending a path, or by a unique file name ----

const slashes = (s: string) => s.replace(/\\/g, '/').replace(/\/+/g, '/')
const baseName = (s: string) => slashes(s).split('/').pop() ?? ''

/** Media files matching `name`: the file whose alias is `name` (separators normalised); else the files
 * whose alias is the longest ending of `name` at a folder boundary (a Raven `Begin Path` from another
 * machine); else the files whose alias ends with `name` (a bare file name, unique in the library). */
function matchMedia<R>(aliasOf: (r: R) => string) {
  return (name: string, byBase: Map<string, R[]>): R[] => {
    const path = slashes(name).replace(/^\/+/, '')
    const same = byBase.get(baseName(path)) ?? []
    const exact = same.filter((r) => slashes(aliasOf(r)) === path)
    if (exact.length) return exact
    const endsPath = (long: string, short: string) => long.endsWith(`/${short}`)
    const within = same.filter((r) => endsPath(path, slashes(aliasOf(r))))
    if (within.length) {
      const longest = Math.max(...within.map((r) => slashes(aliasOf(r)).length))
      return within.filter((r) => slashes(aliasOf(r)).length === longest)
    }
    return same.filter((r) => endsPath(slashes(aliasOf(r)), path))
  }
}

// ---- the kinds of records ----

/** A record found by its name (a library, a project, a sensor…). */
export interface Named {
  id: number
  name: string
}

/** A tag set as findTagSet answers it (and a later command recalls it, src/nameMemory.ts). */
export type FoundTagSet = Pick<TagSet, 'id' | 'name' | 'library' | 'user'>

export async function libraries(api: ApiClient): Promise<Directory<Library>> {
  return new Directory('library', '', await api.all('library/'), (r) => r.name)
}

/** A library as the command line's messages name it: by its name (`library "Season"`), by its id where the name is not known. */
export const libraryText = (library: { id: number; name?: string }): string =>
  library.name ? `library ${JSON.stringify(library.name)}` : `library ${library.id}`

/** Library `id` as messages name it (libraryText), read from the server; its id where the caller cannot read it. */
export async function libraryNamed(api: ApiClient, id: number): Promise<string> {
  const library = await api.get(`library/${id}/`).catch(() => undefined)
  return libraryText({ id, name: library?.name })
}

export async function tagSets(api: ApiClient, library?: number): Promise<Directory<TagSet>> {
  const [records, where] = await Promise.all([
    api.all('tagSet/', { library }),
    library ? libraryNamed(api, library) : undefined,
  ])
  // the libraries are listed only when two readable sets share a name, to tell them apart
  const names = new Set(records.map((r) => r.name))
  const aside = !library && names.size < records.length ? await libraryAside(api) : undefined
  return new Directory('tag set', where ? ` of ${where}` : '', records, (r) => r.name, { aside })
}

/** The tag classes of a library, found by name (and, unless `ignoreCase` is false, by a name differing only in case
 * from one class's). */
export async function tagClasses(
  api: ApiClient,
  library: number,
  { ignoreCase = true } = {},
): Promise<Directory<TagClass>> {
  const [records, where] = await Promise.all([api.all('tagClass/', { library }), libraryNamed(api, library)])
  return new Directory('tag class', ` in ${where}`, records, (r) => r.className, { ignoreCase })
}

/** How a candidate from any library is told apart: its library, by name where the caller can list it (a tag set
 * may belong to none). */
async function libraryAside(api: ApiClient): Promise<(r: { library: number | null }) => string> {
  const names = new Map((await api.all('library/').catch(() => [])).map((l) => [l.id, l.name]))
  return (r) => (r.library === null ? 'no library' : libraryText({ id: r.library, name: names.get(r.library) }))
}

/** The media files of a library (or every readable one, each candidate of an ambiguous name shown with its
 * library), found by alias or file name. */
export async function mediaFiles(api: ApiClient, library?: number, query: Query = {}): Promise<Directory<MediaFile>> {
  const [records, aside, where] = await Promise.all([
    api.all(library ? `library/${library}/mediaFiles/` : 'mediaFile/', query),
    library ? undefined : libraryAside(api),
    library ? libraryNamed(api, library) : undefined,
  ])
  return new Directory('media file', where ? ` in ${where}` : '', records, (r) => r.alias ?? '', {
    matcher: matchMedia((r) => r.alias ?? ''),
    aside,
  })
}

export async function projects(api: ApiClient): Promise<Directory<Project>> {
  const records = await api.all('project/').catch((e) => {
    if (e instanceof ApiError && e.status === 403)
      failure(
        'Only site admins may look projects up by name (the API lists projects to them alone): give the project id',
      )
    throw e
  })
  return new Directory('project', '', records, (r) => r.name)
}

export async function users(api: ApiClient): Promise<Directory<User>> {
  return new Directory('user', '', await api.all('user/'), (r) => r.username)
}

export async function groups(api: ApiClient): Promise<Directory<Group>> {
  return new Directory('group', '', await api.all('appUserGroup/'), (r) => r.name)
}

/** The id a flag (or argument) names, or a one-line error naming the flag and the candidates. `remembered`:
 * where the command remembers names (src/nameMemory.ts), the key the name is remembered under. */
export async function flagId<R extends { id: number }>(
  flag: string,
  value: string,
  directory: () => Promise<Directory<R>>,
  remembered?: { api: ApiClient; key: string },
): Promise<number> {
  const ref = parseRef(value)
  if ('id' in ref) return ref.id
  return recalled(remembered?.api, remembered?.key ?? '', async () => {
    const found = (await directory()).find(ref)
    if ('error' in found) failure(`${flag}: ${found.error}`)
    return found.id
  })
}

/** What `key` was found to be by an earlier command (when the command remembers names), or `find`'s answer. */
async function recalled<T>(api: ApiClient | undefined, key: string, find: () => Promise<T>): Promise<T> {
  const memory = api?.memory
  const hit = memory?.recall<T>(key)
  if (hit !== undefined) return hit
  const value = await find()
  memory?.learn(key, value)
  return value
}

/** The key a name is remembered under: the kind of record, where it was looked up (a library), the name. */
const memoryKey = (kind: string, library: number | undefined, name: string) =>
  JSON.stringify([kind, library ?? null, name])

export const libraryId = (api: ApiClient, flag: string, value: string) => flagId(flag, value, () => libraries(api))
/** A tag set by name, in one library or (when the name is unique) among those the caller can read; or by id. */
export const tagSetId = (api: ApiClient, flag: string, value: string, library?: number) =>
  flagId(flag, value, () => tagSets(api, library))
export const projectId = (api: ApiClient, flag: string, value: string) => flagId(flag, value, () => projects(api))
export const sensorId = (api: ApiClient, flag: string, value: string) =>
  flagId(flag, value, async () => new Directory('sensor', '', await api.all('sensor/'), (r) => r.name))
export const sensorArrayId = (api: ApiClient, flag: string, value: string) =>
  flagId(flag, value, async () => new Directory('sensor array', '', await api.all('sensorArray/'), (r) => r.name))
/** A media file by alias or file name among those the caller can read (or those of one library): an
 * alias the server finds itself (`?alias=`) needs no list of every file. */
export async function mediaFileId(api: ApiClient, flag: string, value: string, library?: number): Promise<number> {
  const ref = parseRef(value)
  if ('id' in ref) return ref.id
  return recalled(api, memoryKey('mediaFile', library, ref.name), async () => {
    const exact = await api.get<Partial<Page<MediaFile>>>(library ? `library/${library}/mediaFiles/` : 'mediaFile/', {
      alias: ref.name,
      page_size: 2,
    })
    // the answer of a server that ignored ?alias= holds other files: only a file of that alias is taken
    if (exact.count === 1 && exact.results?.length === 1 && exact.results[0].alias === ref.name)
      return exact.results[0].id
    return flagId(flag, value, () => mediaFiles(api, library))
  })
}
/** Several media files (arguments): one list of the readable files (or those of one library) when any is given by name. */
export async function mediaFileIds(
  api: ApiClient,
  values: string[],
  flag = 'media file',
  library?: number,
): Promise<number[]> {
  const refs = values.map(parseRef)
  const directory = refs.some((r) => 'name' in r) ? await mediaFiles(api, library) : undefined
  return refs.map((ref) => {
    const found = directory ? directory.find(ref) : (ref as { id: number })
    if ('error' in found) failure(`${flag}: ${found.error}`)
    return found.id
  })
}

/** A tag class by name, in one library or (when the name is unique) among those the caller can read. */
export const tagClassId = (api: ApiClient, flag: string, value: string, library?: number) =>
  flagId(
    flag,
    value,
    async () => {
      if (library) return tagClasses(api, library)
      const [records, aside] = await Promise.all([api.all('tagClass/'), libraryAside(api)])
      return new Directory('tag class', '', records, (r) => r.className, { aside, ignoreCase: true })
    },
    { api, key: memoryKey('tagClass', library, value) },
  )

/** A tag set by name or id, with its library (tag classes and media files are found in it). */
export async function findTagSet(api: ApiClient, flag: string, value: string): Promise<FoundTagSet> {
  return recalled(api, memoryKey('tagSet', undefined, value), async () => {
    const { id, name, library, user } = await api.get(`tagSet/${await flagId(flag, value, () => tagSets(api))}/`)
    return { id, name, library, user }
  })
}

/** The library a `--library` flag names, when given: names of media files and classes are looked up in it. */
export async function scopeLibrary(api: ApiClient, value: string | undefined): Promise<number | undefined> {
  return value === undefined ? undefined : libraryId(api, '--library', value)
}

/** `--library`, for commands that find media files by name. */
export const LIBRARY_SCOPE_DESCRIPTION = 'look media files up by alias or file name in this library only (name or id)'

/** The library of a tag set, needed to find classes and files by name. */
export function libraryOf(tagSet: FoundTagSet, flag: string): number {
  if (!tagSet.library)
    failure(`${flag}: ${tagSetNamed(tagSet)} belongs to no library, so names cannot be looked up in it: give ids`)
  return tagSet.library
}

// ---- users and groups (kept for the commands that take several at once) ----

/** A user id; names are looked up in user/ (site admins only). */
export async function userId(api: ApiClient, nameOrId: string, flag = 'user'): Promise<number> {
  return flagId(flag, nameOrId, () => users(api))
}

/** A group by id or by name among the groups the caller can see. */
export async function findGroup(api: ApiClient, nameOrId: string, flag = 'group'): Promise<Group> {
  const ref = parseRef(nameOrId)
  if ('id' in ref) return api.get(`appUserGroup/${ref.id}/`)
  const directory = await groups(api)
  const found = directory.find(ref)
  if ('error' in found) failure(`${flag}: ${found.error}`)
  return directory.byId(found.id)!
}

export async function groupId(api: ApiClient, nameOrId: string, flag = 'group'): Promise<number> {
  return flagId(flag, nameOrId, () => groups(api))
}

/** The job types a client may create and a worker runs (the original's other types are kept only to name its jobs). */
const CREATABLE = new Set(JOB_TYPE_PARAMS.map((t) => t.name))

/** A job type id from its name (case-insensitive) or id, checked against jobTypes/. */
export async function jobTypeId(api: ApiClient, nameOrId: string): Promise<number> {
  const types = await api.all('jobTypes/')
  const type = types.find((t) => String(t.id) === nameOrId || t.name.toLowerCase() === nameOrId.toLowerCase())
  if (!type) {
    // a name within a few edits, or one holding what was typed (or held by it)
    const typed = nameOrId.toLowerCase(),
      names = types.map((t) => t.name.toLowerCase())
    const holding = names.filter((n) => n.includes(typed) || typed.includes(n))
    const near = holding.length ? closest(typed, holding) : closest(typed, names, 3)
    const suggestion = near ? ` Did you mean ${types[names.indexOf(near)].name}?` : ''
    // the types mas's workers run, of those the server knows; all of them from a server that runs none of these
    const runnable = types.filter((t) => CREATABLE.has(t.name))
    const known = (runnable.length ? runnable : types).map((t) => `${t.name} (${t.id})`).join(', ')
    failure(
      `Unknown job type "${nameOrId}".${suggestion} ${runnable.length ? 'Types a worker runs' : 'Known'}: ${known}`,
    )
  }
  return type.id
}

// ---- the rows of a tag file ----

/** One row of a tag file with ids for names, looked up in the directories of the tag set's library: the tag, or the
 * problems of its line (a name that matches nothing or several records); `missing`: a class name no class has (not
 * a problem of the line: the class may be created, and the command lists such names once); `mediaFile`: the id of
 * its media file, when that is known. */
export function resolveRow(
  row: TagRow,
  media: Directory<MediaFile> | undefined,
  classes: Directory<TagClass> | undefined,
): { tag?: TagInput; problems: string[]; missing?: string; mediaFile?: number } {
  const hint = row.mediaFileHint
  const file =
    'id' in row.mediaFile
      ? row.mediaFile
      : hint !== undefined && media?.matches(row.mediaFile.name, hint)
        ? { id: hint }
        : (media?.find(row.mediaFile) ?? noLibrary)
  const tagClass = 'id' in row.tagClass ? row.tagClass : (classes?.find(row.tagClass) ?? noLibrary)
  const problems: string[] = []
  let missing: string | undefined
  if ('error' in file) problems.push(`mediaFile: ${file.error}`)
  if ('error' in tagClass) {
    if (tagClass.missing !== undefined) missing = tagClass.missing
    else problems.push(`tagClass: ${tagClass.error}`)
  }
  const mediaFile = 'error' in file ? undefined : file.id
  if (problems.length || 'error' in file || 'error' in tagClass) return { problems, missing, mediaFile }
  const tag: TagInput & { mediaFileHint?: number } = { ...row, mediaFile: file.id, tagClass: tagClass.id }
  delete tag.mediaFileHint
  return { tag, problems, mediaFile }
}

const noLibrary: Found = { error: "names are looked up in the tag set's library, and it has none: give ids" }
