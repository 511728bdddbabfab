import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeWav } from '../helpers/wav.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// A delete command for each record users manage; every destructive command asks on a terminal
// (saying what will go) and needs --yes anywhere else.

let w: CliWorld
let alice: TestUser
let library: number
let tagSet: number
let tagClass: number
let media: number[]

const id = async (args: string[]) => {
  const run = await w.mas([...args, '--json'])
  assert.is(run.code, 0, run.stderr)
  return json(run).id as number
}

/** The status alice's GET of an API path (below /api/v0/) is answered with. */
const statusOf = async (path: string) =>
  (await w.t.app.inject({ method: 'GET', url: `/api/v0/${path}`, headers: alice.auth })).statusCode

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  library = await id(['library', 'create', 'Dawn chorus'])
  const folder = join(w.newHome(), 'rec')
  mkdirSync(folder)
  for (const f of [440, 550, 660])
    writeFileSync(join(folder, `${f}.wav`), makeWav({ frequency: f, seconds: 0.2, sampleRate: 8000 }))
  const imported = json(await w.mas(['media', 'import', folder, '--library', String(library), '--json']))
  media = imported.map((r: any) => r.id)
  tagSet = await id(['tagset', 'create', 'Birds', '--library', String(library)])
  tagClass = await id(['tagclass', 'create', 'blackbird', '--library', String(library)])
  for (const m of media) {
    for (const start of [0, 0.1])
      await id([
        'tag',
        'create',
        '--tag-set',
        String(tagSet),
        '--media-file',
        String(m),
        '--tag-class',
        String(tagClass),
        '--start',
        String(start),
        '--end',
        String(start + 0.05),
      ])
  }
})
test.after(async () => {
  await w.close()
})

test('on a terminal the question says what will go; "n" deletes nothing, "y" deletes it', async () => {
  const no = await w.tty(['library', 'delete', String(library)])
  try {
    await no.waitFor(
      new RegExp(`delete library ${library} 'Dawn chorus' with 3 media files, 1 tag set and 6 tags\\? \\(y/N\\)`),
    )
    await no.keys('n', 'Enter')
    await no.waitFor(/Nothing was changed/)
    assert.is(await no.exited(), 1)
  } finally {
    await no.close()
  }
  assert.is(json(await w.mas(['media', 'list', '--library', String(library), '--json'])).length, 3)

  const yes = await w.tty(['media', 'delete', String(media[0])])
  try {
    await yes.waitFor(
      new RegExp(`delete media file ${media[0]} '440.wav' of library "Dawn chorus" with 2 tags\\? \\(y/N\\)`),
    )
    await yes.keys('y', 'Enter')
    await yes.waitFor(new RegExp(`Deleted media file ${media[0]}`))
    assert.is(await yes.exited(), 0)
  } finally {
    await yes.close()
  }
  assert.is((await w.mas(['media', 'get', String(media[0])])).code, 1)
})

test('not on a terminal: refused (exit 2, naming --yes) and nothing deleted; --yes deletes without asking', async () => {
  const refused = await w.mas(['tagset', 'delete', String(tagSet)])
  assert.is(refused.code, 2)
  assert.is(
    refused.stderr,
    `Error: Not on a terminal, so nobody can confirm: delete tag set ${tagSet} 'Birds' with 4 tags? Add --yes to do it\n`,
  )
  assert.is(json(await w.mas(['tag', 'export', '--tag-set', String(tagSet), '--format', 'json', '--json'])).length, 4)
  const first = json(await w.mas(['tag', 'export', '--tag-set', String(tagSet), '--format', 'json', '--json']))[0]
  const tag = first.id
  // the question names the tag's tag set, class and recording as people know them, not by their ids alone
  const asked = await w.mas(['tag', 'delete', String(tag)])
  assert.is(asked.code, 2)
  const file = json(await w.mas(['media', 'get', String(first.mediaFile), '--json']))
  assert.is(
    asked.stderr,
    `Error: Not on a terminal, so nobody can confirm: delete tag ${tag} of tag set ${tagSet} (Birds): tag class ${tagClass} (blackbird) ` +
      `on media file ${first.mediaFile} (${file.alias}), ${first.startTime}-${Math.round(first.endTime * 1000) / 1000} s? Add --yes to do it\n`,
  )
  const deleted = await w.mas(['tag', 'delete', String(tag), '--yes'])
  assert.is(deleted.code, 0, deleted.stderr)
  assert.is(deleted.stdout, '')
  assert.is(json(await w.mas(['tag', 'export', '--tag-set', String(tagSet), '--format', 'json', '--json'])).length, 3)
})

test('a class name in several libraries: tagclass delete says which, and --library picks one', async () => {
  const dusk = await id(['library', 'create', 'Dusk'])
  const duskBlackbird = await id(['tagclass', 'create', 'blackbird', '--library', 'Dusk'])
  const ambiguous = await w.mas(['tagclass', 'delete', 'blackbird', '--yes'])
  assert.is(ambiguous.code, 1)
  assert.match(ambiguous.stderr, /blackbird/)
  assert.match(ambiguous.stderr, /Dawn chorus.*Dusk/)
  const run = await w.mas(['tagclass', 'delete', 'blackbird', '--library', 'Dusk', '--yes', '--json'])
  assert.is(run.code, 0, run.stderr)
  assert.is(json(run).id, duskBlackbird)
  assert.is(await statusOf(`tagClass/${duskBlackbird}/`), 404)
  assert.is(await statusOf(`tagClass/${tagClass}/`), 200)
  assert.is((await w.mas(['library', 'delete', String(dusk), '--yes'])).code, 0)
})

test('a tag set name in several libraries: tagset delete says which, and --library picks one', async () => {
  const dusk = await id(['library', 'create', 'Dusk'])
  const duskBirds = await id(['tagset', 'create', 'Birds', '--library', 'Dusk'])
  const ambiguous = await w.mas(['tagset', 'delete', 'Birds', '--yes'])
  assert.is(ambiguous.code, 1)
  assert.is(ambiguous.stderr.trim().split('\n').length, 1, ambiguous.stderr)
  assert.match(ambiguous.stderr, /Birds \(id \d+, library "Dawn chorus"\).*Birds \(id \d+, library "Dusk"\)/)
  const run = await w.mas(['tagset', 'delete', 'Birds', '--library', 'Dusk', '--yes', '--json'])
  assert.is(run.code, 0, run.stderr)
  assert.is(json(run).id, duskBirds)
  assert.is(await statusOf(`tagSet/${duskBirds}/`), 404)
  assert.is(await statusOf(`tagSet/${tagSet}/`), 200)
  const none = await w.mas(['tagset', 'delete', 'Birds', '--library', 'Dusk', '--yes'])
  assert.is(none.code, 1)
  assert.match(none.stderr, /Birds/)
  assert.is((await w.mas(['library', 'delete', String(dusk), '--yes'])).code, 0)
})

test('every record users manage has a delete command', async () => {
  const project = await id(['project', 'create', 'survey'])
  const group = await id(['group', 'create', 'birders'])
  const job = await id(['job', 'create', '--project', String(project), '--type', 'Test', '--param', 'numToComplete=1'])
  const file = join(w.home, 'detections.csv')
  writeFileSync(file, 'a,b\n1,2\n')
  const result = Number((await w.mas(['job', 'result', 'upload', String(job), file])).stdout.trim())
  const grant = await id(['perms', 'grant', '--group', String(group), '--library', String(library), '--read'])
  const deletes: [string[], string][] = [
    [['job', 'result', 'delete', String(result)], `jobResultFile/${result}/`],
    [['perms', 'revoke', String(grant)], `appPermission/${grant}/`],
    [['group', 'delete', 'birders'], `appUserGroup/${group}/`],
    [['project', 'delete', String(project)], `project/${project}/`],
    [['tagset', 'delete', String(tagSet)], `tagSet/${tagSet}/`],
    [['tagclass', 'delete', String(tagClass)], `tagClass/${tagClass}/`],
    [['library', 'delete', String(library)], `library/${library}/`],
  ]
  for (const [args, path] of deletes) {
    const refused = await w.mas(args)
    assert.is(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`)
    assert.match(refused.stderr, /Add --yes to do it\n$/)
    const run = await w.mas([...args, '--yes', '--json'])
    assert.is(run.code, 0, `${args.join(' ')}: ${run.stderr}`)
    assert.is(await statusOf(path), 404, path)
  }
})

test.run()
