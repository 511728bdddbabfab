import { sql, type Kysely } from 'kysely'
import { hashPassword, secretDigest } from '../server/auth/passwords.js'
import { migrate, openDatabase, type Database } from '../server/db/database.js'
import type { DB, NewRow, TableName } from '../server/db/schema.js'
import { benchArgs, runBench, usageError } from './args.js'
import { GRANTEE, NAMES, OWNER, SIZES, USERS } from './fixture.js'

// The benchmark data set, written straight through the database layer:
//   npm run seed:bench -- --data-dir DIR [--tags N] [--reset]    (embedded database)
//   DATABASE_URL=postgres://... npm run seed:bench -- [--tags N] [--reset]
// Deterministic: the same options give the same rows (ids included, on an empty database).

const USAGE = `usage: npm run seed:bench -- --data-dir DIR [--tags N] [--reset]
       DATABASE_URL=postgres://... npm run seed:bench -- [--tags N] [--reset]`

const { values: opts } = benchArgs(USAGE, {
  options: {
    'data-dir': { type: 'string' },
    tags: { type: 'string', default: String(SIZES.tags) },
    reset: { type: 'boolean', default: false },
  },
})
const TAGS = Number(opts.tags)
if (!Number.isInteger(TAGS) || TAGS < 0 || TAGS > 10_000_000)
  usageError(USAGE, '--tags must be a whole number up to 10^7')

const NOW = '2026-01-01 00:00:00'
/** rows per INSERT: PostgreSQL takes at most 65,535 parameters per statement */
const chunkFor = (columns: number) => Math.floor(30_000 / columns)

async function insertChunked<T extends TableName>(
  db: Kysely<DB>,
  table: T,
  count: number,
  row: (i: number) => NewRow<T>,
) {
  if (count === 0) return
  const size = chunkFor(Object.keys(row(0)).length)
  for (let start = 0; start < count; start += size) {
    const rows: NewRow<T>[] = []
    for (let i = start; i < Math.min(count, start + size); i++) rows.push(row(i))
    await (db as Kysely<any>).insertInto(table).values(rows).execute()
  }
}

async function openTarget(): Promise<Database> {
  const url = process.env.DATABASE_URL
  const dir = opts['data-dir']
  if (!url && !dir) usageError(USAGE, 'give --data-dir DIR (embedded PostgreSQL) or set DATABASE_URL')
  const database = await openDatabase(url ? { url } : { dataDir: dir })
  if (opts.reset) {
    await sql`drop schema public cascade`.execute(database.db)
    await sql`create schema public`.execute(database.db)
  }
  return database
}

async function seed(db: Kysely<DB>) {
  const users: Record<string, number> = {}
  for (const u of USERS) {
    const { id } = await db
      .insertInto('users')
      .values({
        username: u.username,
        password: await hashPassword(u.password),
        is_admin: u.admin,
        is_active: true,
        date_joined: NOW,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    users[u.username] = id
    await db
      .insertInto('tokens')
      .values({ key: u.token, digest: secretDigest(u.token), user_id: id, created: NOW })
      .execute()
  }
  const owner = users[OWNER.username],
    grantee = users[GRANTEE.username]

  const library = (
    await db
      .insertInto('libraries')
      .values({ user_id: owner, name: NAMES.library, creation_date: NOW })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  await insertChunked(db, 'media_files', SIZES.mediaFiles, (i) => ({
    file: `bench/${String(i).padStart(5, '0')}.wav`,
    user_id: owner,
    type_id: 1,
    active: true,
    alias: `file ${i}`,
    upload_date: NOW,
    has_transcript: false,
    sensor_id: null,
    library_id: library,
    real_start_time: null,
    md5: null,
    size: 48_044,
  }))
  const files = (
    await db.selectFrom('media_files').select('id').where('library_id', '=', library).orderBy('id').execute()
  ).map((r) => r.id)
  await insertChunked(db, 'media_file_metadata', files.length * SIZES.metadataPerFile, (i) => ({
    media_file_id: files[Math.floor(i / SIZES.metadataPerFile)],
    name: `meta${i % SIZES.metadataPerFile}`,
    value: `value ${i}`,
    user_editable: i % 2 === 0,
  }))

  const tagSet = async (name: string) =>
    (
      await db
        .insertInto('tag_sets')
        .values({ user_id: owner, name, library_id: library, creation_date: NOW })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
  const readSet = await tagSet(NAMES.tagSet)
  await tagSet(NAMES.writeTagSet)
  await insertChunked(db, 'tag_classes', SIZES.tagClasses, (i) => ({
    user_id: owner,
    library_id: library,
    class_name: `class${i}`,
    display_name: `Class ${i}`,
  }))
  const classes = (
    await db.selectFrom('tag_classes').select('id').where('library_id', '=', library).orderBy('id').execute()
  ).map((r) => r.id)
  await db.transaction().execute((trx) =>
    insertChunked(trx, 'tags', TAGS, (i) => {
      const start = ((i * 7919) % 3000) / 100
      return {
        user_id: owner,
        creation_date: NOW,
        tag_class_id: classes[i % classes.length],
        tag_example_id: null,
        tag_set_id: readSet,
        media_file_id: files[i % files.length],
        start_time: start,
        end_time: start + 0.5,
        min_frequency: 100 + (i % 50) * 10,
        max_frequency: 2000 + (i % 70) * 10,
        parent_tag_id: null,
        randomly_chosen: i % 3 === 0,
        machine_tagged: i % 5 === 0,
        user_tagged: i % 2 === 0,
        strength: (i % 100) / 100,
      }
    }),
  )

  const project = (
    await db
      .insertInto('projects')
      .values({ type_id: 1, name: NAMES.project, creation_date: NOW, user_id: owner, user_settings_id: null })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  await insertChunked(db, 'project_media_files', Math.min(SIZES.projectFiles, files.length), (i) => ({
    project_id: project,
    media_file_id: files[(i * 4) % files.length],
  }))
  await insertChunked(db, 'jobs', SIZES.jobs, (i) => ({
    name: `bench job ${i}`,
    user_id: owner,
    project_id: project,
    type_id: 8,
    creation_date: NOW,
    num_to_complete: 10,
    num_completed: 10,
    fraction_completed: 1,
    status_id: 6,
    is_complete: true,
  }))
  const jobs = (await db.selectFrom('jobs').select('id').where('project_id', '=', project).orderBy('id').execute()).map(
    (r) => r.id,
  )
  await insertChunked(db, 'job_parameters', jobs.length * SIZES.parametersPerJob, (i) => ({
    job_id: jobs[Math.floor(i / SIZES.parametersPerJob)],
    name: `param${i % SIZES.parametersPerJob}`,
    value: String(i),
  }))

  const small = (
    await db
      .insertInto('libraries')
      .values({ user_id: grantee, name: NAMES.smallLibrary, creation_date: NOW })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  await insertChunked(db, 'media_files', SIZES.smallLibraryFiles, (i) => ({
    file: `small/${i}.wav`,
    user_id: grantee,
    type_id: 1,
    upload_date: NOW,
    library_id: small,
    size: 48_044,
  }))
  await db
    .insertInto('app_permissions')
    .values({
      bearer_type: 'user',
      bearer_id: grantee,
      target_type: 'library',
      target_id: library,
      creation_date: NOW,
      created_by: owner,
      read: true,
    })
    .execute()
  return { users, library, tagSet: readSet }
}

await runBench(async () => {
  const started = Date.now()
  const database = await openTarget()
  try {
    await migrate(database.db)
    const existing = await database.db.selectFrom('users').select('id').limit(1).executeTakeFirst()
    if (existing)
      throw new Error('the database already has users: seed an empty one, or pass --reset to empty it first')
    const ids = await seed(database.db)
    // fresh statistics and no dead row versions (the metadata's trigger rewrites each media file's row once,
    // which autovacuum would clean up within its next minute), so the first benchmark run reads and plans
    // like later ones
    await sql`vacuum analyze`.execute(database.db)
    process.stdout.write(
      `seeded ${database.kind}: ${TAGS} tags in tag set ${ids.tagSet}, library ${ids.library}, ` +
        `users ${USERS.map((u) => u.username).join(', ')} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
    )
  } finally {
    await database.close()
  }
})
