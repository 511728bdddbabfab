import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { tagClassNamed } from '../../server/analysis/discovery.js'
import { suiteApp } from '../helpers/app.js'
import { makeLibrary, makeTagClass } from '../helpers/records.js'

// The class a job's tagClass parameter names, found as the command line finds classes (issue 47): exactly,
// else the one class differing only in case; several such are an error naming them; none, a new class.

const t = suiteApp(test)

test('exact name first, then the one class differing only in case; several differing so refused; none created', async () => {
  const alice = await t.user('alice')
  const library = await makeLibrary(t.db, alice)
  const chirp = await makeTagClass(t.db, alice, library, 'chirp')
  const [trill, TRILL] = [
    await makeTagClass(t.db, alice, library, 'Trill'),
    await makeTagClass(t.db, alice, library, 'TRILL'),
  ]
  assert.is(await tagClassNamed(t.db, alice.id, library, 'chirp'), chirp)
  assert.is(await tagClassNamed(t.db, alice.id, library, 'CHIRP'), chirp)
  assert.is(await tagClassNamed(t.db, alice.id, library, 'TRILL'), TRILL)
  assert.is(await tagClassNamed(t.db, alice.id, library, 'Trill'), trill)
  const error = await tagClassNamed(t.db, alice.id, library, 'trill').then(
    () => undefined,
    (e: Error) => e.message,
  )
  assert.is(
    error,
    `2 tag classes of the library differ from "trill" only in case: Trill (id ${trill}), TRILL (id ${TRILL}); give one of them as it is written (or its id)`,
  )
  const made = await tagClassNamed(t.db, alice.id, library, 'warble')
  const classes = await t.db
    .selectFrom('tag_classes')
    .select(['id', 'class_name'])
    .where('library_id', '=', library)
    .orderBy('id')
    .execute()
  assert.equal(
    classes.map((c) => c.class_name),
    ['chirp', 'Trill', 'TRILL', 'warble'],
  )
  assert.is(classes[3].id, made)
})

test.run()
