import { sql } from 'kysely'
import { ownedBy } from '../access.js'
import type { Context, Endpoint, EndpointDoc } from '../http/endpoint.js'
import { badRequest, notFound } from '../http/errors.js'
import { CREATION_DATE, parseInput, planFields, type Fields, type TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { mediaFiles } from './mediaFile.js'
import { API, defineResource, resourceEndpoints, subListEndpoint, type Query } from './resource.js'
import { projectTypes } from './lookups.js'
import { userSettings } from './userSettings.js'
import { users } from './users.js'

// project/: a user's working set of media files, the home of their jobs. Only
// site admins list every project (403 for others); the owner (or a site
// admin) reads and changes one. Membership is changed only through
// project/{Id}/mediaFiles/add/ and remove/, one row per project and file.

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  type: { type: 'pk', column: 'type_id', target: () => projectTypes, default: 1 },
  name: { type: 'string', column: 'name', required: true, maxLength: 255 },
  creationDate: { type: 'datetime', column: 'creation_date', description: CREATION_DATE },
  user: { type: 'pk', column: 'user_id', target: () => users, readOnly: true },
  userSettings: { type: 'pk', column: 'user_settings_id', target: () => userSettings, nullable: true, default: null },
  mediaFiles: { type: 'list', items: 'integer', readOnly: true, inForms: true },
  notes: { type: 'string', column: 'notes', allowBlank: true, default: '' },
  default_permission_read: { type: 'boolean', column: 'default_permission_read', default: false },
  default_permission_write: { type: 'boolean', column: 'default_permission_write', default: false },
  default_permission_launch_job: { type: 'boolean', column: 'default_permission_launch_job', default: false },
  default_permission_admin: { type: 'boolean', column: 'default_permission_admin', default: false },
} satisfies TableFields<'projects'>

/** A project as the API answers it. */
export type ProjectRecord = WireRecord<typeof fields>

export const projects = defineResource({
  name: 'project',
  title: 'Project',
  table: 'projects',
  fields,
  scope: ownedBy('user_id'),
  owner: 'user_id',
  stamps: ['creation_date'],
  list: 'admin',
  description: 'Projects. Listing is for admin users only; creating is for any user.',
  computed: {
    mediaFiles: sql`array(select m.media_file_id from project_media_files m where m.project_id = r.id order by m.media_file_id)`,
  },
})

// ---- membership ----

const idField: Fields = { id: { type: 'integer', required: true, min: 1 } }
const ID_PLAN = planFields(idField)

/** The caller's project (404 otherwise) and the media file id of the body (400 when missing or not an integer). */
async function membershipRequest(ctx: Context) {
  const project = await ctx.services.records.fetchFor(ctx, projects, ctx.params.id, 'write')
  const { values, errors } = parseInput(ID_PLAN, await ctx.body(), 'create')
  if (Object.keys(errors).length) throw badRequest(errors)
  const mediaFileId = values.id as number
  const fileReadable = async () =>
    !!(await ctx.services.records
      .readable(ctx, mediaFiles, 'read')
      .select('r.id')
      .where('r.id', '=', mediaFileId)
      .executeTakeFirst())
  return { projectId: project.id as number, mediaFileId, fileReadable }
}

const ID_BODY = { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }

const membershipDoc = (action: 'add' | 'remove'): EndpointDoc => ({
  keys: ['project', 'mediaFiles'],
  actions: { POST: action },
  fields: { POST: idField },
  success: {
    POST:
      action === 'add'
        ? [
            { status: 201, description: 'Added: {id}', body: ID_BODY },
            { status: 200, description: 'Already in the project: {id}', body: ID_BODY },
          ]
        : [
            { status: 204, description: 'Removed', body: 'none' },
            { status: 200, description: 'Not in the project: {id}', body: ID_BODY },
          ],
  },
})

const addEndpoint: Endpoint = {
  path: `${API}/project/:id/mediaFiles/add/`,
  name: 'Project Media Files Add',
  description: 'Add a media file to the project: 201 {id}, or 200 {id} when it is already there.',
  methods: {
    POST: async (ctx) => {
      const { projectId, mediaFileId, fileReadable } = await membershipRequest(ctx)
      if (!(await fileReadable())) throw notFound()
      // one row per project and file, however many adds race
      const added = await ctx.db
        .insertInto('project_media_files')
        .values({ project_id: projectId, media_file_id: mediaFileId })
        .onConflict((oc) => oc.columns(['project_id', 'media_file_id']).doNothing())
        .returning('media_file_id')
        .executeTakeFirst()
      return { status: added ? 201 : 200, body: { id: mediaFileId } }
    },
  },
  options: async () => ({ POST: idField }),
  doc: membershipDoc('add'),
}

const removeEndpoint: Endpoint = {
  path: `${API}/project/:id/mediaFiles/remove/`,
  name: 'Project Media Files Remove',
  description: 'Remove a media file from the project: 204, or 200 {id} when it is not there.',
  methods: {
    POST: async (ctx) => {
      const { projectId, mediaFileId, fileReadable } = await membershipRequest(ctx)
      const removed = await ctx.db
        .deleteFrom('project_media_files')
        .where('project_id', '=', projectId)
        .where('media_file_id', '=', mediaFileId)
        .returning('media_file_id')
        .executeTakeFirst()
      if (removed) return { status: 204 }
      if (!(await fileReadable())) throw notFound()
      return { status: 200, body: { id: mediaFileId } }
    },
  },
  options: async () => ({ POST: idField }),
  doc: membershipDoc('remove'),
}

const inProject = (qb: Query<{}>, projectId: number) =>
  qb.where((eb) =>
    eb(
      'r.id',
      'in',
      eb.selectFrom('project_media_files as pm').select('pm.media_file_id').where('pm.project_id', '=', projectId),
    ),
  )

const containingFile = (qb: Query<{}>, mediaFileId: number) =>
  qb.where((eb) =>
    eb(
      'r.id',
      'in',
      eb.selectFrom('project_media_files as pm').select('pm.project_id').where('pm.media_file_id', '=', mediaFileId),
    ),
  )

export const endpoints = (): Endpoint[] => [
  ...resourceEndpoints(projects),
  subListEndpoint({
    parent: projects,
    child: mediaFiles,
    segment: 'mediaFiles',
    name: 'Project Media Files',
    where: inProject,
  }),
  addEndpoint,
  removeEndpoint,
  subListEndpoint({
    parent: mediaFiles,
    child: projects,
    segment: 'projects',
    name: 'Media File Projects',
    where: containingFile,
  }),
]
