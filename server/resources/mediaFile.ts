import { sql, type RawBuilder } from 'kysely'
import { onLibrary } from '../access.js'
import type { TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { mediaFileFilterParams, mediaFileListFilter } from './mediaFileFilters.js'
import { MEDIA_FILE_METADATA } from './embeddedLists.js'
import { defineResource, resourceEndpoints, subListEndpoint } from './resource.js'
import { libraries } from './library.js'
import { mediaTypes } from './lookups.js'
import { sensors } from './sensor.js'
import { removeStoredMediaFiles } from './storedMediaFiles.js'
import { users } from './users.js'

// mediaFile/: the media files of the libraries the caller can read. No create
// here (files arrive through the media import of a library); an update may
// change only alias, active, sensor, realStartTime and hasTranscript (as the
// original stores them); the rest describes the stored bytes. `file` is the stored
// relative name, `url` its absolute address under /media/ (docs/decisions.md §7).

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  file: { type: 'string', column: 'file', readOnly: true },
  url: { type: 'string', readOnly: true },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  type: { type: 'pk', column: 'type_id', target: () => mediaTypes, readOnly: true, inForms: true },
  active: { type: 'boolean', column: 'active', default: true },
  alias: { type: 'string', column: 'alias', allowBlank: true, maxLength: 1024, default: '' },
  uploadDate: { type: 'datetime', column: 'upload_date', readOnly: true },
  hasTranscript: { type: 'boolean', column: 'has_transcript', default: false },
  sensor: { type: 'pk', column: 'sensor_id', target: () => sensors, nullable: true },
  library: { type: 'pk', column: 'library_id', target: () => libraries, readOnly: true, inForms: true },
  realStartTime: { type: 'datetime', column: 'real_start_time', nullable: true },
  mediafilemetadata_set: { type: 'list', items: 'object', readOnly: true },
} satisfies TableFields<'media_files'>

/** A media file as the API answers it. */
export type MediaFileRecord = WireRecord<typeof fields>

/** SQL: the absolute address of the stored file named in `column` of the record `r`, each path segment escaped
 * as encodeURIComponent escapes it (mas_uri_path: migration 2026_11_24_0002). */
export const storedFileUrl = (origin: string, column: string): RawBuilder<string> =>
  sql<string>`${origin}::text || '/media/' || mas_uri_path(${sql.ref(`r.${column}`)})`

export const mediaFiles = defineResource({
  name: 'mediaFile',
  accelerated: ['detail', 'list'],
  title: 'Media File',
  description: 'Media files of the user. No create through the API.',
  table: 'media_files',
  fields,
  scope: onLibrary('library_id'),
  create: false,
  update: 'write',
  destroy: 'admin',
  updatable: ['alias', 'active', 'sensor', 'realStartTime', 'hasTranscript'],
  // ?alias=, ?alias__startswith=, ?realStartTime__gte=/__lte=, ?md5=
  listFilter: mediaFileListFilter,
  listFilterParams: mediaFileFilterParams,
  // its address, and its metadata records kept as JSON in its row (migration 2026_11_24_0004)
  computed: {
    url: (req) => storedFileUrl(req.origin, 'file'),
    [MEDIA_FILE_METADATA.field]: sql.ref(`r.${MEDIA_FILE_METADATA.jsonColumn}`),
  },
  beforeDelete: async (_trx, row, ctx) => () => removeStoredMediaFiles([row], ctx),
})

export const endpoints = () => [
  ...resourceEndpoints(mediaFiles),
  subListEndpoint({
    parent: libraries,
    child: mediaFiles,
    segment: 'mediaFiles',
    name: 'Library Media Files',
    where: 'library_id',
  }),
]
