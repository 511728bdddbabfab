import { ownedVia } from '../access.js'
import { checkRegion } from './tagRegion.js'
import type { TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { defineResource, resourceEndpoints } from './resource.js'
import { jobs } from './jobs.js'
import { mediaFiles } from './mediaFile.js'

// randomWindow/: the windows a RandomWindowTagging job chose, seen and changed
// only by the job's owner (and site admins).

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  randomWindowTaggingJob: { type: 'pk', column: 'job_id', target: () => jobs, required: true },
  mediaFile: { type: 'pk', column: 'media_file_id', target: () => mediaFiles, required: true },
  startTime: { type: 'float', column: 'start_time', required: true },
  endTime: { type: 'float', column: 'end_time', required: true },
} satisfies TableFields<'random_windows'>

/** A random window (randomWindow/) as the API answers it. */
export type RandomWindowRecord = WireRecord<typeof fields>

export const randomWindows = defineResource({
  name: 'randomWindow',
  title: 'Random Window',
  description: 'Windows chosen at random by RandomWindowTagging jobs.',
  table: 'random_windows',
  fields,
  scope: ownedVia('job_id', 'jobs'),
  // a window is a region of time: the same check as a tag's (it has no frequencies)
  checkValues: checkRegion,
})

export const endpoints = () => resourceEndpoints(randomWindows)
