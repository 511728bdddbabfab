import { sql } from 'kysely'
import { onLibrary } from '../access.js'
import { CREATION_DATE, type TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { queueSpeechScan, SPEECH_POLICIES } from '../media/speechPolicy.js'
import { defineResource, resourceEndpoints } from './resource.js'
import { removeStoredMediaFiles } from './storedMediaFiles.js'
import { users } from './users.js'

// library/: a collection of media files with its tag sets, tag classes and
// user metadata fields. Anyone may create one (and owns it); reading, changing
// and deleting follow the library's own grants (docs/decisions.md §6). Deleting a library
// takes everything in it along (foreign keys cascade) and the grants that
// pointed at it or at its tag sets (polymorphic, so no foreign key).

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  name: { type: 'string', column: 'name', required: true, maxLength: 255 },
  mediaFiles: { type: 'list', items: 'integer', readOnly: true },
  creationDate: { type: 'datetime', column: 'creation_date', description: CREATION_DATE },
  speechPolicy: {
    type: 'choice',
    column: 'speech_policy',
    choices: SPEECH_POLICIES,
    default: 'keep',
    description:
      "extension: what of its recordings' human speech reaches callers who may not change the library: keep (all of it), " +
      'mute (the spans of machine tags of the class speech silenced) or withhold (recordings with any refused); ' +
      'mute and withhold queue a SpeechDetection job for the files not yet checked, which are withheld until it has',
  },
} satisfies TableFields<'libraries'>

/** A library as the API answers it. */
export type LibraryRecord = WireRecord<typeof fields>

export const libraries = defineResource({
  name: 'library',
  accelerated: ['create', 'detail'],
  title: 'Library',
  table: 'libraries',
  fields,
  scope: onLibrary('id'),
  createScope: null,
  owner: 'user_id',
  stamps: ['creation_date'],
  update: 'write',
  destroy: 'admin',
  // a policy other than keep has the files not yet checked for speech checked (docs/decisions.md, "Speech policy");
  // a new library has no files to check, so its create stays one statement
  afterUpdate: async (trx, row, values) => {
    if (values.speechPolicy !== undefined && values.speechPolicy !== 'keep') await queueSpeechScan(trx, row.id)
  },
  // the media file ids of a whole page of libraries in one query
  computed: { mediaFiles: sql`array(select f.id from media_files f where f.library_id = r.id order by f.id)` },
  // the stored bytes of its media files are removed once the deletion committed
  beforeDelete: async (trx, row, ctx) => {
    const tagSets = trx.selectFrom('tag_sets').select('id').where('library_id', '=', row.id)
    await trx
      .deleteFrom('app_permissions')
      .where((eb) =>
        eb.or([
          eb.and([eb('target_type', '=', 'library'), eb('target_id', '=', row.id)]),
          eb.and([eb('target_type', '=', 'tagset'), eb('target_id', 'in', tagSets)]),
        ]),
      )
      .execute()
    const files = await trx.selectFrom('media_files').select(['id', 'file']).where('library_id', '=', row.id).execute()
    return async () => {
      if (files.length) await removeStoredMediaFiles(files, ctx)
    }
  },
})

export const endpoints = () => resourceEndpoints(libraries)
