import { sql, type Kysely } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import * as migration from '../../../server/db/migrations/2026_11_24_0004_embedded_lists_json.js'
import type { DB } from '../../../server/db/schema.js'
import { toJson } from '../../../server/http/fields.js'
import {
  EMBEDDED_LISTS,
  JOB_PARAMETERS,
  MEDIA_FILE_METADATA,
  recordFields,
  type EmbeddedList,
} from '../../../server/resources/embeddedLists.js'
import { jobParameters } from '../../../server/resources/jobParameters.js'
import { metaData } from '../../../server/resources/mediaMetadata.js'
import type { ResourceDef } from '../../../server/resources/resource.js'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeJob, makeProject } from '../../helpers/jobs.js'
import { makeLibrary, makeMediaFile, makeMetaData } from '../../helpers/records.js'

// A media file keeps the JSON array of its metadata records and a job that of its parameters (migration
// 2026_11_24_0004), for the lists that embed them: after every insert, update and delete, and when two
// transactions change one parent's records at once, the array must be the records the server renders from
// the field declarations, in the order of their ids; the triggers must write the fields the embedded lists
// declare; and the migration must undo and redo cleanly.

const API = '/api/v0'
const t = suiteApp(test)
let owner: TestUser
let library: number
let project: number

test.before(async () => {
  owner = await t.user('embedded-json-owner')
  library = await makeLibrary(t.db, owner)
  project = await makeProject(t.db, owner)
})

/** The stored array of media file `id`, as text, and its records as toJson renders them. */
async function metadataOf(db: Kysely<DB>, id: number): Promise<{ stored: string; rendered: string }> {
  const file = await db
    .selectFrom('media_files')
    .select(sql<string>`metadata_json::text`.as('stored'))
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  const rows = await db
    .selectFrom('media_file_metadata')
    .select(['id', 'media_file_id', 'name', 'value', 'user_editable'])
    .where('media_file_id', '=', id)
    .orderBy('id')
    .execute()
  return { stored: file.stored, rendered: JSON.stringify(rows.map((r) => toJson(metaData.compiled.fields, r))) }
}

async function parametersOf(db: Kysely<DB>, id: number): Promise<{ stored: string; rendered: string }> {
  const job = await db
    .selectFrom('jobs')
    .select(sql<string>`parameters_json::text`.as('stored'))
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  const rows = await db
    .selectFrom('job_parameters')
    .select(['id', 'job_id', 'name', 'value'])
    .where('job_id', '=', id)
    .orderBy('id')
    .execute()
  return { stored: job.stored, rendered: JSON.stringify(rows.map((r) => toJson(jobParameters.compiled.fields, r))) }
}

async function agrees(
  of: { stored: string; rendered: string } | Promise<{ stored: string; rendered: string }>,
  what: string,
) {
  const { stored, rendered } = await of
  assert.is(stored, rendered, what)
}

/** Each embedded list with the declaration of its child resource. */
const CHILDREN: Array<[EmbeddedList, ResourceDef]> = [
  [MEDIA_FILE_METADATA, metaData as unknown as ResourceDef],
  [JOB_PARAMETERS, jobParameters as unknown as ResourceDef],
]

test('every embedded list is paired with its child declaration, of its table', () => {
  assert.equal(
    CHILDREN.map(([list]) => list),
    [...EMBEDDED_LISTS],
  )
  for (const [list, child] of CHILDREN) assert.is(child.table, list.childTable)
})

test('the triggers write the fields declared for each embedded list, in their order (server/resources/embeddedLists.ts)', async () => {
  for (const [list, child] of CHILDREN) {
    const fn = `${list.parentTable}_${list.jsonColumn}`
    const source = await sql<{ src: string }>`select prosrc as src from pg_proc where proname = ${fn}`.execute(t.db)
    assert.is(source.rows.length, 1, `the function ${fn} of the migration`)
    const written = [...source.rows[0].src.matchAll(/x\."([^"]+)" as "([^"]+)"/g)].map((m) => [m[1], m[2]])
    assert.equal(
      written,
      recordFields(child),
      `${list.field}: a changed declaration needs a new migration replacing ${fn}`,
    )
  }
})

test('the arrays follow inserts, updates and deletes of the records, text for text', async () => {
  const file = await makeMediaFile(t.db, owner, library)
  await agrees(metadataOf(t.db, file), 'no metadata')
  assert.is((await metadataOf(t.db, file)).stored, '[]')
  const size = await makeMetaData(t.db, file, 'fileSize', '1000')
  await makeMetaData(t.db, file, 'note "quoted"\n', 'tab\tand \\ backslash </script> é 😀', true)
  await agrees(metadataOf(t.db, file), 'after inserts')
  await t.db
    .updateTable('media_file_metadata')
    .set({ value: 'changed "value"', user_editable: false })
    .where('id', '=', size)
    .execute()
  await agrees(metadataOf(t.db, file), 'after an update')
  const other = await makeMediaFile(t.db, owner, library)
  await t.db.updateTable('media_file_metadata').set({ media_file_id: other }).where('id', '=', size).execute()
  await agrees(metadataOf(t.db, file), 'the file a record left')
  await agrees(metadataOf(t.db, other), 'the file a record moved to')
  await t.db.deleteFrom('media_file_metadata').where('media_file_id', '=', file).execute()
  assert.is((await metadataOf(t.db, file)).stored, '[]')

  const job = await makeJob(t.db, owner, project, 1, { threshold: '0.5', 'quoted "name"\n': 'back\\slash' })
  await agrees(parametersOf(t.db, job), 'a new job')
  const param = await t.db
    .selectFrom('job_parameters')
    .select('id')
    .where('job_id', '=', job)
    .where('name', '=', 'threshold')
    .executeTakeFirstOrThrow()
  const res = await t.call('PATCH', `${API}/jobParameters/${param.id}/`, { as: owner, body: { value: '0.75' } })
  assert.is(res.statusCode, 200, res.body)
  await agrees(parametersOf(t.db, job), 'after a change through the API')
  const listed = (await t.call('GET', `${API}/jobs/`, { as: owner })).data.results.find(
    (j: { id: number }) => j.id === job,
  )
  assert.equal(
    listed.jobparameters_set.find((p: { id: number }) => p.id === param.id),
    { id: param.id, job, name: 'threshold', value: '0.75' },
  )
})

test('two transactions adding records to one media file at once: the array has both', async () => {
  const file = await makeMediaFile(t.db, owner, library)
  let inserted!: () => void
  const firstInserted = new Promise<void>((resolve) => {
    inserted = resolve
  })
  let release!: () => void
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  const first = t.db.transaction().execute(async (trx) => {
    await trx.insertInto('media_file_metadata').values({ media_file_id: file, name: 'first', value: '1' }).execute()
    inserted()
    await held
  })
  await firstInserted
  // the second waits for the first's lock on the media file, then writes the array with both records
  const second = t.db.transaction().execute(async (trx) => {
    await trx.insertInto('media_file_metadata').values({ media_file_id: file, name: 'second', value: '2' }).execute()
  })
  await new Promise((resolve) => setTimeout(resolve, 200))
  release()
  await Promise.all([first, second])
  await agrees(metadataOf(t.db, file), 'both transactions committed')
  assert.equal(
    JSON.parse((await metadataOf(t.db, file)).stored).map((m: { name: string }) => m.name),
    ['first', 'second'],
  )
})

test('the migration undoes and redoes, and a truncated table leaves empty arrays', async () => {
  const file = await makeMediaFile(t.db, owner, library)
  await makeMetaData(t.db, file, 'sampleRate', '44100')
  const job = await makeJob(t.db, owner, project, 1, { threshold: '0.25' })
  const rolledBack = new Error('rolled back')
  const done = t.db.transaction().execute(async (trx) => {
    const db = trx as unknown as Kysely<DB>
    await migration.down(db)
    const columns = await sql<{ n: number }>`select count(*)::int as n from information_schema.columns
      where (table_name, column_name) in (('media_files', 'metadata_json'), ('jobs', 'parameters_json'))`.execute(db)
    assert.is(columns.rows[0].n, 0)
    await migration.up(db)
    await agrees(metadataOf(db, file), 'metadata after up')
    await agrees(parametersOf(db, job), 'parameters after up')
    assert.not.equal((await metadataOf(db, file)).stored, '[]')
    await sql`truncate media_file_metadata`.execute(db)
    assert.is((await metadataOf(db, file)).stored, '[]')
    throw rolledBack
  })
  await done.then(
    () => assert.unreachable('the transaction was to roll back'),
    (e) => assert.is(e, rolledBack),
  )
})

test.run()
