import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { grant, makeTag } from '../helpers/records.js'
import { cliWorld, type CliWorld } from './cli.js'
import { makeRecords } from '../helpers/world.js'

// A delete is asked about only when the server would do it (docs/decisions.md §22): a colleague who may not delete
// is refused in one line before any question, exit 1; the owner is asked.

let w: CliWorld
let owner: TestUser
let reader: TestUser
let writer: TestUser
let readerHome: string
let writerHome: string
let library: number
let tagSet: number
let tag: number
let mediaFile: number
let tagClass: number

test.before(async () => {
  w = await cliWorld()
  owner = await w.loggedIn('warden')
  reader = await w.t.user('reader')
  writer = await w.t.user('writer')
  readerHome = w.newHome()
  writerHome = w.newHome()
  assert.is((await w.login(reader, readerHome)).code, 0)
  assert.is((await w.login(writer, writerHome)).code, 0)
  ;({ library, mediaFile, tagSet, tagClass } = await makeRecords(w.t, owner, {
    library: 'heath',
    tagSet: 'nightjars',
    tagClass: { className: 'nightjar' },
    mediaFile: { alias: 'north/0500.wav', file: 'north_0500.wav' },
  }))
  tag = await makeTag(w.t.db, owner, { tagSet, mediaFile, tagClass })
  await grant(w.t.db, owner, { user: reader.id }, { library }, ['read'])
  await grant(w.t.db, owner, { user: writer.id }, { library }, ['read', 'write'])
})
test.after(async () => {
  await w.close()
})

test('on a terminal, a colleague who only reads the library is refused in one line, never asked', async () => {
  const tty = await w.tty(['library', 'delete', 'heath'], { home: readerHome })
  try {
    assert.is(await tty.exited(), 1)
    const screen = await tty.screen()
    assert.not.match(screen, /\(y\/N\)/)
    assert.match(
      screen,
      new RegExp(
        `^Error: You may not delete library ${library} 'heath': the server refuses it to you\\. Nothing was changed\\n\\[exit 1\\]$`,
        'm',
      ),
    )
  } finally {
    await tty.close()
  }
})

test('not on a terminal the refusal is the same line (not "add --yes"), for every kind of record', async () => {
  const cases: Array<[string[], string]> = [
    [['library', 'delete', 'heath'], `library ${library} 'heath'`],
    [['tagset', 'delete', 'nightjars'], `tag set ${tagSet} 'nightjars'`],
    [['media', 'delete', 'north/0500.wav'], `media file ${mediaFile} 'north/0500.wav'`],
    [['tagclass', 'delete', String(tagClass)], `tag class ${tagClass} 'nightjar'`],
    [['tag', 'delete', String(tag)], `tag ${tag}`],
  ]
  for (const [args, what] of cases) {
    const run = await w.mas(args, { home: readerHome })
    assert.is(run.code, 1, `${args.join(' ')}: ${run.stderr}`)
    assert.ok(run.stderr.startsWith(`Error: You may not delete ${what}`), run.stderr)
    assert.is(run.stderr.split('\n').length, 2, run.stderr)
  }
  assert.is((await w.t.db.selectFrom('tags').select('id').where('id', '=', tag).execute()).length, 1)
})

test('a colleague with write is refused a media file delete (admin on the library needs) but asked about a tag', async () => {
  const media = await w.mas(['media', 'delete', 'north/0500.wav'], { home: writerHome })
  assert.is(media.code, 1)
  assert.match(media.stderr, /^Error: You may not delete media file/)
  const tagDelete = await w.tty(['tag', 'delete', String(tag)], { home: writerHome })
  try {
    await tagDelete.waitFor(new RegExp(`delete tag ${tag} .*\\? \\(y/N\\)`))
    await tagDelete.keys('n', 'Enter')
    assert.is(await tagDelete.exited(), 1)
  } finally {
    await tagDelete.close()
  }
})

test('the owner is asked; with --yes nothing is asked or checked first', async () => {
  const asked = await w.tty(['tagset', 'delete', 'nightjars'])
  try {
    await asked.waitFor(new RegExp(`delete tag set ${tagSet} 'nightjars' with 1 tag\\? \\(y/N\\)`))
    await asked.keys('n', 'Enter')
    await asked.waitFor(/Nothing was changed/)
    assert.is(await asked.exited(), 1)
  } finally {
    await asked.close()
  }
  const refusedByServer = await w.mas(['tagset', 'delete', 'nightjars', '--yes'], { home: readerHome })
  assert.is(refusedByServer.code, 1)
  assert.is(refusedByServer.stderr.split('\n').length, 2, refusedByServer.stderr)
  const deleted = await w.mas(['tagset', 'delete', 'nightjars', '--yes'])
  assert.is(deleted.code, 0, deleted.stderr)
})

test.run()
