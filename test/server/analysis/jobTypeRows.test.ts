import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ALL_JOB_TYPES, JOB_TYPE_PARAMS, RUNNABLE_TYPES } from '../../../server/analysis/catalog.js'
import { checkJobTypeRows, JobTypeRowsDiffer } from '../../../server/analysis/jobTypeRows.js'
import { jobTypes } from '../../../server/analysis/types/index.js'
import { testDatabase } from '../../helpers/db.js'

// The list of job types is made once, from the catalog's declarations (docs/architecture.md, adding a job
// type): the runners are found through it, and the job_types rows of the first migration are checked against
// it at every start, naming the difference.

test('each runnable type is declared under its own name, and runs as declared', () => {
  for (const [name, t] of Object.entries(RUNNABLE_TYPES)) {
    assert.is(t.name, name)
    const runner = jobTypes.get(t.id)
    assert.ok(runner, `no runner for ${name}`)
    assert.is(runner.name, name)
    assert.equal(runner.params, t.params)
  }
  assert.is(jobTypes.size, Object.keys(RUNNABLE_TYPES).length)
  assert.ok(
    JOB_TYPE_PARAMS.every((t) => !t.childOnly),
    'a child-only type offered to clients',
  )
  assert.ok(JOB_TYPE_PARAMS.length === jobTypes.size - 1, 'the one child-only type is the one not offered')
})

test('a migrated database agrees with the catalog; a row changed, added or missing is named at start', async () => {
  const database = await testDatabase()
  try {
    const { db } = database
    await checkJobTypeRows(db)
    const rows = await db.selectFrom('job_types').select(['id', 'name']).orderBy('id').execute()
    assert.equal(
      rows,
      ALL_JOB_TYPES.map(({ id, name }) => ({ id, name })),
    )

    await db.updateTable('job_types').set({ name: 'Tally' }).where('id', '=', 8).execute()
    await db.insertInto('job_types').values({ id: 40, name: 'Spare' }).execute()
    await db.deleteFrom('job_types').where('id', '=', 5).execute()
    const refusal = await checkJobTypeRows(db).then(
      () => null,
      (e: unknown) => e,
    )
    assert.instance(refusal, JobTypeRowsDiffer)
    const message = (refusal as Error).message
    assert.match(message, 'type 8 is Test in the catalog but Tally in the database')
    assert.match(message, 'type 5 Transcription has no row')
    assert.match(message, 'row 40 Spare is no type of the catalog')
  } finally {
    await database.close()
  }
})

test.run()
