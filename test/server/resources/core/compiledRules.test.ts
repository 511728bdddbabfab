import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { rowColumns, type Caller, type Flag } from '../../../../server/access.js'
import type { Database } from '../../../../server/db/database.js'
import type { Referent } from '../../../../server/http/fields.js'
import { accelerators } from '../../../../server/resources/fast/index.js'
import { compiledRule, type CompiledRule } from '../../../../server/resources/fast/rule.js'
import { compiler } from '../../../../server/resources/core/standIns.js'
import { StatementCache } from '../../../../server/resources/fast/statements.js'
import { readable } from '../../../../server/resources/core/read.js'
import { appPermissions } from '../../../../server/resources/appPermission.js'
import { appUserGroups } from '../../../../server/resources/appUserGroup.js'
import { jobParameters } from '../../../../server/resources/jobParameters.js'
import { jobResultFiles } from '../../../../server/resources/jobResultFile.js'
import { jobs } from '../../../../server/resources/jobs.js'
import { libraries } from '../../../../server/resources/library.js'
import { mediaFiles } from '../../../../server/resources/mediaFile.js'
import { metaData, userMetaData, userMetaDataFields } from '../../../../server/resources/mediaMetadata.js'
import { projects } from '../../../../server/resources/project.js'
import { randomWindows } from '../../../../server/resources/randomWindow.js'
import { sensorArrays, sensors } from '../../../../server/resources/sensor.js'
import { tagClasses } from '../../../../server/resources/tagClass.js'
import { tagExamples } from '../../../../server/resources/tagExample.js'
import { tags } from '../../../../server/resources/tag.js'
import { tagSets } from '../../../../server/resources/tagSet.js'
import { userSettings } from '../../../../server/resources/userSettings.js'
import { users } from '../../../../server/resources/users.js'
import { inlinedIdRule, twoCallers, usernameRule, usersUnder } from '../../../helpers/callers.js'
import { makeLibrary } from '../../../helpers/records.js'

// A resource's access rule is compiled once per resource, flag and kind of caller, and each use puts the
// caller's id back in it (server/resources/fast/rule.ts). It must be the very rule the query builder
// writes for that caller, and a rule that uses more of the caller than its id is never compiled once.

const ALL: Referent[] = [
  appPermissions,
  appUserGroups,
  jobParameters,
  jobResultFiles,
  jobs,
  libraries,
  mediaFiles,
  metaData,
  userMetaData,
  userMetaDataFields,
  projects,
  randomWindows,
  sensors,
  sensorArrays,
  tagClasses,
  tagExamples,
  tags,
  tagSets,
  userSettings,
  users,
]
const FLAGS: Flag[] = ['read', 'write', 'launch_job', 'admin']

/** the rules compiled here, and the accelerators whose rules `readable` takes */
const rules = new StatementCache<CompiledRule>(32)
const fast = accelerators(true)

const built = (def: Referent, caller: Caller, flag: Flag) =>
  compiler
    .selectFrom(`${def.table} as r`)
    .where((eb) => def.scope.allows(eb, caller, rowColumns('r'), flag))
    .compile()

test("every resource's rule, compiled once, is the rule built for each caller, flag and kind of caller", () => {
  const callers: Caller[] = [
    { id: 12, username: 'u12', isAdmin: false },
    { id: 345, username: 'u345', isAdmin: false },
    { id: 12, username: 'u12', isAdmin: true },
    { id: 67, username: 'u67', isAdmin: false, ownedOnly: true },
  ]
  for (const def of ALL) {
    for (const flag of FLAGS) {
      for (const caller of callers) {
        assert.ok(compiledRule(rules, def, caller, flag), `${def.name} ${flag} is compiled once`)
        const once = readable(compiler, def, caller, flag, fast).compile()
        const each = built(def, caller, flag)
        const where = each.sql.indexOf(' where ') + ' where '.length
        assert.is(
          once.sql,
          `${each.sql.slice(0, where)}(${each.sql.slice(where)})`,
          `${def.name} ${flag} for ${JSON.stringify(caller)}`,
        )
        assert.equal(once.parameters, each.parameters, `${def.name} ${flag}: the parameters of ${caller.username}`)
      }
    }
  }
})

let database: Database
let alice: Caller
let bob: Caller

test.before(async () => {
  ;({ database, alice, bob } = await twoCallers())
})
test.after(async () => {
  await database?.close()
})

test("a rule using the caller's username, or writing its id into the SQL, is built for each caller", async () => {
  for (const rule of [usernameRule, inlinedIdRule]) {
    const def = usersUnder(rule === usernameRule ? 'by username' : 'inlined id', rule)
    assert.is(compiledRule(rules, def, alice, 'read'), null)
    for (const caller of [alice, bob, alice]) {
      const ids = (await readable(database.db, def, caller, 'read', fast).select('r.id').execute()).map((r) => r.id)
      assert.equal(ids, [caller.id], `${caller.username} reads only itself`)
    }
  }
})

test("the compiled rule of one caller reads that caller's records, whoever asked before", async () => {
  const lib = await makeLibrary(database.db, alice)
  for (const caller of [alice, bob, alice, bob]) {
    const ids = (await readable(database.db, libraries, caller, 'read', fast).select('r.id').execute()).map((r) => r.id)
    assert.equal(ids, caller === alice ? [lib] : [], caller.username)
  }
})

test.run()
