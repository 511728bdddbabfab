import type { NameKind, Names } from './names.js'
import type { Column } from './output.js'

// Table columns of the records commands list, in one place. Columns that refer to other records show
// their names (src/names.ts); each table says which kinds of names it needs.

type R = Record<string, any>
const c = (header: string, key = header): Column<R> => ({ header, get: (r) => r[key] })
/** A column of references shown by name. */
const named = (n: Names, kind: NameKind, header: string, key = header): Column<R> =>
  ({ header, get: (r) => (Array.isArray(r[key]) ? r[key].map((id: unknown) => n.of(kind, id)) : n.of(kind, r[key])) })

/** A table: its columns given the names, and the kinds of names they show. */
export interface Table { kinds: readonly NameKind[]; columns: (n: Names) => Column<R>[] }

export const GROUP: Table = { kinds: ['user'], columns: (n) => [c('id'), c('name'), named(n, 'user', 'users'), named(n, 'user', 'createdBy'), c('created', 'creationDate')] }
export const LIBRARY: Table = {
  kinds: ['user'],
  columns: (n) => [c('id'), c('name'), named(n, 'user', 'user'), { header: 'media', get: (r) => r.mediaFiles?.length ?? '' }, c('created', 'creationDate')],
}
export const MEDIA: Table = {
  kinds: ['library', 'sensor'],
  columns: (n) => [c('id'), c('alias'), named(n, 'library', 'library'), named(n, 'sensor', 'sensor'), c('started', 'realStartTime'), c('uploaded', 'uploadDate'), c('file')],
}
export const TAG_SET: Table = {
  kinds: ['library', 'user'],
  columns: (n) => [c('id'), c('name'), named(n, 'library', 'library'), named(n, 'user', 'user'), c('created', 'creationDate')],
}
export const TAG_CLASS: Table = {
  kinds: ['library', 'user'],
  columns: (n) => [c('id'), c('className'), c('displayName'), named(n, 'library', 'library'), named(n, 'user', 'user')],
}
export const PROJECT: Table = {
  kinds: ['projectType'],
  columns: (n) => [c('id'), c('name'), named(n, 'projectType', 'type'), { header: 'media', get: (r) => r.mediaFiles?.length ?? '' }, c('created', 'creationDate')],
}
export const JOB_STATUS: Record<number, string> = { 1: 'Unknown', 2: 'Queued', 3: 'Running', 4: 'Error', 5: 'Stopped', 6: 'Complete' }
export const JOB: Table = {
  kinds: ['project', 'jobType'],
  columns: (n) => [c('id'), c('name'), named(n, 'project', 'project'), named(n, 'jobType', 'type'),
    { header: 'status', get: (r) => JOB_STATUS[r.status] ?? r.status },
    { header: 'done', get: (r) => (typeof r.fractionCompleted === 'number' ? `${Math.round(r.fractionCompleted * 100)}%` : '') },
    c('created', 'creationDate')],
}
export const RESULT_FILE: Table = { kinds: [], columns: () => [c('id'), c('job'), c('notes'), c('created', 'creationDate'), c('resultFile')] }
const BEARER: Record<string, [NameKind, string]> = { user: ['user', 'user'], appusergroup: ['group', 'group'] }
const TARGET: Record<string, [NameKind, string]> = { library: ['library', 'library'], tagset: ['tagSet', 'tagset'], appusergroup: ['group', 'group'] }
const ref = (n: Names, kinds: Record<string, [NameKind, string]>, type: string, id: unknown) =>
  kinds[type] ? `${kinds[type][1]}:${n.of(kinds[type][0], id)}` : `${type}:${id}`
export const PERMISSION: Table = {
  kinds: ['user', 'group', 'library', 'tagSet'],
  columns: (n) => [c('id'), { header: 'bearer', get: (r) => ref(n, BEARER, r.bearer_type, r.bearer_id) },
    { header: 'target', get: (r) => ref(n, TARGET, r.target_type, r.target_id) },
    { header: 'flags', get: (r) => ['read', 'write', 'launch_job', 'admin'].filter((f) => r[f]).join(',') },
    named(n, 'user', 'createdBy'), c('created', 'creationDate')],
}
export const TAG: Table = {
  kinds: ['tagSet', 'mediaFile', 'tagClass'],
  columns: (n) => [c('id'), named(n, 'tagSet', 'tagSet'), named(n, 'mediaFile', 'mediaFile'), named(n, 'tagClass', 'tagClass'),
    c('start', 'startTime'), c('end', 'endTime'), c('minFreq', 'minFrequency'), c('maxFreq', 'maxFrequency'), c('strength')],
}
