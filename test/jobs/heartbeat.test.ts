import { sql } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ALIVE_SECONDS } from '../../server/jobs/heartbeat.js'
import { Worker } from '../../server/jobs/worker.js'
import { suiteApp } from '../helpers/app.js'
import { waitFor } from '../helpers/jobs.js'

// Every worker keeps a heartbeat row while it runs; /healthz counts the workers heard from lately.

const t = suiteApp(test)
const workers: Worker[] = []
t.beforeClose(() => Promise.all(workers.map((w) => w.stop())))

const alive = async () => (await t.call('GET', '/healthz')).data.workers as number

test('a started worker is counted at once and no longer once stopped; its row is gone', async () => {
  assert.is(await alive(), 0)
  const a = new Worker({ db: t.db, config: t.app.config, pollMs: 20, id: 'worker-a' }).start()
  const b = new Worker({ db: t.db, config: t.app.config, pollMs: 20, id: 'worker-b' }).start()
  workers.push(a, b)
  await waitFor('both workers to be counted', async () => (await alive()) === 2)
  await a.stop()
  assert.is(await alive(), 1)
  const rows = await t.db.selectFrom('worker_heartbeats').select('worker_id').execute()
  assert.equal(
    rows.map((r) => r.worker_id),
    ['worker-b'],
  )
  await b.stop()
  assert.is(await alive(), 0)
})

test('a worker that stopped renewing (killed outright) stops counting; a renewing one is renewed', async () => {
  const w = new Worker({ db: t.db, config: t.app.config, pollMs: 20, id: 'worker-c', heartbeatMs: 50 }).start()
  workers.push(w)
  await waitFor('the worker to be counted', async () => (await alive()) === 1)
  await t.db.insertInto('worker_heartbeats').values({ worker_id: 'killed' }).execute()
  assert.is(await alive(), 2)
  await t.db
    .updateTable('worker_heartbeats')
    .set({ renewed: sql<Date>`now() - make_interval(secs => ${ALIVE_SECONDS + 1})` })
    .execute()
  // the running worker renews its row within its heartbeat; the killed one's stays old
  await waitFor('the running worker to renew its heartbeat', async () => (await alive()) === 1)
  const killed = await t.db
    .selectFrom('worker_heartbeats')
    .select('worker_id')
    .where('worker_id', '=', 'killed')
    .execute()
  assert.is(killed.length, 1)
  await w.stop()
  assert.is(await alive(), 0)
})

test.run()
