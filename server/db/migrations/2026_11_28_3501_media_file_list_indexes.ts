import type { Kysely } from 'kysely'

// mediaFile/ filtered by library or by sensor, at hundreds of thousands of files (docs/decisions.md, "Lists at
// scale"). The list's rule is `library_id = any(the libraries the caller may read)`:
// - ?library=: (library_id, id) reads the page's files in id order and stops, where (library_id) made the
//   database walk the primary key past other libraries' files (or read the library's files and sort them);
// - ?sensor=: (sensor_id, library_id) holds both conditions, where (sensor_id) was ANDed with a bitmap of the
//   readable libraries' files (every file of the caller's: 510,000 entries for 500 files, 140 ms).
// They serve the equality lookups and the ON DELETE cascades the single-column indexes served; (library_id)
// was besides a prefix of (library_id, md5), (library_id, alias) and (library_id, real_start_time).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('media_files_library_id_id_idx').on('media_files').columns(['library_id', 'id']).execute()
  await db.schema
    .createIndex('media_files_sensor_id_library_id_idx')
    .on('media_files')
    .columns(['sensor_id', 'library_id'])
    .execute()
  await db.schema.dropIndex('media_files_library_id_idx').execute()
  await db.schema.dropIndex('media_files_sensor_id_idx').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('media_files_library_id_idx').on('media_files').column('library_id').execute()
  await db.schema.createIndex('media_files_sensor_id_idx').on('media_files').column('sensor_id').execute()
  await db.schema.dropIndex('media_files_library_id_id_idx').execute()
  await db.schema.dropIndex('media_files_sensor_id_library_id_idx').execute()
}
