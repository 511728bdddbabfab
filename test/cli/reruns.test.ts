import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { grant, makeLibrary, makeMediaFile, makeTagClass } from '../helpers/records.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// Re-running `mas tag import` never duplicates: rows identical to tags already in the tag set are
// skipped by the server (?onDuplicate=skip), from this machine or another; --again imports them again.

let w: CliWorld
let alice: TestUser
let library: number
let csv: string

const count = async (set: number) =>
  (await w.t.call('GET', `/api/v0/tagSet/${set}/tags/`, { as: alice })).data.count as number
const newTagSet = (name: string) => w.tagSet(alice, name, library)

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  library = await makeLibrary(w.t.db, alice)
  await makeMediaFile(w.t.db, alice, library, { alias: 'siteA/20260501_050000.WAV' })
  await makeMediaFile(w.t.db, alice, library, { alias: 'siteB/20260501_050000.WAV' })
  await makeTagClass(w.t.db, alice, library, 'blackbird')
  const rows = ['mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency']
  for (let i = 0; i < 250; i++)
    rows.push(
      `site${i % 2 ? 'B' : 'A'}/20260501_050000.WAV,blackbird,${(i * 0.137).toFixed(3)},${(i * 0.137 + 0.5).toFixed(3)},1000,4000`,
    )
  csv = join(w.home, 'bulk.csv')
  writeFileSync(csv, rows.join('\n'))
})
test.after(async () => {
  await w.close()
})

test('a re-run of a finished import creates nothing and says how many rows were already in the tag set, exit 0', async () => {
  const set = await newTagSet('rerun')
  const first = await w.mas(['tag', 'import', csv, '--tag-set', String(set), '--batch-size', '100'])
  assert.is(first.code, 0, first.stderr)
  assert.match(first.stderr, /Imported 250 tags into tag set/)
  assert.not.match(first.stderr, /already in the tag set/)
  assert.is(await count(set), 250)
  const again = await w.mas(['tag', 'import', csv, '--tag-set', String(set), '--batch-size', '100'])
  assert.is(again.code, 0, again.stderr)
  assert.match(again.stderr, /Imported 0 tags into tag set/)
  assert.match(again.stderr, /250 rows were already in the tag set \(--again imports them again\)/)
  assert.is(await count(set), 250)
  // from another machine (no memory of the first run), with --json: the stored tags, in input order
  const other = w.newHome()
  await w.login(alice, other)
  const elsewhere = await w.mas(['tag', 'import', csv, '--tag-set', String(set), '--json'], { home: other })
  assert.is(elsewhere.code, 0, elsewhere.stderr)
  assert.match(elsewhere.stderr, /250 rows were already in the tag set/)
  const records = json(elsewhere)
  assert.is(records.length, 250)
  assert.equal(records.map((r: any) => r.startTime).slice(0, 3), [0, 0.137, 0.274])
  assert.is(await count(set), 250)
})

test('a partly imported file imports the rest; --again imports every row again', async () => {
  const set = await newTagSet('partly')
  const half = join(w.home, 'half.csv')
  const lines = readFileSync(csv, 'utf8').split('\n')
  writeFileSync(half, lines.slice(0, 101).join('\n'))
  assert.is((await w.mas(['tag', 'import', half, '--tag-set', String(set)])).code, 0)
  assert.is(await count(set), 100)
  const rest = await w.mas(['tag', 'import', csv, '--tag-set', String(set)])
  assert.is(rest.code, 0, rest.stderr)
  assert.match(rest.stderr, /Imported 150 tags into tag set/)
  assert.match(rest.stderr, /100 rows were already in the tag set/)
  assert.is(await count(set), 250)
  const again = await w.mas(['tag', 'import', csv, '--tag-set', String(set), '--again'])
  assert.is(again.code, 0, again.stderr)
  assert.match(again.stderr, /Imported 250 tags into tag set/)
  assert.not.match(again.stderr, /already in the tag set/)
  assert.is(await count(set), 500)
})

test("the creates of the quickstart run twice make one library, tag set and tag class; a colleague's library of that name is not yours", async () => {
  const bob = await w.t.user('bob')
  const shared = await makeLibrary(w.t.db, bob, 'Dawn chorus 2026')
  await grant(w.t.db, bob, { user: alice.id }, { library: shared }, ['read', 'write'])
  const ids: string[][] = []
  for (let run = 0; run < 2; run++) {
    const made: string[] = []
    for (const args of [['library', 'create', 'Dawn chorus 2026']]) made.push((await w.mas(args)).stdout.trim())
    for (const args of [
      ['tagset', 'create', 'Birds', '--library', made[0]],
      ['tagclass', 'create', 'wren', '--library', made[0]],
      ['tagset', 'create', 'scratch'],
    ]) {
      const r = await w.mas(args)
      assert.is(r.code, 0, r.stderr)
      assert.is(
        r.stderr,
        run === 0
          ? ''
          : `${args[0] === 'tagclass' ? 'tag class \'wren\' of library "Dawn chorus 2026"' : args[2] === 'scratch' ? "tag set 'scratch'" : 'tag set \'Birds\' of library "Dawn chorus 2026"'} exists already (id ${r.stdout.trim()}): nothing was created\n`,
      )
      made.push(r.stdout.trim())
    }
    ids.push(made)
  }
  assert.equal(ids[1], ids[0])
  assert.is.not(Number(ids[0][0]), shared)
  const again = await w.mas(['library', 'create', 'Dawn chorus 2026'])
  assert.is(again.stderr, `your library 'Dawn chorus 2026' exists already (id ${ids[0][0]}): nothing was created\n`)
  // the class is found by its name afterwards: one of that name in the library
  const tag = await w.mas([
    'tag',
    'create',
    '--tag-set',
    ids[0][1],
    '--media-file',
    '1',
    '--tag-class',
    'wren',
    '--start',
    '0',
    '--end',
    '0',
  ])
  assert.not.match(tag.stderr, /match "wren"/)
  const libraries = json(await w.mas(['library', 'list', '--json'])).filter(
    (l: { name: string }) => l.name === 'Dawn chorus 2026',
  )
  assert.is(libraries.length, 2) // alice's, and bob's shared with her
})

test("a grant given twice is one grant (by username, as a colleague gives it); a site admin's project created twice is one", async () => {
  await w.t.user('carol')
  const grants: string[] = []
  for (let run = 0; run < 2; run++) {
    const r = await w.mas(['perms', 'grant', '--user', 'carol', '--library', String(library), '--read'])
    assert.is(r.code, 0, r.stderr)
    grants.push(r.stdout.trim())
  }
  assert.is(grants[1], grants[0])
  const wider = await w.mas(['perms', 'grant', '--user', 'carol', '--library', String(library), '--read', '--write'])
  assert.is.not(wider.stdout.trim(), grants[0]) // other rights: a grant of its own, as before

  const root = await w.t.user('root', { admin: true })
  const home = w.newHome()
  assert.is((await w.login(root, home)).code, 0)
  const first = await w.mas(['project', 'create', 'survey'], { home })
  const second = await w.mas(['project', 'create', 'survey'], { home })
  assert.is(second.code, 0, second.stderr)
  assert.is(second.stdout, first.stdout)
  assert.is(second.stderr, `your project 'survey' exists already (id ${first.stdout.trim()}): nothing was created\n`)
})

test.run()
