import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeLibrary, makeMediaFile, makeTagClass, makeTagSet } from '../helpers/records.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// Every list prints through one implementation: a table (src/textTable.ts), --columns, --sort,
// --no-header, --csv, --limit; a screenful on a terminal with a line saying how to see more. A list shown in the
// server's order is read only as far as it is shown.

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

/** A proxy in front of the test's server that remembers every path asked of it. */
async function countingProxy(target: string): Promise<{ url: string; asked: string[]; close: () => Promise<void> }> {
  const asked: string[] = []
  const { hostname, port } = new URL(target)
  const proxy: Server = createServer((req, res) => {
    asked.push(req.url ?? '')
    const forward = request({ hostname, port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    req.pipe(forward)
  })
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done))
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    asked,
    close: () => new Promise((done) => proxy.close(() => done())),
  }
}

test('tag list of a large tag set reads only the pages it shows: --limit, a screenful on a terminal; --sort reads all', async () => {
  const TAGS = 2500
  const library = await makeLibrary(w.t.db, alice)
  const tagSet = await makeTagSet(w.t.db, alice, library, 'season')
  const [mediaFile, tagClass] = [
    await makeMediaFile(w.t.db, alice, library),
    await makeTagClass(w.t.db, alice, library),
  ]
  for (let from = 0; from < TAGS; from += 1000) {
    const body = Array.from({ length: Math.min(1000, TAGS - from) }, (_, k) => ({
      tagSet,
      mediaFile,
      tagClass,
      startTime: from + k,
      endTime: from + k + 0.5,
      minFrequency: 100,
      maxFrequency: 2000,
      strength: ((from + k) % 97) / 100,
    }))
    const res = await w.t.call('POST', '/api/v0/tag/', { as: alice, body })
    assert.is(res.statusCode, 201, res.body)
  }
  const proxy = await countingProxy(w.server)
  const env = { MAS_SERVER: proxy.url, MAS_TOKEN: alice.token }
  const tagPages = () => proxy.asked.splice(0).filter((p) => p.startsWith(`/api/v0/tagSet/${tagSet}/tags/`))
  try {
    const first = await w.mas(['tag', 'list', '--tag-set', String(tagSet), '--limit', '3', '--columns', 'start'], {
      env,
    })
    assert.is(first.code, 0, first.stderr)
    assert.equal(first.stdout.trimEnd().split('\n'), ['START', '0', '1', '2'])
    assert.match(first.stderr, new RegExp(`^3 of ${TAGS} shown: --limit 6 or --limit 0 for all`))
    assert.equal(tagPages(), [`/api/v0/tagSet/${tagSet}/tags/?page_size=3`], 'one page of three')

    const strongest = await w.mas(
      ['tag', 'list', '--tag-set', String(tagSet), '--limit', '2', '--sort', '-strength', '--json'],
      { env },
    )
    assert.equal(
      json(strongest).map((t: { strength: number }) => t.strength),
      [0.96, 0.96],
    )
    assert.is(tagPages().length, 3, 'sorted by strength: every page read')

    const every = await w.mas(['tag', 'list', '--tag-set', String(tagSet), '--csv', '--columns', 'id'], { env })
    assert.is(every.stdout.trimEnd().split('\n').length, 1 + TAGS)
    assert.is(tagPages().length, 3, 'on a pipe: every tag, in pages of 1,000')

    const tty = await w.tty(['tag', 'list', '--tag-set', String(tagSet), '--columns', 'id,start'], { env })
    try {
      assert.is(await tty.exited(), 0)
      assert.match(await tty.screen(), new RegExp(`\\d+ +49\n50 of ${TAGS} shown: --limit 100 or --limit 0 for all`))
    } finally {
      await tty.close()
    }
    assert.equal(tagPages(), [`/api/v0/tagSet/${tagSet}/tags/?page_size=50`], 'on a terminal: one page of a screenful')
  } finally {
    await proxy.close()
  }
})

test.run()
