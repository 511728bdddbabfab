import { onLibrary } from '../access.js'
import type { TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { defineResource, resourceEndpoints } from './resource.js'
import { libraries } from './library.js'
import { users } from './users.js'

// tagClass/: the vocabulary of a library (species, call types...). Read on the
// library to read; write on it to create, change or delete.

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  library: { type: 'pk', column: 'library_id', target: () => libraries, required: true },
  className: { type: 'string', column: 'class_name', required: true, maxLength: 255 },
  displayName: { type: 'string', column: 'display_name', allowBlank: true, maxLength: 255, required: true },
} satisfies TableFields<'tag_classes'>

/** A tag class as the API answers it. */
export type TagClassRecord = WireRecord<typeof fields>

export const tagClasses = defineResource({
  name: 'tagClass',
  accelerated: ['create', 'detail', 'list'],
  title: 'Tag Class',
  table: 'tag_classes',
  fields,
  scope: onLibrary('library_id'),
  owner: 'user_id',
})

export const endpoints = () => resourceEndpoints(tagClasses)
