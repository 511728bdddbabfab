import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { everyone, ownedOnly, type Caller, type Scope } from '../../../../server/access.js'
import type { Database } from '../../../../server/db/database.js'
import { localTimestamp } from '../../../../server/db/time.js'
import { createBatches, insertChecked, insertPlan } from '../../../../server/resources/fast/create.js'
import { NarrowedFirst } from '../../../../server/resources/fast/narrowed.js'
import { StatementCache, type Plan } from '../../../../server/resources/fast/statements.js'
import { fetchRecord } from '../../../../server/resources/core/read.js'
import { libraries } from '../../../../server/resources/library.js'
import { defineResource, type ResourceDef } from '../../../../server/resources/resource.js'
import { tags } from '../../../../server/resources/tag.js'
import { inlinedIdRule, twoCallers, usernameRule, usersUnder } from '../../../helpers/callers.js'
import { grant, makeLibrary } from '../../../helpers/records.js'

// A single create's checks and INSERT are one statement, compiled once per shape with stand-ins
// (server/resources/fast/create.ts): it inserts only when every check passes, and a rule that uses
// anything else of the caller than its id is not cached across callers.

let database: Database
let alice: Caller
let bob: Caller

test.before(async () => {
  ;({ database, alice, bob } = await twoCallers())
})
test.after(async () => {
  await database?.close()
})

/** groups naming a user (as their creator) whom the caller may read under `rule` */
function groupsNaming(name: string, rule: Scope): ResourceDef<'app_user_groups'> {
  const target = usersUnder(`${name}Target`, rule)
  return defineResource({
    name,
    title: name,
    table: 'app_user_groups',
    scope: everyone,
    stamps: ['creation_date'],
    fields: {
      id: { type: 'integer', column: 'id', readOnly: true },
      name: { type: 'string', column: 'name' },
      creator: { type: 'pk', column: 'created_by', target: () => target },
    },
  })
}

/** what the accelerators keep for single creates */
const state = { plans: new StatementCache<Plan>(256), narrowed: new NarrowedFirst(), batches: createBatches() }

const groupRow = (groupName: string, creator: number) => ({
  name: groupName,
  created_by: creator,
  creation_date: localTimestamp(),
})

/** the group created by `caller` naming `creator`, or null when nothing was inserted */
async function create(def: ResourceDef<'app_user_groups'>, caller: Caller, groupName: string, creator: number) {
  const inserted = await insertChecked(
    state,
    database.db,
    def,
    caller,
    { name: groupName, creator },
    groupRow(groupName, creator),
    undefined,
  )
  // these groups have no embed: the database writes the answer's JSON
  if (inserted && !('json' in inserted)) assert.unreachable(`${groupName}: inserted as a row`)
  const row = inserted && 'json' in inserted ? { created_by: JSON.parse(inserted.json).creator as number } : null
  const stored = await database.db.selectFrom('app_user_groups').select('id').where('name', '=', groupName).execute()
  assert.is(stored.length, row ? 1 : 0, `${groupName}: stored exactly when returned`)
  return row
}

test("a rule using the caller's username is not cached, and inserts only for the caller it allows", async () => {
  const byUsername = groupsNaming('byUsername', usernameRule)
  assert.is(insertPlan(byUsername, { isAdmin: false }, { name: 'g', creator: alice.id }, groupRow('g', alice.id)), null)
  assert.is((await create(byUsername, alice, 'u1', alice.id))?.created_by, alice.id)
  assert.is(await create(byUsername, bob, 'u2', alice.id), null)
  assert.is((await create(byUsername, bob, 'u3', bob.id))?.created_by, bob.id)
})

test("a rule writing the caller's id into the SQL text is not cached", async () => {
  const inlined = groupsNaming('inlined', inlinedIdRule)
  assert.is(insertPlan(inlined, { isAdmin: false }, { name: 'g', creator: alice.id }, groupRow('g', alice.id)), null)
  assert.is(await create(inlined, bob, 'i1', alice.id), null)
  assert.is((await create(inlined, bob, 'i2', bob.id))?.created_by, bob.id)
})

test("a rule using only the caller's id is cached, and the cached statement answers each caller its own", async () => {
  const byId = groupsNaming('byId', { columns: ['id'], allows: (eb, caller, col) => eb(col('id'), '=', caller.id) })
  assert.ok(insertPlan(byId, { isAdmin: false }, { name: 'g', creator: alice.id }, groupRow('g', alice.id)))
  assert.is((await create(byId, alice, 'c1', alice.id))?.created_by, alice.id)
  assert.is(await create(byId, bob, 'c2', alice.id), null)
  assert.is(await create(byId, alice, 'c3', bob.id), null)
  assert.is((await create(byId, bob, 'c4', bob.id))?.created_by, bob.id)
})

test('creating one tag is one cached statement, for callers and for site admins', () => {
  const values = {
    tagClass: 1,
    tagSet: 2,
    mediaFile: 3,
    tagExample: null,
    parentTag: null,
    startTime: 1,
    endTime: 2,
    minFrequency: 10,
    maxFrequency: 20,
    randomlyChosen: false,
    machineTagged: false,
    userTagged: true,
    strength: 0.5,
  }
  const row = {
    tag_class_id: 1,
    tag_set_id: 2,
    media_file_id: 3,
    tag_example_id: null,
    parent_tag_id: null,
    start_time: 1,
    end_time: 2,
    min_frequency: 10,
    max_frequency: 20,
    randomly_chosen: false,
    machine_tagged: false,
    user_tagged: true,
    strength: 0.5,
    user_id: alice.id,
    creation_date: localTimestamp(),
  }
  const scopeAsk = { scope: tags.scope, flag: 'write' as const, rows: [{ tag_set_id: 2 }] }
  const whole = insertPlan(tags, { isAdmin: false }, values, row, scopeAsk)
  assert.ok(whole)
  assert.ok(insertPlan(tags, { isAdmin: true }, values, row))
  // narrowed to what the caller owns: the grants and groups are not in the statement at all
  const owned = insertPlan(tags, { isAdmin: false, ownedOnly: true }, values, row, scopeAsk)
  assert.ok(owned)
  assert.match(whole!.query.sql, /app_permissions/)
  assert.not.match(owned!.query.sql, /app_permissions|app_user_group_users/)
})

test('a caller narrowed to what it owns is refused what only a grant or a group gives', async () => {
  const library = await makeLibrary(database.db, alice)
  await grant(database.db, alice, { user: bob.id }, { library }, ['read', 'write'])
  const can = async (caller: Caller) =>
    (await fetchRecord(database.db, libraries, caller, library, ['write'])).can('write')
  assert.ok(await can(bob))
  assert.ok(await can(alice))
  assert.ok(await can(ownedOnly(alice)))
  try {
    await fetchRecord(database.db, libraries, ownedOnly(bob), library, ['write'])
    assert.unreachable('the narrowed grantee read the library')
  } catch (e) {
    assert.is((e as { statusCode?: number }).statusCode, 404)
  }
})

test.run()
