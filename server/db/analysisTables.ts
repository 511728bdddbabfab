import type { ColumnType, Generated } from 'kysely'
import type { Manifest } from '../analysis/models/manifest.js'
import type { Id, Timestamp, WithDefault, WrittenByDatabase } from './columnTypes.js'

// Row types of the tables of jobs, their parameters and results, models and stored embeddings (./schema.ts has
// the rest, and the DB they make up).

export interface JobsTable {
  id: Id
  /** the JSON array of its parameters (migration 2026_11_24_0004) */
  parameters_json: WrittenByDatabase<unknown>
  name: WithDefault<string>
  user_id: number
  project_id: number | null
  type_id: number
  creation_date: Timestamp
  num_to_complete: WithDefault<number>
  num_completed: WithDefault<number>
  fraction_completed: WithDefault<number>
  elapsed_real_time: WithDefault<number>
  time_to_completion: WithDefault<number>
  is_running: WithDefault<boolean>
  was_stopped: WithDefault<boolean>
  is_complete: WithDefault<boolean>
  was_deleted: WithDefault<boolean>
  status_id: WithDefault<number>
  requested_status_id: number | null
  started_date: Timestamp | null
  last_status_date: Timestamp | null
  parent_job_id: number | null
  priority: WithDefault<number>
  /** the worker holding the job and until when (database clock); null when nobody holds it */
  worker_id: string | null
  lease_expires: Date | string | null
  /** when the holder last renewed the lease (database clock) */
  lease_renewed: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

export interface JobParametersTable {
  id: Id
  job_id: number
  name: string
  value: WithDefault<string>
}

export interface JobResultFilesTable {
  id: Id
  job_id: number
  creation_date: Timestamp
  result_file: WithDefault<string>
  notes: WithDefault<string>
}

export interface RandomWindowsTable {
  id: Id
  job_id: number
  media_file_id: number
  start_time: number
  end_time: number
}

/** an operator's ONNX model (migration 2026_11_29_4402) */
export interface ModelsTable {
  id: Id
  name: string
  version: WithDefault<string>
  /** the stored name of the ONNX file */
  file: string
  md5: string
  size: ColumnType<string, number, number>
  /** the manifest (server/analysis/models/manifest.ts), given and stored as its JSON text */
  manifest: ColumnType<Manifest, string, string>
  /** the length of the model's embedding output, when it has one */
  embedding_size: number | null
  user_id: number
  creation_date: Timestamp
}

/** a running job worker; renewed every few seconds (server/jobs/heartbeat.ts) */
export interface WorkerHeartbeatsTable {
  worker_id: string
  started: ColumnType<Date, never, never>
  renewed: ColumnType<Date, never, Date>
}

/** A media file's stored window embeddings of one kind, window and hop (docs/decisions.md §35). */
export interface WindowEmbeddingsTable {
  id: Id
  media_file_id: number
  library_id: number
  /** `builtin`, or `model-<id>` for a model's embedding */
  kind: string
  /** the window and hop the job asked for: with the kind, what makes a row once */
  window_seconds: number
  hop_seconds: number
  /** what the file made of them: windows start every step_seconds from 0, each length_seconds long (cut at the file's end) */
  length_seconds: number
  step_seconds: number
  duration: number
  dimensions: number
  windows: number
  /** windows × dimensions float16 values, little-endian */
  vectors: Buffer
  creation_date: Generated<Date>
}
