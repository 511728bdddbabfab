import { sql, type ControlledTransaction } from 'kysely'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { DB } from '../../../../server/db/schema.js'
import { suiteApp, type TestUser } from '../../../helpers/app.js'
import { grant, makeGroup, makeTag } from '../../../helpers/records.js'
import { makeRecords, tagRefs } from '../../../helpers/world.js'

// On the plain path a write is one transaction with its checks (server/resources/core/write.ts, checkedWrite): a
// grant revoked, or a group membership ended, while a write is under way either refuses the write or waits for it
// to commit. Each case holds the write between its checks and its commit (a lock its INSERT, UPDATE or DELETE
// needs), revokes meanwhile, then lets it go: no write may commit after the revoke that took away its right.

const API = '/api/v0'
// the plain path for single creates too
const t = suiteApp(test, { accelerators: false })
let alice: TestUser
let bob: TestUser

test.before(async () => {
  alice = await t.user('granter')
  bob = await t.user('grantee')
})

type Revoke = 'grant deleted' | 'membership ended'
type Write = 'create' | 'bulk create' | 'update' | 'delete'

/** Bob holds write on a library of Alice's, directly or through a group; `revoke` takes it away. */
async function grantedLibrary(how: Revoke) {
  const records = await makeRecords(t, alice)
  const refs = tagRefs(records)
  const group = how === 'membership ended' ? await makeGroup(t.db, alice, [bob]) : null
  const grantId = await grant(t.db, alice, group ? { group } : { user: bob.id }, { library: records.library }, [
    'read',
    'write',
  ])
  const tag = await makeTag(t.db, bob, refs)
  const revoke = () =>
    t.db.transaction().execute(async (trx) => {
      if (group)
        await trx
          .deleteFrom('app_user_group_users')
          .where('group_id', '=', group)
          .where('user_id', '=', bob.id)
          .execute()
      else await trx.deleteFrom('app_permissions').where('id', '=', grantId).execute()
    })
  return { refs, tag, revoke }
}

const tagBody = (refs: ReturnType<typeof tagRefs>) => ({
  ...refs,
  startTime: 1,
  endTime: 2,
  minFrequency: 100,
  maxFrequency: 200,
})

/** Sessions of this database waiting for a lock. */
const lockWaits = async () =>
  Number(
    (
      await sql<{ n: string }>`select count(*) as n from pg_stat_activity
  where datname = current_database() and wait_event_type = 'Lock'`.execute(t.db)
    ).rows[0].n,
  )

async function until(what: string, ok: () => Promise<boolean>) {
  for (let i = 0; i < 500; i++) {
    if (await ok()) return
    await new Promise((r) => setTimeout(r, 10))
  }
  assert.unreachable(`waited 5 s for ${what}`)
}

for (const how of ['grant deleted', 'membership ended'] as Revoke[]) {
  for (const write of ['create', 'bulk create', 'update', 'delete'] as Write[]) {
    test(`${write}, its right revoked (${how}) between its checks and its commit: refused, or committed before the revoke`, async () => {
      const { refs, tag, revoke } = await grantedLibrary(how)
      // a lock the write needs and its checks do not: the tag set row for an INSERT (its reference trigger
      // takes KEY SHARE), the tag's row for an UPDATE or DELETE
      const hold: ControlledTransaction<DB> = await t.db.startTransaction().execute()
      const request = () => {
        if (write === 'create') return t.call('POST', `${API}/tag/`, { as: bob, body: tagBody(refs) })
        if (write === 'bulk create')
          return t.call('POST', `${API}/tag/`, { as: bob, body: [tagBody(refs), tagBody(refs)] })
        if (write === 'update') return t.call('PATCH', `${API}/tag/${tag}/`, { as: bob, body: { startTime: 0.5 } })
        return t.call('DELETE', `${API}/tag/${tag}/`, { as: bob })
      }
      try {
        if (write.endsWith('create'))
          await sql`select id from tag_sets where id = ${refs.tagSet} for update`.execute(hold)
        else await sql`select id from tags where id = ${tag} for update`.execute(hold)
        const answer = request()
        await until('the write to reach the held lock', async () => (await lockWaits()) >= 1)

        let revoked = false
        const revoking = revoke().then(() => {
          revoked = true
        })
        await until('the revoke to commit or wait', async () => revoked || (await lockWaits()) >= 2)
        const revokedFirst = revoked
        await hold.rollback().execute()
        const res = await answer
        await revoking

        if (res.statusCode >= 200 && res.statusCode < 300) {
          assert.not.ok(
            revokedFirst,
            `${write} answered ${res.statusCode} though its right was revoked before it could commit`,
          )
        } else {
          assert.ok([403, 404].includes(res.statusCode), `${write}: ${res.statusCode} ${res.body}`)
        }
        // either way the tag is as the answer says
        const stored = await t.db
          .selectFrom('tags')
          .select(['id', 'start_time'])
          .where('id', '=', tag)
          .executeTakeFirst()
        if (write === 'delete') assert.is(!stored, res.statusCode === 204)
        if (write === 'update') assert.is(stored?.start_time, res.statusCode === 200 ? 0.5 : 1)
      } finally {
        if (!hold.isCommitted && !hold.isRolledBack) await hold.rollback().execute()
      }
    })
  }
}

test('a write whose right was revoked before it began is refused, and stores nothing', async () => {
  const { refs, tag, revoke } = await grantedLibrary('grant deleted')
  await revoke()
  const before = await t.db.selectFrom('tags').select('id').where('tag_set_id', '=', refs.tagSet).execute()
  for (const res of [
    await t.call('POST', `${API}/tag/`, { as: bob, body: tagBody(refs) }),
    await t.call('POST', `${API}/tag/`, { as: bob, body: [tagBody(refs)] }),
    await t.call('PATCH', `${API}/tag/${tag}/`, { as: bob, body: { startTime: 0.5 } }),
    await t.call('DELETE', `${API}/tag/${tag}/`, { as: bob }),
  ])
    assert.ok([400, 403, 404].includes(res.statusCode), `${res.statusCode} ${res.body}`)
  const after = await t.db
    .selectFrom('tags')
    .select(['id', 'start_time'])
    .where('tag_set_id', '=', refs.tagSet)
    .execute()
  assert.equal(
    after.map((r) => r.id),
    before.map((r) => r.id),
  )
  assert.is(after.find((r) => r.id === tag)?.start_time, 1)
})

test.run()
