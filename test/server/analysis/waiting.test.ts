import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { RUNNABLE_TYPE_PARAMS } from '../../../server/analysis/catalog.js'
import { waitingFor, waitingForSql, waitsForNothing } from '../../../server/analysis/waiting.js'
import { localTimestamp } from '../../../server/db/time.js'
import { twoCallers } from '../../helpers/callers.js'
import { makeProject } from '../../helpers/jobs.js'

// What a job waits for has two twins: the worker's (waitingFor, over the names it was given) and the SQL that
// lists and the claim read (waitingForSql, over the parameters kept in the job's row). Every runnable type,
// with no parameters, each one alone, all but each one and all of them, with and without a project, read by
// both, agrees.

/** the parameter sets tried for a type: its own names and those that name media without a project */
function nameSets(names: string[]): string[][] {
  const sets = [[], names, ...names.map((n) => [n]), ...names.map((n) => names.filter((m) => m !== n))]
  const seen = new Set<string>()
  return sets.filter((s) => !seen.has(s.join()) && seen.add(s.join()))
}

test('the SQL of what a job waits for agrees with the worker’s, for every type and parameter set', async () => {
  const { database, alice } = await twoCallers()
  try {
    const { db } = database
    const project = await makeProject(db, alice)
    const made: Array<{ id: number; expected: string[] }> = []
    for (const type of RUNNABLE_TYPE_PARAMS) {
      const names = [...new Set([...Object.keys(type.params), 'mediaFileId', 'library'])]
      for (const given of nameSets(names)) {
        for (const projectId of [project, null]) {
          const job = await db
            .insertInto('jobs')
            .values({
              name: `${type.name} ${given.join(',')}`,
              user_id: alice.id,
              project_id: projectId,
              type_id: type.id,
              creation_date: localTimestamp(),
            })
            .returning('id')
            .executeTakeFirstOrThrow()
          if (given.length)
            await db
              .insertInto('job_parameters')
              .values(given.map((name) => ({ job_id: job.id, name, value: '1' })))
              .execute()
          made.push({ id: job.id, expected: waitingFor(type.id, projectId, given) })
        }
      }
    }
    const read = await db
      .selectFrom('jobs as j')
      .select(['j.id', waitingForSql('j').as('waiting'), waitsForNothing('j').as('ready')])
      .orderBy('j.id')
      .execute()
    assert.is(read.length, made.length)
    const waitingSome = made.filter((m) => m.expected.length).length
    assert.ok(waitingSome > 20 && waitingSome < made.length - 20, `${waitingSome} of ${made.length} jobs wait`)
    for (const [i, m] of made.entries()) {
      assert.equal({ id: read[i].id, waiting: read[i].waiting }, { id: m.id, waiting: m.expected })
      assert.is(read[i].ready, m.expected.length === 0)
    }
  } finally {
    await database.close()
  }
})

test.run()
