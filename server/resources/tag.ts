import { onTagSet } from '../access.js'
import { CREATION_DATE, type TableFields } from '../http/fields.js'
import { defineResource, resourceEndpoints } from './resource.js'
import { checkBounds } from './tagBounds.js'
import { checkRegion } from './tagRegion.js'
import { mediaFiles } from './mediaFile.js'
import { tagClasses } from './tagClass.js'
import { tagExamples } from './tagExample.js'
import { tagSets } from './tagSet.js'
import { tagSetTagCountSql } from './tagSetCount.js'
import { users } from './users.js'

// tag/: a labelled time/frequency region of a media file, in a tag set. Read on
// the tag set to read; write on it to create, change or delete, and the media
// file (like every reference) must be readable. POST also takes a JSON array:
// all tags are created in one transaction, or none with per-item errors.

const fields: TableFields<'tags'> = {
  id: { type: 'integer', column: 'id', readOnly: true },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  creationDate: { type: 'datetime', column: 'creation_date', description: CREATION_DATE },
  tagClass: { type: 'pk', column: 'tag_class_id', target: () => tagClasses, required: true },
  tagExample: { type: 'pk', column: 'tag_example_id', target: () => tagExamples, nullable: true, default: null },
  tagSet: { type: 'pk', column: 'tag_set_id', target: () => tagSets, required: true },
  mediaFile: { type: 'pk', column: 'media_file_id', target: () => mediaFiles, required: true },
  startTime: { type: 'float', column: 'start_time', required: true, min: 0 },
  endTime: { type: 'float', column: 'end_time', required: true, min: 0 },
  minFrequency: { type: 'float', column: 'min_frequency', required: true, min: 0 },
  maxFrequency: { type: 'float', column: 'max_frequency', required: true, min: 0 },
  parentTag: { type: 'pk', column: 'parent_tag_id', target: () => tags, nullable: true, default: null },
  randomlyChosen: { type: 'boolean', column: 'randomly_chosen', default: false },
  machineTagged: { type: 'boolean', column: 'machine_tagged', default: false },
  userTagged: { type: 'boolean', column: 'user_tagged', default: false },
  strength: { type: 'float', column: 'strength', default: 0 },
}

export const tags = defineResource({
  name: 'tag',
  title: 'Tag',
  table: 'tags',
  fields,
  scope: onTagSet('tag_set_id'),
  // ?tagSet=<id>, the list scripts ask for most: every tag of a readable tag set is readable (onTagSet),
  // so the count is the set's own, kept by triggers, instead of a count(*) of its tags under the rule
  countBy: { field: 'tagSet', count: tagSetTagCountSql },
  owner: 'user_id',
  stamps: ['creation_date'],
  bulk: true,
  // ?onDuplicate=skip: a tag of the same file, class, times and frequencies in the same tag set is not made again
  identity: ['tag_set_id', 'media_file_id', 'tag_class_id', 'start_time', 'end_time', 'min_frequency', 'max_frequency'],
  checkValues: checkRegion,
  checkStored: checkBounds,
})

export const endpoints = () => resourceEndpoints(tags)
