import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { FLAGS, ownedOnly, type Caller, type Flag } from '../../../../server/access.js'
import { ApiError } from '../../../../server/http/errors.js'
import { appPermissions } from '../../../../server/resources/appPermission.js'
import { appUserGroups } from '../../../../server/resources/appUserGroup.js'
import type { ResourceDef } from '../../../../server/resources/resource.js'
import { libraries } from '../../../../server/resources/library.js'
import { mediaFiles } from '../../../../server/resources/mediaFile.js'
import { tags } from '../../../../server/resources/tag.js'
import { tagClasses } from '../../../../server/resources/tagClass.js'
import { tagExamples } from '../../../../server/resources/tagExample.js'
import { tagSets } from '../../../../server/resources/tagSet.js'
import { suiteApp } from '../../../helpers/app.js'
import { grantRoles, makeRoleWorld, MATRIX_ROLES } from '../../../helpers/world.js'
import { makeTag, makeTagExample, makeTagSet } from '../../../helpers/records.js'

// A fetch or a single create is made first for the caller narrowed to what it owns (docs/decisions.md §12).
// That is safe only while the narrowed caller may do no more than the caller itself, on every rule: this
// checks it for every flag of every kind of record a grant reaches, for every way of reaching it. And
// the narrowing is worth making only while an owner is not refused anything by it.

const t = suiteApp(test)

const refused = async (fetch: () => Promise<unknown>) => {
  try {
    await fetch()
    return false
  } catch (e) {
    if (e instanceof ApiError && e.statusCode === 404) return true
    throw e
  }
}

/** The caller's flags on the record: all false when it cannot read it. */
async function flagsOf(def: ResourceDef<any>, caller: Caller, id: number): Promise<Record<Flag, boolean>> {
  let can: ((f: Flag) => boolean) | null = null
  if (
    await refused(async () => {
      can = (await t.app.services.records.fetch({ db: t.db, caller }, def, id, [...FLAGS])).can
    })
  ) {
    return Object.fromEntries(FLAGS.map((f) => [f, false])) as Record<Flag, boolean>
  }
  return Object.fromEntries(FLAGS.map((f) => [f, can!(f)])) as Record<Flag, boolean>
}

test('the narrowed caller holds no flag the caller does not, and an owner is refused nothing by it', async () => {
  const { callers: cast, library, tagSet, mediaFile, tagClass } = await makeRoleWorld(t, 'narrowed')
  const looseSet = await makeTagSet(t.db, cast.owner, null)
  await grantRoles(t, cast, { tagSet: looseSet })
  await grantRoles(t, cast, { group: cast.group })
  const records: Array<[string, ResourceDef<any>, number]> = [
    ['library', libraries, library],
    ['tag set in the library', tagSets, tagSet],
    ['tag set of its own', tagSets, looseSet],
    ['media file', mediaFiles, mediaFile],
    ['tag class', tagClasses, tagClass],
    ['tag', tags, await makeTag(t.db, cast.owner, { tagSet, mediaFile, tagClass })],
    ['tag in the tag set of its own', tags, await makeTag(t.db, cast.owner, { tagSet: looseSet, mediaFile, tagClass })],
    ['tag example', tagExamples, await makeTagExample(t.db, cast.owner, { tagSet, mediaFile })],
    ['group', appUserGroups, cast.group],
  ]
  const grants = await t.db.selectFrom('app_permissions').select('id').where('created_by', '=', cast.owner.id).execute()
  for (const g of grants) records.push([`grant ${g.id}`, appPermissions, g.id])

  let grantedSomewhere = 0
  for (const role of MATRIX_ROLES) {
    const user = cast[role]
    if (!user) continue
    const caller: Caller = { id: user.id, username: user.username, isAdmin: role === 'admin' }
    for (const [what, def, id] of records) {
      const whole = await flagsOf(def, caller, id)
      const narrowed = await flagsOf(def, ownedOnly(caller), id)
      for (const f of FLAGS) {
        assert.ok(!narrowed[f] || whole[f], `${role} on the ${what}: ${f} narrowed but not whole`)
        if (role === 'owner' || role === 'admin') assert.is(narrowed[f], whole[f], `${role} on the ${what}: ${f}`)
        if (whole[f] && !narrowed[f]) grantedSomewhere++
      }
    }
  }
  // the grants did give something the narrowed rule leaves out (the comparison above is not vacuous)
  assert.ok(grantedSomewhere > 0)
})

test.run()
