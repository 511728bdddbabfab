import { sql, type Kysely } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import * as migration from '../../server/db/migrations/2026_11_24_0004_embedded_record_json.js'
import type { DB } from '../../server/db/schema.js'
import { toJson } from '../../server/http/fields.js'
import { jobParameters } from '../../server/resources/jobParameters.js'
import { metaData } from '../../server/resources/mediaMetadata.js'
import { suiteApp, type TestUser } from '../helpers/app.js'
import { makeJob, makeProject } from '../helpers/jobs.js'
import { makeLibrary, makeMediaFile, makeMetaData } from '../helpers/records.js'

// The JSON of a media file metadata record and of a job parameter is kept in its row by the database
// (migration 2026_11_24_0004), for the lists that embed them: it must be the record the server renders from
// the field declarations, after every INSERT and UPDATE, and the migration must undo and redo cleanly.

const API = '/api/v0'
const t = suiteApp(test)
let owner: TestUser
let mediaFile: number
let job: number

test.before(async () => {
  owner = await t.user('stored-json-owner')
  mediaFile = await makeMediaFile(t.db, owner, await makeLibrary(t.db, owner))
  job = await makeJob(t.db, owner, await makeProject(t.db, owner), 1, { threshold: '0.5', 'quoted "name"\n': 'back\\slash\ttab é 😀' })
})

/** Every row's stored JSON is, text for text, what toJson renders of the row as JSON.stringify writes it. */
async function storedIsRendered(db: Kysely<DB>) {
  const stored = sql<string>`record_json::text`.as('stored')
  const meta = await db.selectFrom('media_file_metadata').select(['id', 'media_file_id', 'name', 'value', 'user_editable', stored])
    .where('media_file_id', '=', mediaFile).execute()
  const params = await db.selectFrom('job_parameters').select(['id', 'job_id', 'name', 'value', stored]).where('job_id', '=', job).execute()
  assert.ok(meta.length >= 2 && params.length >= 2)
  for (const row of meta) assert.is(row.stored, JSON.stringify(toJson(metaData.fields, row)), `metadata ${row.id}`)
  for (const row of params) assert.is(row.stored, JSON.stringify(toJson(jobParameters.fields, row)), `parameter ${row.id}`)
}

test('the stored JSON of a record is the record rendered, after an insert and after updates', async () => {
  await makeMetaData(t.db, mediaFile, 'fileSize', '1000')
  await makeMetaData(t.db, mediaFile, 'note "quoted"\n', 'tab\tand \\ backslash </script>', true)
  await storedIsRendered(t.db)
  await t.db.updateTable('media_file_metadata').set({ value: 'changed "value"', user_editable: false }).where('media_file_id', '=', mediaFile).execute()
  const param = await t.db.selectFrom('job_parameters').select('id').where('job_id', '=', job).where('name', '=', 'threshold').executeTakeFirstOrThrow()
  const res = await t.call('PATCH', `${API}/jobParameters/${param.id}/`, { as: owner, body: { value: '0.75' } })
  assert.is(res.statusCode, 200, res.body)
  await storedIsRendered(t.db)
  const listed = (await t.call('GET', `${API}/jobs/`, { as: owner })).data.results.find((j: { id: number }) => j.id === job)
  assert.equal(listed.jobparameters_set.find((p: { id: number }) => p.id === param.id), { id: param.id, job, name: 'threshold', value: '0.75' })
})

test('the migration undoes and redoes: down drops the column, up writes it again for every row', async () => {
  await t.db.transaction().execute(async (trx) => {
    const db = trx as unknown as Kysely<DB>
    await migration.down(db)
    const columns = await sql<{ n: number }>`select count(*)::int as n from information_schema.columns
      where column_name = 'record_json' and table_name in ('media_file_metadata', 'job_parameters')`.execute(db)
    assert.is(columns.rows[0].n, 0)
    await migration.up(db)
    await storedIsRendered(db)
  })
})

test.run()
