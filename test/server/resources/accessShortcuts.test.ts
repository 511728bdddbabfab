import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { allReadableWith, ownedBy } from '../../../server/access.js'
import { userMetaData, userMetaDataFields } from '../../../server/resources/mediaMetadata.js'
import { mediaFiles } from '../../../server/resources/mediaFile.js'
import { defineResource } from '../../../server/resources/resource.js'
import { tags } from '../../../server/resources/tag.js'
import { tagExamples } from '../../../server/resources/tagExample.js'
import { api, suiteApp } from '../../helpers/app.js'
import { makeWorld } from '../../helpers/world.js'
import { makeTag } from '../../helpers/records.js'

// Access shortcuts are declared beside their rules in server/access.ts (docs/decisions.md §6): the sub-lists
// and the count of ?tagSet= use a shortcut only where the child's rule declares it, and a resource counting
// records its rule does not make readable with their parent fails when it is defined.

const t = suiteApp(test)

test('the rules that follow a parent say so, and only for the column holding it', () => {
  assert.ok(allReadableWith(tags.scope, 'tag_set_id'))
  assert.ok(allReadableWith(tagExamples.scope, 'tag_set_id'))
  assert.ok(allReadableWith(mediaFiles.scope, 'library_id'))
  assert.ok(allReadableWith(userMetaDataFields.scope, 'library_id'))
  assert.ok(allReadableWith(userMetaData.scope, 'media_file_id'))
  assert.not.ok(allReadableWith(tags.scope, 'media_file_id'))
  assert.not.ok(allReadableWith(ownedBy('user_id'), 'user_id'))
})

test('a list read through a parent whose rule does not make its records readable with it is refused where it is defined', () => {
  assert.throws(
    () =>
      defineResource({
        ...tags,
        name: 'ownedTags',
        scope: ownedBy('user_id'),
      } as unknown as Parameters<typeof defineResource>[0]),
    /ownedTags: listVia checks the rule once for tag_set_id/,
  )
})

test("a tag set's tags: every tag for a reader of the set, the same count as ?tagSet=, none for a stranger", async () => {
  const w = await makeWorld(t)
  await makeTag(t.db, w.users.owner, { tagSet: w.ids.tagSet, mediaFile: w.ids.mediaFile, tagClass: w.ids.tagClass })
  for (const role of ['owner', 'writer', 'member', 'admin'] as const) {
    const sub = await t.call('GET', api(`tagSet/${w.ids.tagSet}/tags/`), { as: w.users[role] })
    const filtered = await t.call('GET', api(`tag/?tagSet=${w.ids.tagSet}`), { as: w.users[role] })
    assert.is(sub.statusCode, 200, role)
    assert.is(sub.data.count, 2, role)
    assert.is(filtered.data.count, 2, role)
    assert.equal(sub.data.results, filtered.data.results, role)
  }
  const stranger = await t.call('GET', api(`tag/?tagSet=${w.ids.tagSet}`), { as: w.users.stranger })
  assert.is(stranger.data.count, 0)
  assert.equal(stranger.data.results, [])
  const sub = await t.call('GET', api(`tagSet/${w.ids.tagSet}/tags/`), { as: w.users.stranger })
  assert.is(sub.statusCode, 404)
})

test.run()
