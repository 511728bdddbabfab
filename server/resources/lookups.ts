import { everyone } from '../access.js'
import type { TableFields } from '../http/fields.js'
import type { WireRecord } from '../http/wireRecord.js'
import { defineResource, resourceEndpoints } from './resource.js'

// The read-only lookup tables: any authenticated user lists and reads them; writes are 405.

const fields = {
  id: { type: 'integer', column: 'id', readOnly: true },
  name: { type: 'string', column: 'name', maxLength: 255, required: true },
} satisfies TableFields<LookupTable>

/** A record of a lookup table (jobTypes/, mediaTypes/…) as the API answers it. */
export type LookupRecord = WireRecord<typeof fields>

type LookupTable = 'job_types' | 'job_status_types' | 'project_types' | 'media_types'

const lookup = (name: string, title: string, table: LookupTable) =>
  defineResource({ name, title, table, fields, scope: everyone, create: false, update: false, destroy: false })

export const jobTypes = lookup('jobTypes', 'Job Types', 'job_types')
export const jobStatusTypes = lookup('jobStatusTypes', 'Job Status Types', 'job_status_types')
export const projectTypes = lookup('projectTypes', 'Project Types', 'project_types')
export const mediaTypes = lookup('mediaTypes', 'Media Types', 'media_types')

export const endpoints = () => [jobTypes, jobStatusTypes, projectTypes, mediaTypes].flatMap(resourceEndpoints)
