import { type Kysely, sql } from 'kysely'

// Every table of the API, with the references, NOT NULLs and unique constraints
// that keep the data honest. Timestamps are server-local `timestamp(0)`.

const id = (c: any) => c.primaryKey().generatedByDefaultAsIdentity()
const ts = 'timestamp(0)' as any

async function lookup(db: Kysely<any>, table: string, rows: Array<[number, string]>) {
  await db.schema
    .createTable(table)
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
    .execute()
  await db
    .insertInto(table)
    .values(rows.map(([id, name]) => ({ id, name })))
    .execute()
}

async function index(db: Kysely<any>, table: string, columns: string[]) {
  await db.schema
    .createIndex(`${table}_${columns.join('_')}_idx`)
    .on(table)
    .columns(columns)
    .execute()
}

export async function up(db: Kysely<any>): Promise<void> {
  await lookup(db, 'job_types', [
    [1, 'SupervisedTagDiscovery'],
    [2, 'RandomWindowTagging'],
    [3, 'TagAnalysis'],
    [4, 'AdaptAnalysis'],
    [5, 'Transcription'],
    [6, 'UnknownTagDiscovery'],
    [7, 'UnsupervisedTagDiscovery'],
    [8, 'Test'],
    [9, 'ImportAudioFile'],
    [10, 'SupervisedTagDiscoveryParent'],
    [11, 'SupervisedTagDiscoveryChild'],
  ])
  await lookup(db, 'job_status_types', [
    [1, 'Unknown'],
    [2, 'Queued'],
    [3, 'Running'],
    [4, 'Error'],
    [5, 'Stopped'],
    [6, 'Complete'],
  ])
  const mediaKinds: Array<[number, string]> = [
    [1, 'audio'],
    [2, 'image'],
    [3, 'movement'],
    [4, 'text'],
    [5, 'video'],
  ]
  await lookup(db, 'project_types', mediaKinds)
  await lookup(db, 'media_types', mediaKinds)

  await db.schema
    .createTable('users')
    .addColumn('id', 'integer', id)
    .addColumn('username', 'varchar(150)', (c) => c.notNull().unique())
    .addColumn('password', 'varchar(255)', (c) => c.notNull())
    .addColumn('is_admin', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('date_joined', ts, (c) => c.notNull())
    .execute()

  // authentication-framework groups, shown as `groups` in user/ output
  await db.schema
    .createTable('auth_groups')
    .addColumn('id', 'integer', id)
    .addColumn('name', 'varchar(150)', (c) => c.notNull().unique())
    .execute()
  await db.schema
    .createTable('user_auth_groups')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('auth_groups.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_auth_groups_pk', ['user_id', 'group_id'])
    .execute()

  await db.schema
    .createTable('tokens')
    .addColumn('key', 'char(40)', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().unique().references('users.id').onDelete('cascade'))
    .addColumn('created', ts, (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('sessions')
    .addColumn('key', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires', ts, (c) => c.notNull())
    .execute()
  await index(db, 'sessions', ['user_id'])

  await db.schema
    .createTable('libraries')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('creation_date', ts, (c) => c.notNull())
    .execute()
  await index(db, 'libraries', ['user_id'])

  await db.schema
    .createTable('sensor_arrays')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('layout_rows', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('layout_columns', 'integer', (c) => c.notNull().defaultTo(1))
    .execute()
  await index(db, 'sensor_arrays', ['user_id'])

  await db.schema
    .createTable('sensors')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('sensor_array_id', 'integer', (c) => c.references('sensor_arrays.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('x', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('y', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('z', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('layout_row', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('layout_column', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await index(db, 'sensors', ['user_id'])
  await index(db, 'sensors', ['sensor_array_id'])

  await db.schema
    .createTable('media_files')
    .addColumn('id', 'integer', id)
    .addColumn('file', 'varchar(1024)', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type_id', 'integer', (c) => c.notNull().references('media_types.id'))
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('alias', 'varchar(1024)', (c) => c.notNull().defaultTo(''))
    .addColumn('upload_date', ts, (c) => c.notNull())
    .addColumn('has_transcript', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('sensor_id', 'integer', (c) => c.references('sensors.id').onDelete('set null'))
    .addColumn('library_id', 'integer', (c) => c.notNull().references('libraries.id').onDelete('cascade'))
    .addColumn('real_start_time', ts)
    .addColumn('md5', 'char(32)')
    .addColumn('size', 'bigint')
    .execute()
  await index(db, 'media_files', ['library_id'])
  await index(db, 'media_files', ['user_id'])
  await index(db, 'media_files', ['sensor_id'])
  await index(db, 'media_files', ['library_id', 'md5'])

  await db.schema
    .createTable('media_file_metadata')
    .addColumn('id', 'integer', id)
    .addColumn('media_file_id', 'integer', (c) => c.notNull().references('media_files.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('user_editable', 'boolean', (c) => c.notNull().defaultTo(true))
    .execute()
  await index(db, 'media_file_metadata', ['media_file_id'])

  await db.schema
    .createTable('media_file_user_metadata_fields')
    .addColumn('id', 'integer', id)
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('library_id', 'integer', (c) => c.notNull().references('libraries.id').onDelete('cascade'))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addUniqueConstraint('media_file_user_metadata_fields_library_name_key', ['library_id', 'name'])
    .execute()

  await db.schema
    .createTable('media_file_user_metadata')
    .addColumn('id', 'integer', id)
    .addColumn('media_file_id', 'integer', (c) => c.notNull().references('media_files.id').onDelete('cascade'))
    .addColumn('metadata_field_id', 'integer', (c) =>
      c.notNull().references('media_file_user_metadata_fields.id').onDelete('cascade'),
    )
    .addColumn('value', 'text', (c) => c.notNull().defaultTo(''))
    .addUniqueConstraint('media_file_user_metadata_file_field_key', ['media_file_id', 'metadata_field_id'])
    .execute()
  await index(db, 'media_file_user_metadata', ['metadata_field_id'])

  await db.schema
    .createTable('user_settings')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('window_size_in_seconds', 'double precision', (c) => c.notNull())
    .addColumn('spectra_minimum_band_frequency', 'double precision', (c) => c.notNull())
    .addColumn('spectra_maximum_band_frequency', 'double precision', (c) => c.notNull())
    .addColumn('spectra_damping_factor', 'double precision', (c) => c.notNull())
    .addColumn('spectra_num_frequency_bands', 'integer', (c) => c.notNull())
    .addColumn('spectra_num_frames_per_second', 'double precision', (c) => c.notNull())
    .addColumn('show_spectra', 'boolean', (c) => c.notNull())
    .addColumn('show_waveform', 'boolean', (c) => c.notNull())
    .addColumn('show_pitch_trace', 'boolean', (c) => c.notNull())
    .addColumn('load_audio', 'boolean', (c) => c.notNull())
    .addColumn('max_num_audio_files_to_list', 'integer', (c) => c.notNull())
    .addColumn('transcript_format', 'varchar(255)', (c) => c.notNull())
    .$call((t) => {
      for (const view of ['file_view', 'catalog_view', 'tag_view']) {
        t = t
          .addColumn(`${view}_window_size_in_seconds`, 'double precision', (c) => c.notNull())
          .addColumn(`${view}_spectra_minimum_band_frequency`, 'double precision', (c) => c.notNull())
          .addColumn(`${view}_spectra_maximum_band_frequency`, 'double precision', (c) => c.notNull())
          .addColumn(`${view}_spectra_damping_factor`, 'double precision', (c) => c.notNull())
          .addColumn(`${view}_spectra_num_frequency_bands`, 'integer', (c) => c.notNull())
          .addColumn(`${view}_spectra_num_frames_per_second`, 'double precision', (c) => c.notNull())
      }
      return t
    })
    .addUniqueConstraint('user_settings_user_name_key', ['user_id', 'name'])
    .execute()

  await db.schema
    .createTable('projects')
    .addColumn('id', 'integer', id)
    .addColumn('type_id', 'integer', (c) => c.notNull().references('project_types.id'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('creation_date', ts, (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('user_settings_id', 'integer', (c) => c.references('user_settings.id').onDelete('set null'))
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('default_permission_read', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('default_permission_write', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('default_permission_launch_job', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('default_permission_admin', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute()
  await index(db, 'projects', ['user_id'])

  await db.schema
    .createTable('project_media_files')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('media_file_id', 'integer', (c) => c.notNull().references('media_files.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('project_media_files_pk', ['project_id', 'media_file_id'])
    .execute()
  await index(db, 'project_media_files', ['media_file_id'])

  await db.schema
    .createTable('tag_sets')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('library_id', 'integer', (c) => c.references('libraries.id').onDelete('cascade'))
    .addColumn('creation_date', ts, (c) => c.notNull())
    .execute()
  await index(db, 'tag_sets', ['user_id'])
  await index(db, 'tag_sets', ['library_id'])

  await db.schema
    .createTable('tag_classes')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('library_id', 'integer', (c) => c.notNull().references('libraries.id').onDelete('cascade'))
    .addColumn('class_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('display_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .execute()
  await index(db, 'tag_classes', ['library_id'])

  await db.schema
    .createTable('tag_examples')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('tag_set_id', 'integer', (c) => c.notNull().references('tag_sets.id').onDelete('cascade'))
    .addColumn('media_file_id', 'integer', (c) => c.notNull().references('media_files.id').onDelete('cascade'))
    .addColumn('creation_date', ts, (c) => c.notNull())
    .addColumn('start_time', 'double precision', (c) => c.notNull())
    .addColumn('end_time', 'double precision', (c) => c.notNull())
    .addColumn('min_frequency', 'double precision', (c) => c.notNull())
    .addColumn('max_frequency', 'double precision', (c) => c.notNull())
    .execute()
  await index(db, 'tag_examples', ['tag_set_id'])
  await index(db, 'tag_examples', ['media_file_id'])

  await db.schema
    .createTable('tags')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('creation_date', ts, (c) => c.notNull())
    .addColumn('tag_class_id', 'integer', (c) => c.notNull().references('tag_classes.id').onDelete('cascade'))
    .addColumn('tag_example_id', 'integer', (c) => c.references('tag_examples.id').onDelete('set null'))
    .addColumn('tag_set_id', 'integer', (c) => c.notNull().references('tag_sets.id').onDelete('cascade'))
    .addColumn('media_file_id', 'integer', (c) => c.notNull().references('media_files.id').onDelete('cascade'))
    .addColumn('start_time', 'double precision', (c) => c.notNull())
    .addColumn('end_time', 'double precision', (c) => c.notNull())
    .addColumn('min_frequency', 'double precision', (c) => c.notNull())
    .addColumn('max_frequency', 'double precision', (c) => c.notNull())
    .addColumn('parent_tag_id', 'integer', (c) => c.references('tags.id').onDelete('set null'))
    .addColumn('randomly_chosen', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('machine_tagged', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('user_tagged', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('strength', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute()
  await index(db, 'tags', ['tag_set_id', 'id'])
  await index(db, 'tags', ['media_file_id'])
  await index(db, 'tags', ['tag_class_id'])
  await index(db, 'tags', ['user_id'])
  await index(db, 'tags', ['parent_tag_id'])
  await index(db, 'tags', ['tag_example_id'])

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'integer', id)
    .addColumn('name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('type_id', 'integer', (c) => c.notNull().references('job_types.id'))
    .addColumn('creation_date', ts, (c) => c.notNull())
    .addColumn('num_to_complete', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('num_completed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('fraction_completed', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('elapsed_real_time', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('time_to_completion', 'double precision', (c) => c.notNull().defaultTo(-1))
    .addColumn('is_running', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('was_stopped', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_complete', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('was_deleted', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('status_id', 'integer', (c) => c.notNull().defaultTo(2).references('job_status_types.id'))
    .addColumn('requested_status_id', 'integer', (c) => c.references('job_status_types.id'))
    .addColumn('started_date', ts)
    .addColumn('last_status_date', ts)
    .addColumn('parent_job_id', 'integer', (c) => c.references('jobs.id').onDelete('cascade'))
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await index(db, 'jobs', ['user_id'])
  await index(db, 'jobs', ['project_id'])
  await index(db, 'jobs', ['parent_job_id'])
  await index(db, 'jobs', ['status_id'])

  await db.schema
    .createTable('job_parameters')
    .addColumn('id', 'integer', id)
    .addColumn('job_id', 'integer', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull().defaultTo(''))
    .execute()
  await index(db, 'job_parameters', ['job_id'])

  await db.schema
    .createTable('job_result_files')
    .addColumn('id', 'integer', id)
    .addColumn('job_id', 'integer', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('creation_date', ts, (c) => c.notNull())
    .addColumn('result_file', 'varchar(1024)', (c) => c.notNull().defaultTo(''))
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .execute()
  await index(db, 'job_result_files', ['job_id'])

  await db.schema
    .createTable('random_windows')
    .addColumn('id', 'integer', id)
    .addColumn('job_id', 'integer', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('media_file_id', 'integer', (c) => c.notNull().references('media_files.id').onDelete('cascade'))
    .addColumn('start_time', 'double precision', (c) => c.notNull())
    .addColumn('end_time', 'double precision', (c) => c.notNull())
    .execute()
  await index(db, 'random_windows', ['job_id'])
  await index(db, 'random_windows', ['media_file_id'])

  await db.schema
    .createTable('app_user_groups')
    .addColumn('id', 'integer', id)
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('creation_date', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .execute()
  await index(db, 'app_user_groups', ['created_by'])

  await db.schema
    .createTable('app_user_group_users')
    .addColumn('group_id', 'integer', (c) => c.notNull().references('app_user_groups.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('app_user_group_users_pk', ['group_id', 'user_id'])
    .execute()
  await index(db, 'app_user_group_users', ['user_id'])

  await db.schema
    .createTable('app_permissions')
    .addColumn('id', 'integer', id)
    .addColumn('bearer_type', 'varchar(32)', (c) => c.notNull().check(sql`bearer_type in ('user', 'appusergroup')`))
    .addColumn('bearer_id', 'integer', (c) => c.notNull())
    .addColumn('target_type', 'varchar(32)', (c) =>
      c.notNull().check(sql`target_type in ('tagset', 'library', 'appusergroup')`),
    )
    .addColumn('target_id', 'integer', (c) => c.notNull())
    .addColumn('creation_date', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('read', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('write', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('launch_job', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('admin', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute()
  await index(db, 'app_permissions', ['target_type', 'target_id'])
  await index(db, 'app_permissions', ['bearer_type', 'bearer_id'])
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'app_permissions',
    'app_user_group_users',
    'app_user_groups',
    'random_windows',
    'job_result_files',
    'job_parameters',
    'jobs',
    'tags',
    'tag_examples',
    'tag_classes',
    'tag_sets',
    'project_media_files',
    'projects',
    'user_settings',
    'media_file_user_metadata',
    'media_file_user_metadata_fields',
    'media_file_metadata',
    'media_files',
    'sensors',
    'sensor_arrays',
    'libraries',
    'sessions',
    'tokens',
    'user_auth_groups',
    'auth_groups',
    'users',
    'media_types',
    'project_types',
    'job_status_types',
    'job_types',
  ])
    await db.schema.dropTable(t).execute()
}
