import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// Every list prints through one implementation: a table (src/textTable.ts), --columns, --sort,
// --no-header, --csv, --limit; a screenful on a terminal with a line saying how to see more.

let w: CliWorld
let alice: TestUser
const PROJECTS = 55

test.before(async () => {
  w = await cliWorld()
  alice = await w.t.user('root', { admin: true })
  await w.login(alice)
  for (let i = 1; i <= PROJECTS; i++) {
    const res = await w.t.app.inject({
      method: 'POST',
      url: '/api/v0/project/',
      headers: alice.auth,
      payload: { name: `survey ${String(i).padStart(2, '0')}` },
    })
    assert.is(res.statusCode, 201, res.body)
  }
})
test.after(async () => {
  await w.close()
})

test('project list: a table of every record on a pipe; --columns, --sort, --no-header, --limit, --csv', async () => {
  const all = await w.mas(['project', 'list'])
  assert.is(all.code, 0, all.stderr)
  const lines = all.stdout.trimEnd().split('\n')
  assert.match(lines[0], /^ID +NAME +TYPE +MEDIA +CREATED$/)
  assert.is(lines.length, 1 + PROJECTS)
  assert.is(all.stderr, '')
  const picked = await w.mas([
    'project',
    'list',
    '--columns',
    'name,id',
    '--sort',
    '-name',
    '--limit',
    '2',
    '--no-header',
  ])
  assert.is(picked.code, 0, picked.stderr)
  assert.equal(
    picked.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split(/ {2,}/)[0]),
    ['survey 55', 'survey 54'],
  )
  assert.match(picked.stderr, new RegExp(`^2 of ${PROJECTS} shown: --limit 4 or --limit 0 for all`))
  const csv = await w.mas(['project', 'list', '--csv', '--columns', 'id,name', '--sort', 'name', '--limit', '2'])
  assert.match(csv.stdout, /^ID,NAME\n\d+,survey 01\n\d+,survey 02\n$/)
  const asJson = json(await w.mas(['project', 'list', '--json', '--sort', '-name', '--limit', '3']))
  assert.equal(
    asJson.map((p: any) => p.name),
    ['survey 55', 'survey 54', 'survey 53'],
  )
  assert.is(json(await w.mas(['project', 'list', '--json'])).length, PROJECTS)
  const bad = await w.mas(['project', 'list', '--sort', 'colour'])
  assert.is(bad.code, 2)
  assert.is(bad.stderr, 'Error: --sort: no column "colour"; the columns are id, name, type, media, created\n')
})

test('on a terminal a screenful, and a line saying how to see more', async () => {
  const tty = await w.tty(['project', 'list', '--columns', 'id,name', '--sort', 'name'])
  try {
    assert.is(await tty.exited(), 0)
    const screen = await tty.screen()
    assert.match(
      screen,
      new RegExp(
        `\\d+ +survey 50\n50 of ${PROJECTS} shown: --limit ${PROJECTS} or --limit 0 for all, --json or a pipe for every record\n\\[exit 0\\]$`,
      ),
      screen,
    )
    assert.not.match(screen, /survey 51/)
  } finally {
    await tty.close()
  }
})

test('tag list --tag-set shows the tags of one tag set', async () => {
  const library = Number((await w.mas(['library', 'create', 'L'])).stdout.trim())
  const tagSet = Number((await w.mas(['tagset', 'create', 'S', '--library', String(library)])).stdout.trim())
  const empty = await w.mas(['tag', 'list', '--tag-set', String(tagSet)])
  assert.is(empty.code, 0, empty.stderr)
  assert.match(empty.stdout, /^ID +TAGSET +MEDIAFILE +TAGCLASS +START +END +MINFREQ +MAXFREQ +STRENGTH\n$/)
  assert.equal(json(await w.mas(['tag', 'list', '--tag-set', String(tagSet), '--json'])), [])
})

test.run()
