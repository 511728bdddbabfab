import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Caller, Scope } from '../../../../server/access.js'
import type { Database } from '../../../../server/db/database.js'
import { checkReferences } from '../../../../server/resources/core/checks.js'
import { accelerators } from '../../../../server/resources/fast/index.js'
import { Records } from '../../../../server/resources/core/records.js'
import { planCheck } from '../../../../server/resources/fast/checks.js'
import { appPermissions } from '../../../../server/resources/appPermission.js'
import { defineResource, type ResourceDef } from '../../../../server/resources/resource.js'
import { tags } from '../../../../server/resources/tag.js'
import { tagSets } from '../../../../server/resources/tagSet.js'
import { mediaFiles } from '../../../../server/resources/mediaFile.js'
import { inlinedIdRule, twoCallers, usernameRule, usersUnder } from '../../../helpers/callers.js'

// The reference and access checks of a write are compiled once per shape with stand-ins for the caller's
// id, the ids named and the new record's values (server/resources/fast/checks.ts, statements.ts). A rule
// that uses anything else of the caller must not be cached across callers: each caller gets the answer
// of its own rule.

let database: Database
let alice: Caller
let bob: Caller

test.before(async () => {
  ;({ database, alice, bob } = await twoCallers())
})
test.after(async () => {
  await database?.close()
})

/** users as a target whose rule is `rule`, and a resource with one reference to it */
function referring(name: string, rule: Scope): ResourceDef<'users'> {
  const target = usersUnder(`${name}Target`, rule)
  return defineResource({
    name,
    title: name,
    table: 'users',
    scope: rule,
    fields: { friend: { type: 'pk', column: 'id', target: () => target } },
  })
}

/** the accelerators the checks are made with: the statement cache is theirs */
const records = new Records(accelerators(true))

/** the errors of naming `id` as `caller` (empty when the reference is readable) */
async function named(def: ResourceDef<'users'>, caller: Caller, id: number): Promise<Record<string, string[]>> {
  return (await checkReferences(database.db, def, caller, [{ friend: id }], null, records))[0]
}

test("a rule using the caller's username is not cached: each caller may name only its own record", async () => {
  const byUsername = referring('byUsername', usernameRule)
  const target = byUsername.fields.friend.target!()
  assert.is(planCheck({ isAdmin: false }, [{ name: 'friend', target, ids: [alice.id] }]), null)
  assert.equal(await named(byUsername, alice, alice.id), {})
  assert.ok((await named(byUsername, bob, alice.id)).friend)
  assert.equal(await named(byUsername, bob, bob.id), {})
  assert.ok((await named(byUsername, alice, bob.id)).friend)
})

test("a rule writing the caller's id into the SQL text is not cached", async () => {
  const inlined = referring('inlined', inlinedIdRule)
  const target = inlined.fields.friend.target!()
  assert.is(planCheck({ isAdmin: false }, [{ name: 'friend', target, ids: [alice.id] }]), null)
  assert.equal(await named(inlined, alice, alice.id), {})
  assert.ok((await named(inlined, bob, alice.id)).friend)
  assert.equal(await named(inlined, bob, bob.id), {})
})

test("the checks of creating a tag are cached: references and the tag set's rule use only the caller's id and the values", () => {
  for (const isAdmin of [false, true]) {
    const plan = planCheck(
      { isAdmin },
      [
        { name: 'tagSet', target: tagSets, ids: [1] },
        { name: 'mediaFile', target: mediaFiles, ids: [2] },
      ],
      { scope: tags.scope, flag: 'write', rows: [{ tag_set_id: 1 }] },
    )
    assert.ok(plan, `admin: ${isAdmin}`)
    assert.ok(plan.at[1].length === 1 && plan.at[2].length === 1, 'each array of ids is one parameter')
    if (!isAdmin) {
      assert.ok(plan.at[0].length >= 1, "the caller's id is a parameter")
      assert.ok(plan.at[3].length >= 1, "the new tag's tag set is a parameter")
    }
  }
})

test('a rule over text and null values is cached per kind of value', () => {
  const rows = [{ target_type: 'library', target_id: 1, created_by: 2, bearer_type: 'user', bearer_id: null }]
  const plan = planCheck({ isAdmin: false }, [], { scope: appPermissions.scope, flag: 'admin', rows })
  assert.ok(plan)
  assert.ok(plan.at[0].length >= 1, "the caller's id is a parameter")
  assert.ok(
    plan.at[1].length >= 1 && plan.at[2].length >= 1,
    "the target's type (text) and id (a number) are parameters",
  )
})

test.run()
