import {
  GROUPS,
  JOB_TYPES,
  LIBRARIES,
  MEDIA_FILES,
  PROJECT_TYPES,
  PROJECTS,
  SENSOR_ARRAYS,
  SENSORS,
  TAG_CLASSES,
  TAG_SETS,
  USERS,
  type Names,
  type NameSource,
} from './names.js'
import { thousandths, type Column } from './output.js'
import { hasStrength } from './tagFormats.js'

// Table columns of the records commands list, in one place. Columns that refer to other records show
// their names (src/names.ts); each table says which kinds of names it needs.

type R = Record<string, unknown>
/** A model's manifest, as much of it as the table shows. */
const manifestOf = (r: R) =>
  r.manifest as { sampleRate?: number; windowSeconds?: number; labels?: unknown[] } | null | undefined
const c = (header: string, key = header): Column<R> => ({ header, get: (r) => r[key] })
/** A column of references shown by name. */
const named = (n: Names, kind: NameSource, header: string, key = header): Column<R> => ({
  header,
  get: (r) => (Array.isArray(r[key]) ? r[key].map((id: unknown) => n.of(kind, id)) : n.of(kind, r[key])),
})

/** A table: its columns given the names, and the kinds of names they show. */
export interface Table {
  kinds: readonly NameSource[]
  columns: (n: Names) => Column<R>[]
}

export const GROUP: Table = {
  kinds: [USERS],
  columns: (n) => [
    c('id'),
    c('name'),
    named(n, USERS, 'users'),
    named(n, USERS, 'createdBy'),
    c('created', 'creationDate'),
  ],
}
export const LIBRARY: Table = {
  kinds: [USERS],
  columns: (n) => [
    c('id'),
    c('name'),
    named(n, USERS, 'user'),
    { header: 'media', get: (r) => (r.mediaFiles as unknown[] | undefined)?.length ?? '' },
    c('created', 'creationDate'),
  ],
}
/** A number rounded for people to read (times to the millisecond, strengths to three decimals); --json keeps the stored values. */
const rounded = (header: string, key: string): Column<R> => ({
  header,
  get: (r) => (typeof r[key] === 'number' ? thousandths(r[key]) : r[key]),
})
/** A fact the import stored about a media file (its metadata records), as a number. */
const fact = (header: string, name: string, round = (n: number) => n): Column<R> => ({
  header,
  get: (r) => {
    const value = (r.mediafilemetadata_set as R[] | undefined)?.find((m) => m.name === name)?.value
    const n = value === undefined || value === '' ? NaN : Number(value)
    return Number.isFinite(n) ? round(n) : undefined
  },
})
/** What is wrong with a media file the import read nonetheless (its `warning` facts, e.g. truncated), in a word each. */
const damage: Column<R> = {
  header: 'damage',
  get: (r) =>
    ((r.mediafilemetadata_set as R[] | undefined) ?? [])
      .filter((m) => m.name === 'warning')
      .map((m) => String(m.value).split(':')[0])
      .join(', '),
}
export const MEDIA: Table = {
  kinds: [LIBRARIES, SENSORS],
  columns: (n) => [
    c('id'),
    c('alias'),
    named(n, LIBRARIES, 'library'),
    named(n, SENSORS, 'sensor'),
    c('started', 'realStartTime'),
    fact('duration', 'durationInSeconds', thousandths),
    fact('rate', 'sampleRate'),
    fact('channels', 'numChannels'),
    damage,
    c('uploaded', 'uploadDate'),
    c('file'),
  ],
}
export const MODEL: Table = {
  // not who added it: an operator, whom a user may not be allowed to name (usernames/)
  kinds: [],
  columns: () => [
    c('id'),
    c('name'),
    c('version'),
    { header: 'rate', get: (r) => manifestOf(r)?.sampleRate ?? '' },
    {
      header: 'window',
      get: (r) => {
        const seconds = manifestOf(r)?.windowSeconds
        return typeof seconds === 'number' ? `${seconds} s` : ''
      },
    },
    { header: 'classes', get: (r) => manifestOf(r)?.labels?.length ?? 0 },
    c('embedding', 'embeddingSize'),
    c('created', 'creationDate'),
  ],
}
export const TAG_SET: Table = {
  kinds: [LIBRARIES, USERS],
  columns: (n) => [
    c('id'),
    c('name'),
    named(n, LIBRARIES, 'library'),
    named(n, USERS, 'user'),
    c('created', 'creationDate'),
  ],
}
export const TAG_CLASS: Table = {
  kinds: [LIBRARIES, USERS],
  columns: (n) => [c('id'), c('className'), c('displayName'), named(n, LIBRARIES, 'library'), named(n, USERS, 'user')],
}
export const PROJECT: Table = {
  kinds: [PROJECT_TYPES],
  columns: (n) => [
    c('id'),
    c('name'),
    named(n, PROJECT_TYPES, 'type'),
    { header: 'media', get: (r) => (r.mediaFiles as unknown[] | undefined)?.length ?? '' },
    c('created', 'creationDate'),
  ],
}
export const JOB_STATUS: Record<number, string> = {
  1: 'Unknown',
  2: 'Queued',
  3: 'Running',
  4: 'Error',
  5: 'Stopped',
  6: 'Complete',
}
export const JOB: Table = {
  kinds: [PROJECTS, JOB_TYPES],
  columns: (n) => [
    c('id'),
    c('name'),
    named(n, PROJECTS, 'project'),
    named(n, JOB_TYPES, 'type'),
    { header: 'status', get: (r) => JOB_STATUS[r.status as number] ?? r.status },
    {
      header: 'done',
      get: (r) => (typeof r.fractionCompleted === 'number' ? `${Math.round(r.fractionCompleted * 100)}%` : ''),
    },
    c('created', 'creationDate'),
  ],
}
export const SENSOR_ARRAY: Table = {
  kinds: [],
  columns: () => [
    c('id'),
    c('name'),
    c('rows', 'layoutRows'),
    c('columns', 'layoutColumns'),
    { header: 'sensors', get: (r) => (r.sensor_set as R[] | undefined)?.map((s) => s.name ?? s.id).join(', ') ?? '' },
  ],
}
export const SENSOR: Table = {
  kinds: [SENSOR_ARRAYS],
  columns: (n) => [
    c('id'),
    c('name'),
    named(n, SENSOR_ARRAYS, 'array', 'sensorArray'),
    c('row', 'layoutRow'),
    c('column', 'layoutColumn'),
    c('x'),
    c('y'),
    c('z'),
  ],
}
export const RESULT_FILE: Table = {
  kinds: [],
  columns: () => [c('id'), c('job'), c('notes'), c('created', 'creationDate'), c('resultFile')],
}
// a grant's bearer_type and target_type (the API's values) and how a table shows them
const BEARER: Record<string, [NameSource, string]> = { user: [USERS, 'user'], appusergroup: [GROUPS, 'group'] }
const TARGET: Record<string, [NameSource, string]> = {
  library: [LIBRARIES, 'library'],
  tagset: [TAG_SETS, 'tagset'],
  appusergroup: [GROUPS, 'group'],
}
const ref = (n: Names, kinds: Record<string, [NameSource, string]>, type: string, id: unknown) =>
  kinds[type] ? `${kinds[type][1]}:${n.of(kinds[type][0], id)}` : `${type}:${id}`
export const PERMISSION: Table = {
  kinds: [USERS, GROUPS, LIBRARIES, TAG_SETS],
  columns: (n) => [
    c('id'),
    { header: 'bearer', get: (r) => ref(n, BEARER, String(r.bearer_type), r.bearer_id) },
    { header: 'target', get: (r) => ref(n, TARGET, String(r.target_type), r.target_id) },
    { header: 'flags', get: (r) => ['read', 'write', 'launch_job', 'admin'].filter((f) => r[f]).join(',') },
    named(n, USERS, 'createdBy'),
    c('created', 'creationDate'),
  ],
}
export const TAG: Table = {
  kinds: [TAG_SETS, MEDIA_FILES, TAG_CLASSES],
  columns: (n) => [
    c('id'),
    named(n, TAG_SETS, 'tagSet'),
    named(n, MEDIA_FILES, 'mediaFile'),
    named(n, TAG_CLASSES, 'tagClass'),
    rounded('start', 'startTime'),
    rounded('end', 'endTime'),
    c('minFreq', 'minFrequency'),
    c('maxFreq', 'maxFrequency'),
    { header: 'strength', get: (r) => (hasStrength(r) ? thousandths(r.strength as number) : '') },
  ],
}
