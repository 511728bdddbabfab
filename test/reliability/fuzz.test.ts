import fc from 'fast-check'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp } from '../helpers/app.js'
import { errorShapeProblem, hostileRequests, routeTargets } from '../helpers/hostile.js'
import { databaseState, makeWorld, storedFiles, walPosition, type World } from '../helpers/world.js'

// Hostile input against every route the app registers (taken from its route
// table, so a new route is fuzzed without touching this file), by the owner of
// every record and by an anonymous caller. Fixed seed, bounded runs: the same
// requests on every run.

const SEED = 20261122
const RUNS = Number(process.env.MAS_FUZZ_RUNS ?? 4)

const t = suiteApp(test, { maxUploadBytes: 4 * 1024 * 1024 })
let w: World

test.before(async () => {
  w = await makeWorld(t)
})

/** Every table's rows and every stored file, summed up; `wal` answers cheaply when nothing at all was written. */
interface Snapshot {
  wal: string
  db: string
  files: string
}
async function snapshot(): Promise<Snapshot> {
  return { wal: await walPosition(t), db: await databaseState(t), files: storedFiles(t).join('\n') }
}

/** What is stored now: `before` itself while nothing at all was written since (every table is read only when the
 * WAL moved; its position is read first, so a write meanwhile moves it past the one kept). */
async function current(before: Snapshot): Promise<Snapshot> {
  const wal = await walPosition(t)
  const files = storedFiles(t).join('\n')
  return wal === before.wal && files === before.files ? before : { wal, files, db: await databaseState(t) }
}

test('every route x {owner, anonymous}: no 5xx, JSON 4xx in the API shapes, a rejected request changes nothing', async () => {
  const targets = routeTargets(t.app.routeTable)
  assert.ok(targets.length >= 40, `only ${targets.length} routes found`)
  const callers = [
    { name: 'owner', auth: w.auth.owner },
    { name: 'anonymous', auth: w.auth.anonymous },
  ]
  // deletes last, so that the world's records live through the other requests
  const plan = targets
    .flatMap((target) => target.methods.flatMap((method) => callers.map((caller) => ({ target, method, caller }))))
    .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'))
  const real = { ids: [...new Set(Object.values(w.ids))], names: Object.values(w.files) }
  let before = await snapshot()
  let requests = 0
  const statuses = new Map<number, number>()
  const failures: string[] = []
  for (const [i, { target, method, caller }] of plan.entries()) {
    await fc.assert(
      fc.asyncProperty(hostileRequests(target, method, caller.auth, real), async (r) => {
        const res = await t.app.inject({ method: r.method as any, url: r.url, headers: r.headers, payload: r.payload })
        requests++
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
        const where = `${caller.name}: ${r.label} -> ${res.statusCode} ${res.body.slice(0, 300)}`
        if (res.statusCode >= 500) failures.push(`5xx for ${where}`)
        if (res.statusCode >= 400 && r.method !== 'HEAD') {
          if (!/^application\/json/.test(String(res.headers['content-type']))) failures.push(`not JSON: ${where}`)
          else {
            const problem = errorShapeProblem(JSON.parse(res.body))
            if (problem) failures.push(`error body ${problem}: ${where}`)
          }
        }
        const after = await current(before)
        if (res.statusCode >= 400 && (after.db !== before.db || after.files !== before.files))
          failures.push(`a rejected request changed the stored data: ${where}`)
        before = after
      }),
      { seed: SEED + i, numRuns: RUNS },
    )
  }
  // every failure at once: a request that breaks one rule often shows a shared cause
  if (failures.length)
    console.error(
      failures
        .slice(0, 40)
        .map((f) => f.slice(0, 600))
        .join('\n'),
    )
  assert.is(failures.length, 0, `${failures.length} hostile requests broke a rule (listed above)`)
  assert.ok(requests >= plan.length * RUNS)
  // the fuzzer reached past authentication and validation, not only 401s
  for (const s of [200, 400, 401, 404])
    assert.ok((statuses.get(s) ?? 0) > 0, `no ${s} answers among ${JSON.stringify([...statuses])}`)
})

test.run()
