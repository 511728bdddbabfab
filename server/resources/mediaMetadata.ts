import { sql } from 'kysely'
import { onLibrary, onLibraryVia } from '../access.js'
import { badRequest, fieldError } from '../http/errors.js'
import type { TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { defineResource, resourceEndpoints, subListEndpoint } from './resource.js'
import { libraries } from './library.js'
import { mediaFiles } from './mediaFile.js'

// Metadata of media files, all governed by the media file's (or field's) library:
// read on the library to read, write on it to create, change or delete.
// - mediaFileMetaData/: facts about a file (fileSize, durationInSeconds, ...), values always strings.
// - mediaFileUserMetaDataField/: the user-defined fields of a library.
// - mediaFileUserMetaData/: a media file's value for one of its library's fields.

const onMediaFileLibrary = onLibraryVia('media_file_id', 'media_files')

const metaDataFields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  mediaFile: { type: 'pk', column: 'media_file_id', target: () => mediaFiles, required: true },
  name: { type: 'string', column: 'name', required: true, maxLength: 255 },
  value: { type: 'string', column: 'value', allowBlank: true, default: '' },
  userEditable: { type: 'boolean', column: 'user_editable', default: true },
} satisfies TableFields<'media_file_metadata'>

/** A media file's metadata (mediaFileMetaData/) as the API answers it. */
export type MediaFileMetaDataRecord = WireRecord<typeof metaDataFields>

export const metaData = defineResource({
  name: 'mediaFileMetaData',
  title: 'Media File Meta Data',
  table: 'media_file_metadata',
  fields: metaDataFields,
  scope: onMediaFileLibrary,
})

const userMetaDataFieldFields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  name: { type: 'string', column: 'name', required: true, maxLength: 255 },
  library: { type: 'pk', column: 'library_id', target: () => libraries, required: true },
  description: { type: 'string', column: 'description', allowBlank: true, default: '' },
} satisfies TableFields<'media_file_user_metadata_fields'>

/** A library's user metadata field (mediaFileUserMetaDataField/) as the API answers it. */
export type UserMetaDataFieldRecord = WireRecord<typeof userMetaDataFieldFields>

export const userMetaDataFields = defineResource({
  name: 'mediaFileUserMetaDataField',
  title: 'Media File User Meta Data Field',
  table: 'media_file_user_metadata_fields',
  fields: userMetaDataFieldFields,
  scope: onLibrary('library_id'),
  validate: async (ctx, values, existing) => {
    const name = (values.name ?? existing?.name) as string
    const library = (values.library ?? existing?.library_id) as number
    let clash = ctx.db
      .selectFrom('media_file_user_metadata_fields')
      .select('id')
      .where('library_id', '=', library)
      .where('name', '=', name)
    if (existing) clash = clash.where('id', '<>', existing.id)
    if (await clash.executeTakeFirst()) {
      throw badRequest({ non_field_errors: ['The fields library, name must make a unique set.'] })
    }
  },
})

const userMetaDataValueFields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  mediaFile: { type: 'pk', column: 'media_file_id', target: () => mediaFiles, required: true },
  metaDataField: { type: 'pk', column: 'metadata_field_id', target: () => userMetaDataFields, required: true },
  value: { type: 'string', column: 'value', allowBlank: true, default: '' },
  metaDataFieldName: { type: 'string', readOnly: true },
} satisfies TableFields<'media_file_user_metadata'>

/** A media file's user metadata value (mediaFileUserMetaData/) as the API answers it. */
export type UserMetaDataValueRecord = WireRecord<typeof userMetaDataValueFields>

export const userMetaData = defineResource({
  name: 'mediaFileUserMetaData',
  title: 'Media File User Meta Data',
  table: 'media_file_user_metadata',
  fields: userMetaDataValueFields,
  scope: onMediaFileLibrary,
  validate: async (ctx, values, existing) => {
    const mediaFile = (values.mediaFile ?? existing?.media_file_id) as number
    const field = (values.metaDataField ?? existing?.metadata_field_id) as number
    const pair = await ctx.db
      .selectFrom(['media_files as m', 'media_file_user_metadata_fields as f'])
      .select(['m.library_id as fileLibrary', 'f.library_id as fieldLibrary'])
      .where('m.id', '=', mediaFile)
      .where('f.id', '=', field)
      .executeTakeFirstOrThrow()
    if (pair.fileLibrary !== pair.fieldLibrary) {
      throw fieldError('metaDataField', 'The field must belong to the library of the media file.')
    }
    let clash = ctx.db
      .selectFrom('media_file_user_metadata')
      .select('id')
      .where('media_file_id', '=', mediaFile)
      .where('metadata_field_id', '=', field)
    if (existing) clash = clash.where('id', '<>', existing.id)
    if (await clash.executeTakeFirst()) {
      throw badRequest({ non_field_errors: ['The fields mediaFile, metaDataField must make a unique set.'] })
    }
  },
  // the field names of a whole page in one query
  computed: {
    metaDataFieldName: sql`coalesce((select f.name from media_file_user_metadata_fields f where f.id = r.metadata_field_id), '')`,
  },
})

export const endpoints = () => [
  ...resourceEndpoints(metaData),
  ...resourceEndpoints(userMetaDataFields),
  ...resourceEndpoints(userMetaData),
  subListEndpoint({
    parent: libraries,
    child: userMetaDataFields,
    segment: 'userMetaDataFields',
    name: 'Library User Meta Data Fields',
    where: 'library_id',
  }),
  subListEndpoint({
    parent: mediaFiles,
    child: userMetaData,
    segment: 'userMetaData',
    name: 'Media File User Meta Data',
    where: 'media_file_id',
  }),
]
