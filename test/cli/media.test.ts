import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeWav } from '../helpers/wav.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// Libraries, bulk import of a folder tree (re-run, dry run, JSON outcomes), media
// list/get/delete, and sharing a library with a grant.

let w: CliWorld
let alice: TestUser
let bob: TestUser
let bobHome: string
let library: number
let tree: string

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  bobHome = w.newHome()
  bob = await w.loggedIn('bob', bobHome)
  tree = join(w.newHome(), 'recordings')
  mkdirSync(join(tree, 'site-b', 'deep'), { recursive: true })
  writeFileSync(join(tree, 'dawn.wav'), makeWav({ frequency: 440, seconds: 0.5, sampleRate: 8000 }))
  writeFileSync(join(tree, 'dusk.wav'), makeWav({ frequency: 660, seconds: 0.5, sampleRate: 8000 }))
  writeFileSync(join(tree, 'notes.txt'), 'not audio')
  writeFileSync(join(tree, 'site-b', 'noon.WAV'), makeWav({ frequency: 880, seconds: 0.5, sampleRate: 8000 }))
  writeFileSync(join(tree, 'site-b', 'deep', 'night.wav'), makeWav({ frequency: 990, seconds: 0.5, sampleRate: 8000 }))
})
test.after(async () => {
  await w.close()
})

test('library create prints the id; library list shows it as a table and as JSON', async () => {
  const created = await w.mas(['library', 'create', 'Dawn chorus'])
  assert.is(created.code, 0, created.stderr)
  library = Number(created.stdout.trim())
  assert.ok(library > 0)
  const table = await w.mas(['library', 'list'])
  assert.match(table.stdout, /^ID\s+NAME\s+USER\s+MEDIA\s+CREATED\n/)
  assert.match(table.stdout, new RegExp(`\\n${library}\\s+Dawn chorus\\s+me\\s+0\\s`)) // the caller's own records show `me`
  const list = json(await w.mas(['library', 'list', '--json']))
  assert.equal(
    list.map((l: any) => [l.id, l.name]),
    [[library, 'Dawn chorus']],
  )
})

test('--dry-run says what would be uploaded and uploads nothing', async () => {
  const run = await w.mas(['media', 'import', tree, '--library', String(library), '--recursive', '--dry-run', '--json'])
  assert.is(run.code, 0, run.stderr)
  const records = json(run)
  assert.equal(
    records
      .filter((r: any) => r.outcome === 'would-import')
      .map((r: any) => r.path.slice(tree.length))
      .sort(),
    ['/dawn.wav', '/dusk.wav', '/site-b/deep/night.wav', '/site-b/noon.WAV'],
  )
  assert.equal(
    records.find((r: any) => r.path.endsWith('notes.txt')),
    { path: join(tree, 'notes.txt'), outcome: 'skipped', id: null, reason: 'not a media file' },
  )
  assert.match(run.stderr, /Dry run: would import 4/)
  assert.equal(json(await w.mas(['media', 'list', '--library', String(library), '--json'])), [])
})

test('import of a folder tree: media files uploaded, the non-media file skipped with a warning, a summary on stderr', async () => {
  const run = await w.mas(['media', 'import', tree, '--library', String(library), '--recursive', '--concurrency', '2'])
  assert.is(run.code, 0, run.stderr)
  assert.is(run.stdout, '')
  assert.match(run.stderr, /Warning: skipping .*notes\.txt: not a media file/)
  assert.match(run.stderr, /Imported 4, skipped 0 already present, skipped 1 not media, failed 0/)
  const media = json(await w.mas(['media', 'list', '--library', String(library), '--json']))
  // aliases are the paths below the folder given
  assert.equal(media.map((m: any) => m.alias).sort(), [
    'dawn.wav',
    'dusk.wav',
    'site-b/deep/night.wav',
    'site-b/noon.WAV',
  ])
  const cache = join(w.home, 'data', 'mas', 'import-cache.json')
  assert.ok(existsSync(cache))
  assert.is(Object.keys(JSON.parse(readFileSync(cache, 'utf8')).entries).length, 4)
})

test('a re-run skips everything: hashes come from the cache and nothing is uploaded', async () => {
  const run = await w.mas(['media', 'import', tree, '--library', String(library), '--recursive', '--json'])
  assert.is(run.code, 0, run.stderr)
  assert.not.match(run.stderr, /hashing/)
  assert.not.match(run.stderr, /uploading/)
  assert.match(run.stderr, /Imported 0, skipped 4 already present/)
  const records = json(run)
  const media = json(await w.mas(['media', 'list', '--library', String(library), '--json']))
  assert.is(media.length, 4)
  for (const r of records.filter((x: any) => x.path.endsWith('.wav') || x.path.endsWith('.WAV'))) {
    assert.is(r.outcome, 'duplicate')
    assert.ok(media.some((m: any) => m.id === r.id))
  }
  // a changed file is hashed again: its new bytes are not in the library, but its alias is, so it is skipped
  // and listed; a new file beside it is imported
  writeFileSync(join(tree, 'dusk.wav'), makeWav({ frequency: 770, seconds: 0.5, sampleRate: 8000 }))
  writeFileSync(join(tree, 'dusk-late.wav'), makeWav({ frequency: 775, seconds: 0.5, sampleRate: 8000 }))
  const again = await w.mas([
    'media',
    'import',
    join(tree, 'dusk.wav'),
    join(tree, 'dawn.wav'),
    join(tree, 'dusk-late.wav'),
    '--library',
    String(library),
    '--json',
  ])
  assert.is(again.code, 0, again.stderr)
  assert.equal(
    json(again).map((r: any) => r.outcome),
    ['alias-taken', 'duplicate', 'imported'],
  )
  assert.match(
    json(again)[0].reason,
    /^alias taken: A media file with this alias already exists in this library \(id \d+\)/,
  )
})

test('many files go in several pre-check batches: each is imported once, bytes seen in an earlier batch or already stored are not sent again', async () => {
  const lib = Number((await w.mas(['library', 'create', 'Batches'])).stdout.trim())
  const dir = join(w.newHome(), 'many')
  mkdirSync(dir)
  const name = (i: number) => join(dir, `t${String(i).padStart(3, '0')}.wav`)
  for (let i = 0; i < 60; i++) writeFileSync(name(i), makeWav({ frequency: 300 + i, seconds: 0.2, sampleRate: 8000 }))
  const first = await w.mas(['media', 'import', name(5), name(50), '--library', String(lib), '--json'])
  assert.is(first.code, 0, first.stderr)
  // a file late in the run with the bytes of one in the first batch
  writeFileSync(name(59), makeWav({ frequency: 300, seconds: 0.2, sampleRate: 8000 }))
  const run = await w.mas(['media', 'import', dir, '--library', String(lib), '--json', '--concurrency', '3'])
  assert.is(run.code, 0, run.stderr)
  const records = json(run)
  assert.is(records.length, 60)
  assert.equal(records.filter((r: any) => r.outcome === 'imported').length, 57)
  const byName = (i: number) => records.find((r: any) => r.path === name(i))
  assert.equal([byName(5).outcome, byName(50).outcome], ['duplicate', 'duplicate'])
  assert.is(byName(59).outcome, 'duplicate')
  assert.is(byName(59).id, byName(0).id)
  // found by the pre-check once t000 is stored, or matched to t000 while its upload is still under way
  assert.ok(byName(59).reason === null || /same bytes as .*t000\.wav/.test(byName(59).reason), byName(59).reason)
  const media = json(await w.mas(['media', 'list', '--library', String(lib), '--json']))
  assert.is(media.length, 59)
  assert.is(new Set(media.map((m: any) => m.alias)).size, 59)
})

test('a missing path fails the run with exit 1 and its reason; without --recursive subfolders are skipped', async () => {
  const run = await w.mas(['media', 'import', tree, join(tree, 'nope.wav'), '--library', String(library)])
  assert.is(run.code, 1)
  assert.match(run.stderr, /failed .*nope\.wav: no such file or folder/)
  assert.match(run.stderr, /skipping .*site-b: a folder inside a folder \(use --recursive\)/)
})

test('media get shows the record and metadata; media delete removes it', async () => {
  const media = json(await w.mas(['media', 'list', '--library', String(library), '--json']))
  const dawn = media.find((m: any) => m.alias === 'dawn.wav')
  const get = await w.mas(['media', 'get', String(dawn.id)])
  assert.is(get.code, 0, get.stderr)
  assert.match(get.stdout, /alias\s+dawn\.wav/)
  assert.match(get.stdout, /sampleRate\s+8000/)
  // the media type by name, as the library is (--json keeps the id)
  assert.match(get.stdout, /^type\s+audio$/m)
  const asJson = json(await w.mas(['media', 'get', String(dawn.id), '--json']))
  assert.equal([asJson.id, asJson.type], [dawn.id, 1])
  const del = await w.mas(['media', 'delete', String(dawn.id), '--yes'])
  assert.is(del.code, 0, del.stderr)
  const gone = await w.mas(['media', 'get', String(dawn.id)])
  assert.is(gone.code, 1)
  assert.is(gone.stderr, `Error: media file ${dawn.id} not found\n`)
})

test('perms grant lets a colleague see the library media; revoke takes it back', async () => {
  const before = await w.mas(['media', 'list', '--library', String(library)], { home: bobHome })
  assert.is(before.code, 1)
  const grant = await w.mas(['perms', 'grant', '--user', 'bob', '--library', String(library), '--read', '--json'])
  assert.is(grant.code, 0, grant.stderr)
  const g = json(grant)
  assert.equal(
    [g.bearer_type, g.bearer_id, g.target_type, g.target_id, g.read, g.write],
    ['user', bob.id, 'library', library, true, false],
  )
  const seen = json(await w.mas(['media', 'list', '--library', String(library), '--json'], { home: bobHome }))
  assert.is(seen.length, 4)
  const list = await w.mas(['perms', 'list', '--library', String(library)])
  // the grantee by its username (usernames/), the library by its name
  assert.match(list.stdout, new RegExp(`\\n${g.id}\\s+user:bob\\s+library:Dawn chorus\\s+read\\s+me\\s`))
  const bobCannotImport = await w.mas(['media', 'import', tree, '--library', String(library)], { home: bobHome })
  assert.is(bobCannotImport.code, 1)
  const revoke = await w.mas(['perms', 'revoke', String(g.id), '--yes'])
  assert.is(revoke.code, 0, revoke.stderr)
  const after = await w.mas(['media', 'list', '--library', String(library)], { home: bobHome })
  assert.is(after.code, 1)
  assert.is(after.stderr, `Error: library ${library} not found\n`)
})

test('against a server without the import extension (like the original service), import says so and exits 1', async () => {
  // A stand-in for the original service: JSON sent as text/html, no check/import endpoints.
  const original = createServer((req, res) => {
    if (req.url === `/api/v0/library/${library}/`) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(JSON.stringify({ id: library, name: 'x', user: 1, mediaFiles: [], creationDate: '2020-01-01T00:00:00' }))
    } else {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
      res.end('<html><body>Page not found</body></html>')
    }
  })
  await new Promise<void>((r) => original.listen(0, '127.0.0.1', r))
  try {
    const port = (original.address() as AddressInfo).port
    const run = await w.mas(['media', 'import', tree, '--library', String(library)], {
      env: { MAS_SERVER: `http://127.0.0.1:${port}`, MAS_TOKEN: alice.token },
    })
    assert.is(run.code, 1)
    assert.match(run.stderr, /Error: The server at http:\/\/127\.0\.0\.1:\d+ cannot import media files/)
  } finally {
    await new Promise((r) => original.close(r))
  }
})

test.run()
