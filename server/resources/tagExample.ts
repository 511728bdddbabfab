import { onTagSet } from '../access.js'
import { CREATION_DATE, type TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { defineResource, resourceEndpoints } from './resource.js'
import { checkRegion } from './tagRegion.js'
import { mediaFiles } from './mediaFile.js'
import { tagSets } from './tagSet.js'
import { users } from './users.js'

// tagExample/ (deprecated, merged into tag/): a region of a media file in a
// tag set, under the same rules as a tag.

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  tagSet: { type: 'pk', column: 'tag_set_id', target: () => tagSets, required: true },
  mediaFile: { type: 'pk', column: 'media_file_id', target: () => mediaFiles, required: true },
  creationDate: { type: 'datetime', column: 'creation_date', description: CREATION_DATE },
  startTime: { type: 'float', column: 'start_time', required: true, min: 0 },
  endTime: { type: 'float', column: 'end_time', required: true, min: 0 },
  minFrequency: { type: 'float', column: 'min_frequency', required: true, min: 0 },
  maxFrequency: { type: 'float', column: 'max_frequency', required: true, min: 0 },
} satisfies TableFields<'tag_examples'>

/** A tag example (tagExample/) as the API answers it. */
export type TagExampleRecord = WireRecord<typeof fields>

export const tagExamples = defineResource({
  name: 'tagExample',
  title: 'Tag Example',
  description: 'Deprecated: merged into tag.',
  table: 'tag_examples',
  fields,
  scope: onTagSet('tag_set_id'),
  owner: 'user_id',
  stamps: ['creation_date'],
  checkValues: checkRegion,
})

export const endpoints = () => resourceEndpoints(tagExamples)
