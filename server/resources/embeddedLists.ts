import type { TableName } from '../db/schema.js'
import type { ResourceDef } from './resource.js'

// The lists embedded in their parents' records (a media file's metadata, a job's parameters), declared once:
// their records are the child resource's fields. Triggers keep them as JSON in the parent's row, which every
// answer reads (the parents' `computed` fields; migration 2026_11_24_0004, docs/decisions.md §11); the
// migration imports no app code: a test (test/server/resources/embeddedListsJson.test.ts) pairs each list with
// its child's declaration and checks that the triggers write exactly its fields, so a field added to the child
// without a new migration replacing the triggers fails it. The lists do not import their children: a child
// names its parent (a media file's metadata its media file), which reads the list.

export interface EmbeddedList {
  /** the child's table, whose records are embedded */
  childTable: TableName
  /** the child's column holding its parent's id */
  parentColumn: string
  parentTable: TableName
  /** the parent's column where the triggers keep the records as JSON */
  jsonColumn: string
  /** the parent's wire field holding the list */
  field: string
}

export const MEDIA_FILE_METADATA: EmbeddedList = {
  childTable: 'media_file_metadata',
  parentColumn: 'media_file_id',
  parentTable: 'media_files',
  jsonColumn: 'metadata_json',
  field: 'mediafilemetadata_set',
}

export const JOB_PARAMETERS: EmbeddedList = {
  childTable: 'job_parameters',
  parentColumn: 'job_id',
  parentTable: 'jobs',
  jsonColumn: 'parameters_json',
  field: 'jobparameters_set',
}

export const EMBEDDED_LISTS: readonly EmbeddedList[] = [MEDIA_FILE_METADATA, JOB_PARAMETERS]

/** The child's columns and their names in the records, in the order of its field declarations. */
export function recordFields(child: ResourceDef): Array<[column: string, name: string]> {
  return Object.entries(child.fields).flatMap(([name, f]) => (f.column ? [[f.column, name] as [string, string]] : []))
}
