import type { TableName } from '../db/schema.js'
import { toJson } from '../http/fields.js'
import { anyTable } from './core/define.js'
import { jobParameters } from './jobParameters.js'
import { metaData } from './mediaMetadata.js'
import type { Db, ResourceDef } from './resource.js'

// The lists embedded in their parents' records (a media file's metadata, a job's parameters), declared once:
// their records are the child resource's fields. The server renders them from those declarations
// (embeddedRecords), and triggers keep them as JSON in the parent's row for the lists written by the database
// (migration 2026_11_24_0004, docs/decisions.md §11), which imports no app code: a test
// (test/server/embeddedListsJson.test.ts) checks that its triggers write exactly these fields, so a field added
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
  child: () => metaData as unknown as ResourceDef<TableName>, parentColumn: 'media_file_id',
  parentTable: 'media_files', jsonColumn: 'metadata_json', field: 'mediafilemetadata_set',
}

export const JOB_PARAMETERS: EmbeddedList = {
  child: () => jobParameters as unknown as ResourceDef<TableName>, parentColumn: 'job_id',
  parentTable: 'jobs', jsonColumn: 'parameters_json', field: 'jobparameters_set',
}

export const EMBEDDED_LISTS: readonly EmbeddedList[] = [MEDIA_FILE_METADATA, JOB_PARAMETERS]

/** The child's columns and their names in the records, in the order of its field declarations. */
export function recordFields(list: EmbeddedList): Array<[column: string, name: string]> {
  return Object.entries(list.child().fields).flatMap(([name, f]) => f.column ? [[f.column, name] as [string, string]] : [])
}

/** The embedded records of each parent, in the order of their ids, as the server renders them. */
export async function embeddedRecords(db: Db, list: EmbeddedList, parentIds: number[]): Promise<Map<number, Record<string, unknown>[]>> {
  const child = list.child()
  const columns = [...new Set([...recordFields(list).map(([c]) => c), list.parentColumn])].map((c) => `r.${c}`)
  const byParent = new Map<number, Record<string, unknown>[]>(parentIds.map((id) => [id, []]))
  for (let i = 0; i < parentIds.length; i += 1000) {
    const rows = await anyTable(db).selectFrom(`${child.table} as r`).select(columns)
      .where(`r.${list.parentColumn}`, 'in', parentIds.slice(i, i + 1000)).orderBy('r.id').execute()
    for (const row of rows) byParent.get(row[list.parentColumn] as number)?.push(toJson(child.fields, row))
  }
  return byParent
}
