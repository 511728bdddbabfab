import type { TableName } from '../db/schema.js'
import { jobParameters } from './jobParameters.js'
import { metaData } from './mediaMetadata.js'
import type { ResourceDef } from './resource.js'

// The lists embedded in their parents' records (a media file's metadata, a job's parameters), declared once:
// their records are the child resource's fields. Triggers keep them as JSON in the parent's row, which every
// answer reads (the parents' `computed` fields; migration 2026_11_24_0004, docs/decisions.md §11); the
// migration imports no app code: a test
// (test/server/resources/embeddedListsJson.test.ts) checks that its triggers write exactly these fields, so a field added
// here without a new migration replacing the triggers fails it.

export interface EmbeddedList {
  /** the resource whose records are embedded (a function: the modules refer to each other) */
  child: () => ResourceDef<TableName>
  /** the child's column holding its parent's id */
  parentColumn: string
  parentTable: TableName
  /** the parent's column where the triggers keep the records as JSON */
  jsonColumn: string
  /** the parent's wire field holding the list */
  field: string
}

export const MEDIA_FILE_METADATA: EmbeddedList = {
  child: () => metaData as unknown as ResourceDef<TableName>,
  parentColumn: 'media_file_id',
  parentTable: 'media_files',
  jsonColumn: 'metadata_json',
  field: 'mediafilemetadata_set',
}

export const JOB_PARAMETERS: EmbeddedList = {
  child: () => jobParameters as unknown as ResourceDef<TableName>,
  parentColumn: 'job_id',
  parentTable: 'jobs',
  jsonColumn: 'parameters_json',
  field: 'jobparameters_set',
}

export const EMBEDDED_LISTS: readonly EmbeddedList[] = [MEDIA_FILE_METADATA, JOB_PARAMETERS]

/** The child's columns and their names in the records, in the order of its field declarations. */
export function recordFields(list: EmbeddedList): Array<[column: string, name: string]> {
  return Object.entries(list.child().fields).flatMap(([name, f]) =>
    f.column ? [[f.column, name] as [string, string]] : [],
  )
}
