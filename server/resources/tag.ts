import { onTagSet } from '../access.js'
import { CREATION_DATE, type TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { defineResource, resourceEndpoints, subListEndpoint, type ResourceDef } from './resource.js'
import { checkBounds, regionFits } from './tagBounds.js'
import { checkRegion } from './tagRegion.js'
import { mediaFiles } from './mediaFile.js'
import { tagClasses } from './tagClass.js'
import { tagExamples } from './tagExample.js'
import { tagSets } from './tagSet.js'
import { tagListVia } from './tagLists.js'
import { tagSetTagCount } from './tagSetCount.js'
import { tagSetPage } from './tagSetPages.js'
import { users } from './users.js'
import { ANNOTATIONS_MAX, PROVENANCE_MAX } from './tagLimits.js'

// tag/: a labelled time/frequency region of a media file, in a tag set. Read on
// the tag set to read; write on it to create, change or delete, and the media
// file (like every reference) must be readable. POST also takes a JSON array:
// all tags are created in one transaction, or none with per-item errors.

export { ANNOTATIONS_MAX, PROVENANCE_MAX }

const fields = {
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
  // a mas extension: what a Raven table says of the tag that mas has no field for (docs/decisions.md, "Raven round trips");
  // no default, so a create without it keeps the statements of the original fields; {} is stored as NULL (§42)
  annotations: {
    type: 'object',
    column: 'annotations',
    emptyAsNull: true,
    items: 'string',
    maxLength: ANNOTATIONS_MAX,
    description:
      'a mas extension: more about the tag, as column name → text (the columns of a Raven table mas has no field for, written back on export); at most 10,000 characters as JSON; default {}',
  },
  // a mas extension (docs/decisions.md, "Provenance"): given on create only, like annotations without a default
  provenance: {
    type: 'object',
    column: 'provenance',
    nullable: true,
    maxLength: PROVENANCE_MAX,
    description:
      'a mas extension: what made a machine tag — source (the job type, model or tool), version, checksum of the model, job, parameters; given when the tag is created and never changed; null for a tag made by hand',
  },
} satisfies TableFields<'tags'>

/** A tag as the API answers it. */
export type TagRecord = WireRecord<typeof fields>

/** the wire names an update may change: all but provenance, which stays what made the tag */
const updatable = Object.keys(fields).filter((n) => n !== 'provenance' && !(fields as TableFields<'tags'>)[n].readOnly)

export const tags: ResourceDef<'tags'> = defineResource({
  name: 'tag',
  accelerated: ['create', 'detail', 'list'],
  title: 'Tag',
  table: 'tags',
  fields,
  scope: onTagSet('tag_set_id'),
  // every tag of a readable tag set is readable (the rule above): ?tagSet= checks it once, counts are kept
  listVia: {
    readableWith: 'tag_set_id',
    list: tagListVia(
      () => tags,
      () => tagSets,
    ),
  },
  owner: 'user_id',
  stamps: ['creation_date'],
  updatable,
  bulk: true,
  // ?onDuplicate=skip: a tag of the same file, class, times and frequencies in the same tag set is not made again
  identity: ['tag_set_id', 'media_file_id', 'tag_class_id', 'start_time', 'end_time', 'min_frequency', 'max_frequency'],
  // found by (media_file_id, tag_class_id, start_time); by the set and the class, a generic plan walked every tag of
  // the class in the set (the indexes that lead with the set or the class order their tags by id)
  identityOnRow: ['tag_set_id'],
  checkValues: checkRegion,
  checkStored: checkBounds,
  storedCondition: regionFits,
  storedConditionGroups: { by: ['media_file_id'], greatest: ['end_time', 'max_frequency'] },
})

export const endpoints = () => [
  ...resourceEndpoints(tags),
  subListEndpoint({
    parent: tagSets,
    child: tags,
    segment: 'tags',
    name: 'Tag Set Tags',
    // (tag_set_id, id) serves the default order
    where: 'tag_set_id',
    // kept by triggers: no count(*) over a tag set of millions on every page
    count: async (ctx, id) => (await tagSetTagCount(ctx.db, id)).count,
    // deep pages seek to a remembered first id instead of skipping every tag before them
    page: (ctx, id, ordered, limit, offset, run) =>
      tagSetPage(ctx.services.tagSetPages, ctx.db, { tagSetId: id }, ordered, limit, offset, run),
  }),
]
