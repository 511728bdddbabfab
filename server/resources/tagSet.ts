import { onLibrary, onTagSet } from '../access.js'
import { forbidden } from '../http/errors.js'
import { CREATION_DATE, type TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { defineResource, resourceEndpoints, scopeAllows } from './resource.js'
import { libraries } from './library.js'
import { users } from './users.js'

// tagSet/: a named set of tags, optionally inside a library. Read on the tag
// set (owner, a grant on it, or read on its library) to read it; write to
// change it, admin to delete it (its tags go with it, and the grants on it).
// Creating one, or moving it into a library, needs write on that library.

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  name: { type: 'string', column: 'name', required: true, maxLength: 255 },
  // required, as the original requires it; null (a tag set of no library) is our extension
  library: { type: 'pk', column: 'library_id', target: () => libraries, nullable: true, required: true },
  creationDate: { type: 'datetime', column: 'creation_date', description: CREATION_DATE },
} satisfies TableFields<'tag_sets'>

/** A tag set as the API answers it. */
export type TagSetRecord = WireRecord<typeof fields>

export const tagSets = defineResource({
  name: 'tagSet',
  accelerated: ['detail', 'list'],
  title: 'Tag Set',
  table: 'tag_sets',
  fields,
  scope: onTagSet('id'),
  // checked in validate: only a library being newly given needs write on it
  createScope: null,
  owner: 'user_id',
  stamps: ['creation_date'],
  update: 'write',
  destroy: 'admin',
  validate: async (ctx, values, existing) => {
    const library = values.library
    if (typeof library !== 'number' || library === existing?.library_id) return
    if (!(await scopeAllows(ctx.db, onLibrary('library_id'), ctx.caller, [{ library_id: library }], 'write')))
      throw forbidden()
  },
  beforeDelete: async (trx, row) => {
    await trx
      .deleteFrom('app_permissions')
      .where('target_type', '=', 'tagset')
      .where('target_id', '=', row.id)
      .execute()
  },
})

export const endpoints = () => resourceEndpoints(tagSets)
