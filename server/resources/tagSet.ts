import { onLibrary, onTagSet } from '../access.js'
import { forbidden } from '../http/errors.js'
import { CREATION_DATE, type TableFields } from '../http/fields.js'
import { tags } from './tag.js'
import { defineResource, resourceEndpoints, scopeAllows, subListEndpoint } from './resource.js'
import { tagSetTagCount } from './tagSetCount.js'
import { tagSetPage } from './tagSetPages.js'
import { libraries } from './library.js'
import { users } from './users.js'

// tagSet/: a named set of tags, optionally inside a library. Read on the tag
// set (owner, a grant on it, or read on its library) to read it; write to
// change it, admin to delete it (its tags go with it, and the grants on it).
// Creating one, or moving it into a library, needs write on that library.

const fields: TableFields<'tag_sets'> = {
  id: { type: 'integer', column: 'id', readOnly: true },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  name: { type: 'string', column: 'name', required: true, maxLength: 255 },
  // required, as the original requires it; null (a tag set of no library) is our extension
  library: { type: 'pk', column: 'library_id', target: () => libraries, nullable: true, required: true },
  creationDate: { type: 'datetime', column: 'creation_date', description: CREATION_DATE },
}

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

export const endpoints = () => [
  ...resourceEndpoints(tagSets),
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
