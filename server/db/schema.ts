import type { ColumnType, Generated, Insertable, Kysely, Selectable, Transaction } from 'kysely'
import type {
  JobParametersTable,
  JobResultFilesTable,
  JobsTable,
  ModelsTable,
  RandomWindowsTable,
  WindowEmbeddingsTable,
  WorkerHeartbeatsTable,
} from './analysisTables.js'
import type { Id, Timestamp, WithDefault, WrittenByDatabase } from './columnTypes.js'

// Row types of the tables created by the migrations (those of jobs, models and embeddings in
// ./analysisTables.ts). Timestamps travel as 'YYYY-MM-DD hh:mm:ss' strings (see database.ts), never as
// Date objects.

export interface LookupTable {
  id: number
  name: string
}

export interface UsersTable {
  id: Id
  username: string
  password: string
  is_admin: WithDefault<boolean>
  is_active: WithDefault<boolean>
  date_joined: Timestamp
}
export interface AuthGroupsTable {
  id: Id
  name: string
}
export interface UserAuthGroupsTable {
  user_id: number
  group_id: number
}
export interface TokensTable {
  key: string
  user_id: number
  created: Timestamp
  /** sha256 hex of key: what lookups use */ digest: string
}
/** `key` is the sha256 hex of the session cookie's value */
export interface SessionsTable {
  key: string
  user_id: number
  expires: Timestamp
}
/** a one-time code a page exchanges for a session (migration 2026_11_26_4001); `digest` is its sha256 */
export interface LoginCodesTable {
  digest: string
  user_id: number
  expires: Timestamp
}
/** one failed password presentation; `pair` is the sha256 hex of address and username */
export interface LoginFailuresTable {
  id: Generated<string>
  address: string
  pair: string
  failed_at: ColumnType<Date, never, never>
}

export interface LibrariesTable {
  id: Id
  user_id: number
  name: string
  creation_date: Timestamp
  /** keep, mute or withhold (migration 2026_11_29_4408; docs/decisions.md, "Speech policy") */
  speech_policy: WithDefault<SpeechPolicy>
}
/** what leaves the server of a library's recordings for a caller who may not change it */
export type SpeechPolicy = 'keep' | 'mute' | 'withhold'

export interface SensorArraysTable {
  id: Id
  user_id: number
  name: string
  layout_rows: WithDefault<number>
  layout_columns: WithDefault<number>
}
export interface SensorsTable {
  id: Id
  user_id: number
  sensor_array_id: number | null
  name: string
  x: WithDefault<number>
  y: WithDefault<number>
  z: WithDefault<number>
  layout_row: WithDefault<number>
  layout_column: WithDefault<number>
}

export interface MediaFilesTable {
  id: Id
  file: string
  user_id: number
  type_id: number
  active: WithDefault<boolean>
  alias: WithDefault<string>
  upload_date: Timestamp
  has_transcript: WithDefault<boolean>
  sensor_id: number | null
  library_id: number
  real_start_time: Timestamp | null
  /** the JSON array of its metadata records (migration 2026_11_24_0004) */
  metadata_json: WrittenByDatabase<unknown>
  md5: string | null
  // bigint comes back from the driver as a string
  size: ColumnType<string | null, number | string | null, number | string | null>
  /** when a SpeechDetection job last listened to it; null until one has (migration 2026_11_29_4408) */
  speech_scanned_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>
}
export interface MediaFileMetadataTable {
  id: Id
  media_file_id: number
  name: string
  value: WithDefault<string>
  user_editable: WithDefault<boolean>
}
export interface MediaFileUserMetadataFieldsTable {
  id: Id
  name: string
  library_id: number
  description: WithDefault<string>
}
export interface MediaFileUserMetadataTable {
  id: Id
  media_file_id: number
  metadata_field_id: number
  value: WithDefault<string>
}

type ViewSettings<P extends string> = {
  [
    K in
      | `${P}_window_size_in_seconds`
      | `${P}_spectra_minimum_band_frequency`
      | `${P}_spectra_maximum_band_frequency`
      | `${P}_spectra_damping_factor`
      | `${P}_spectra_num_frequency_bands`
      | `${P}_spectra_num_frames_per_second`
  ]: number
}
export type UserSettingsTable = {
  id: Id
  user_id: number
  name: string
  window_size_in_seconds: number
  spectra_minimum_band_frequency: number
  spectra_maximum_band_frequency: number
  spectra_damping_factor: number
  spectra_num_frequency_bands: number
  spectra_num_frames_per_second: number
  show_spectra: boolean
  show_waveform: boolean
  show_pitch_trace: boolean
  load_audio: boolean
  max_num_audio_files_to_list: number
  transcript_format: string
} & ViewSettings<'file_view'> &
  ViewSettings<'catalog_view'> &
  ViewSettings<'tag_view'>

export interface ProjectsTable {
  id: Id
  type_id: number
  name: string
  creation_date: Timestamp
  user_id: number
  user_settings_id: number | null
  notes: WithDefault<string>
  default_permission_read: WithDefault<boolean>
  default_permission_write: WithDefault<boolean>
  default_permission_launch_job: WithDefault<boolean>
  default_permission_admin: WithDefault<boolean>
}
export interface ProjectMediaFilesTable {
  project_id: number
  media_file_id: number
}

export interface TagSetsTable {
  id: Id
  user_id: number
  name: string
  library_id: number | null
  creation_date: Timestamp
}
/** +n/-n per statement that changed a tag set's tags (kept by triggers); their sum is the tag set's tag count */
export interface TagSetTagCountsTable {
  id: Generated<string>
  tag_set_id: number
  delta: ColumnType<string, number, number>
  /** of the delta, the machine- and user-tagged (migration 2026_11_27_3501) */
  machine_delta: ColumnType<string, number | undefined, number>
  user_delta: ColumnType<string, number | undefined, number>
}
/** kept counts of a tag set's tags per class (migration 2026_11_27_3501) */
export interface TagClassCountsTable {
  id: Generated<string>
  tag_set_id: number
  tag_class_id: number
  delta: ColumnType<string, number, number>
}
/** kept counts of a tag set's tags per media file (migration 2026_11_27_3501) */
export interface TagFileCountsTable {
  id: Generated<string>
  tag_set_id: number
  media_file_id: number
  delta: ColumnType<string, number, number>
}
/** kept counts of a tag set's tags per class and strength band (migration 2026_11_28_3401) */
export interface TagBandCountsTable {
  id: Generated<string>
  tag_set_id: number
  tag_class_id: number
  band: number
  delta: ColumnType<string, number, number>
}
export interface TagClassesTable {
  id: Id
  user_id: number
  library_id: number
  class_name: string
  display_name: WithDefault<string>
}
export interface TagExamplesTable {
  id: Id
  user_id: number
  tag_set_id: number
  media_file_id: number
  creation_date: Timestamp
  start_time: number
  end_time: number
  min_frequency: number
  max_frequency: number
}
export interface TagsTable {
  id: Id
  user_id: number
  creation_date: Timestamp
  tag_class_id: number
  tag_example_id: number | null
  tag_set_id: number
  media_file_id: number
  start_time: number
  end_time: number
  min_frequency: number
  max_frequency: number
  parent_tag_id: number | null
  randomly_chosen: WithDefault<boolean>
  machine_tagged: WithDefault<boolean>
  user_tagged: WithDefault<boolean>
  strength: WithDefault<number>
  /** a JSON object of strings (migration 2026_11_27_3301), given and stored as its JSON text */
  /** NULL: none ({} on the wire; migration 2026_12_02_4205) */
  annotations: ColumnType<Record<string, string> | null, string | null | undefined, string | null>
  /** what made a machine tag, a JSON object (migration 2026_11_29_4401), given and stored as its JSON text; null
   * for a tag made by hand */
  provenance: ColumnType<Provenance | null, string | null | undefined, string | null>
}

/** What made a machine tag (docs/decisions.md, "Provenance"): every key optional but `source`. */
export interface Provenance {
  /** the job type (`mas SupervisedTagDiscovery`), the model (`model BirdNET_GLOBAL_6K_V2.4`) or the tool imported from */
  source: string
  version?: string
  /** the model file's checksum, when a model made the tag */
  checksum?: string
  /** the job that made the tag */
  job?: number
  parameters?: Record<string, unknown>
  [more: string]: unknown
}

/** a reviewer's decision on a tag (migration 2026_11_26_4001) */
export interface TagReviewsTable {
  id: Id
  tag_id: number
  user_id: number
  decision: 'yes' | 'no' | 'unsure' | 'skip'
  tag_class_id: number | null
  note: WithDefault<string>
  creation_date: Timestamp
  /** copies of the tag's tag set, class and strength: written with the decision, else by a trigger, and kept by
   * one on tags (migration 2026_11_27_3401) */
  tag_set_id: WithDefault<number>
  tagged_class_id: WithDefault<number>
  tag_strength: WithDefault<number>
}

export interface AppUserGroupsTable {
  id: Id
  name: string
  creation_date: Timestamp
  created_by: number
}
export interface AppUserGroupUsersTable {
  group_id: number
  user_id: number
}
export interface AppPermissionsTable {
  id: Id
  bearer_type: 'user' | 'appusergroup'
  bearer_id: number
  target_type: 'tagset' | 'library' | 'appusergroup'
  target_id: number
  creation_date: Timestamp
  created_by: number
  read: WithDefault<boolean>
  write: WithDefault<boolean>
  launch_job: WithDefault<boolean>
  admin: WithDefault<boolean>
}

/** one row: raised by triggers whenever a record known by name is renamed or deleted (migration 2026_11_27_3311) */
export interface NamesVersionTable {
  one: ColumnType<boolean, never, never>
  version: ColumnType<string, never, never>
}

export interface DB {
  job_types: LookupTable
  job_status_types: LookupTable
  project_types: LookupTable
  media_types: LookupTable
  users: UsersTable
  auth_groups: AuthGroupsTable
  user_auth_groups: UserAuthGroupsTable
  tokens: TokensTable
  sessions: SessionsTable
  login_codes: LoginCodesTable
  login_failures: LoginFailuresTable
  libraries: LibrariesTable
  sensor_arrays: SensorArraysTable
  sensors: SensorsTable
  media_files: MediaFilesTable
  media_file_metadata: MediaFileMetadataTable
  media_file_user_metadata_fields: MediaFileUserMetadataFieldsTable
  media_file_user_metadata: MediaFileUserMetadataTable
  user_settings: UserSettingsTable
  projects: ProjectsTable
  project_media_files: ProjectMediaFilesTable
  tag_sets: TagSetsTable
  tag_set_tag_counts: TagSetTagCountsTable
  tag_class_counts: TagClassCountsTable
  tag_file_counts: TagFileCountsTable
  tag_band_counts: TagBandCountsTable
  tag_classes: TagClassesTable
  tag_examples: TagExamplesTable
  tags: TagsTable
  tag_reviews: TagReviewsTable
  jobs: JobsTable
  job_parameters: JobParametersTable
  job_result_files: JobResultFilesTable
  random_windows: RandomWindowsTable
  app_user_groups: AppUserGroupsTable
  app_user_group_users: AppUserGroupUsersTable
  app_permissions: AppPermissionsTable
  worker_heartbeats: WorkerHeartbeatsTable
  models: ModelsTable
  names_version: NamesVersionTable
  window_embeddings: WindowEmbeddingsTable
}

export type Db = Kysely<DB> | Transaction<DB>
export type TableName = keyof DB
export type Row<T extends TableName> = Selectable<DB[T]>
export type NewRow<T extends TableName> = Insertable<DB[T]>
/** A row of any table, as code written for every table (the resources' core) sees it: columns by name,
 * values not known. The declarations that code runs are checked against the real tables (Column). */
export type AnyRow = Record<string, unknown>
export type AnyTables = Record<string, AnyRow>
/** a column name of table T */
export type Column<T extends TableName> = keyof DB[T] & string
