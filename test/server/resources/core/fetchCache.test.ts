import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Caller } from '../../../../server/access.js'
import type { Database } from '../../../../server/db/database.js'
import { ApiError } from '../../../../server/http/errors.js'
import { planFetch } from '../../../../server/resources/fast/detail.js'
import { accelerators } from '../../../../server/resources/fast/index.js'
import { libraries } from '../../../../server/resources/library.js'
import { mediaFiles } from '../../../../server/resources/mediaFile.js'
import type { ResourceDef } from '../../../../server/resources/resource.js'
import { Records } from '../../../../server/resources/core/records.js'
import { tags } from '../../../../server/resources/tag.js'
import { tagSets } from '../../../../server/resources/tagSet.js'
import { users } from '../../../../server/resources/users.js'
import { inlinedIdRule, twoCallers, usernameRule, usersUnder } from '../../../helpers/callers.js'

// The compiled statement of a record fetch is cached per resource with stand-ins for the caller's id and
// the record's id (server/resources/fast/detail.ts). A rule that uses anything else of the caller must not
// be cached across callers: each caller gets the answer of its own rule.

let database: Database
let alice: Caller
let bob: Caller

test.before(async () => {
  ;({ database, alice, bob } = await twoCallers())
})
test.after(async () => {
  await database?.close()
})

/** the records the fetches are made through, with accelerators of their own: the statement cache is theirs */
const records = new Records(accelerators(true))

/** the user record of `id` as `caller` fetches it, or 404 */
async function fetched(def: ResourceDef<'users'>, caller: Caller, id: number): Promise<number | 404> {
  try {
    return (await records.fetch({ db: database.db, caller }, def, id, ['read'])).row.id
  } catch (e) {
    if (e instanceof ApiError && e.statusCode === 404) return 404
    throw e
  }
}

test("a rule using the caller's username is not cached: each caller reads only its own record", async () => {
  const byUsername = usersUnder('byUsername', usernameRule)
  assert.is(planFetch(byUsername, { isAdmin: false }, ['read']), null)
  assert.is(await fetched(byUsername, alice, alice.id), alice.id)
  assert.is(await fetched(byUsername, bob, alice.id), 404)
  assert.is(await fetched(byUsername, bob, bob.id), bob.id)
  assert.is(await fetched(byUsername, alice, bob.id), 404)
})

test("a rule writing the caller's id into the SQL text is not cached", async () => {
  const inlined = usersUnder('inlined', inlinedIdRule)
  assert.is(planFetch(inlined, { isAdmin: false }, ['read']), null)
  assert.is(await fetched(inlined, alice, alice.id), alice.id)
  assert.is(await fetched(inlined, bob, alice.id), 404)
  assert.is(await fetched(inlined, bob, bob.id), bob.id)
})

test("the rules of the resources use only the caller's id, so their fetches are cached", async () => {
  for (const def of [libraries, mediaFiles, tagSets, tags, users]) {
    for (const isAdmin of [false, true]) {
      const plan = planFetch(def, { isAdmin }, ['read', 'write'])
      assert.ok(plan, `${def.name} (admin: ${isAdmin}) is cached`)
      assert.ok(plan.at[1].length >= 1)
      if (!isAdmin && def !== users) assert.ok(plan.at[0].length >= 1, `${def.name}: the caller's id is a parameter`)
    }
  }
})

test.run()
