import type { Column } from './output.js'

// Table columns of the records commands list, in one place.

type R = Record<string, any>
const c = (header: string, key = header): Column<R> => ({ header, get: (r) => r[key] })

export const GROUP: Column<R>[] = [c('id'), c('name'), c('users'), c('created', 'creationDate')]
export const LIBRARY: Column<R>[] = [c('id'), c('name'), c('user'), { header: 'media', get: (r) => r.mediaFiles?.length ?? '' }, c('created', 'creationDate')]
export const MEDIA: Column<R>[] = [c('id'), c('alias'), c('library'), c('sensor'), c('started', 'realStartTime'), c('uploaded', 'uploadDate'), c('file')]
export const TAG_SET: Column<R>[] = [c('id'), c('name'), c('library'), c('user'), c('created', 'creationDate')]
export const TAG_CLASS: Column<R>[] = [c('id'), c('className'), c('displayName'), c('library'), c('user')]
export const PROJECT: Column<R>[] = [c('id'), c('name'), c('type'), { header: 'media', get: (r) => r.mediaFiles?.length ?? '' }, c('created', 'creationDate')]
export const JOB_STATUS: Record<number, string> = { 1: 'Unknown', 2: 'Queued', 3: 'Running', 4: 'Error', 5: 'Stopped', 6: 'Complete' }
export const JOB: Column<R>[] = [c('id'), c('name'), c('project'), c('type'),
  { header: 'status', get: (r) => JOB_STATUS[r.status] ?? r.status },
  { header: 'done', get: (r) => (typeof r.fractionCompleted === 'number' ? `${Math.round(r.fractionCompleted * 100)}%` : '') },
  c('created', 'creationDate')]
export const RESULT_FILE: Column<R>[] = [c('id'), c('job'), c('notes'), c('created', 'creationDate'), c('resultFile')]
export const PERMISSION: Column<R>[] = [c('id'), { header: 'bearer', get: (r) => `${r.bearer_type}:${r.bearer_id}` },
  { header: 'target', get: (r) => `${r.target_type}:${r.target_id}` },
  { header: 'flags', get: (r) => ['read', 'write', 'launch_job', 'admin'].filter((f) => r[f]).join(',') },
  c('createdBy'), c('created', 'creationDate')]
export const TAG: Column<R>[] = [c('id'), c('tagSet'), c('mediaFile'), c('tagClass'), c('start', 'startTime'), c('end', 'endTime'),
  c('minFreq', 'minFrequency'), c('maxFreq', 'maxFrequency'), c('strength')]
