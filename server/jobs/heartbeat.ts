import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.js'

// Each job worker's row in worker_heartbeats: written when it starts, renewed
// every HEARTBEAT_SECONDS, removed when it stops. A worker counts as alive while
// its row is younger than ALIVE_SECONDS (a few missed renewals), so one killed
// outright stops counting on its own. Times are the database's clock, the one
// every process on the database shares.

export const HEARTBEAT_SECONDS = 5
export const ALIVE_SECONDS = 3 * HEARTBEAT_SECONDS
/** rows of workers gone this long are removed by any worker's renewal */
const FORGOTTEN_SECONDS = 24 * 3600

export async function renewHeartbeat(db: Kysely<DB>, workerId: string): Promise<void> {
  await db
    .insertInto('worker_heartbeats')
    .values({ worker_id: workerId })
    .onConflict((oc) => oc.column('worker_id').doUpdateSet({ renewed: sql<Date>`now()` }))
    .execute()
  await db
    .deleteFrom('worker_heartbeats')
    .where('renewed', '<', sql<Date>`now() - make_interval(secs => ${FORGOTTEN_SECONDS})`)
    .execute()
}

export async function removeHeartbeat(db: Kysely<DB>, workerId: string): Promise<void> {
  await db.deleteFrom('worker_heartbeats').where('worker_id', '=', workerId).execute()
}

/** How many workers renewed their heartbeat within ALIVE_SECONDS. */
export async function aliveWorkers(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('worker_heartbeats')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('renewed', '>', sql<Date>`now() - make_interval(secs => ${ALIVE_SECONDS})`)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
