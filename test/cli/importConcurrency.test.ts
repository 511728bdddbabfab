import { request as httpRequest, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { DEFAULT_PROFILE, saveProfile } from '../../src/profiles.js'
import { makeLibrary, makeMediaFile, makeTagClass } from '../helpers/records.js'
import { tempDir } from '../helpers/tempDir.js'
import { cliWorld, type CliWorld } from './cli.js'

// `mas tag import --concurrency N` keeps N batches under way across the parts it reads a table in: only the
// import's first batch goes alone (its answer says whether the server takes arrays), not the first of every part.
// Seen from a proxy between the CLI and the server that holds each batch (a POST tag/) until another is under way
// beside it, or, when none comes within HELD_MS, lets it go alone and notes which it was. A part's batches all end
// before the next part's begin, so the last batch of a part may find its neighbour just ended: that one may go alone,
// no other. On a terminal, the parts share one progress bar.

const HELD_MS = 3000

let w: CliWorld
let proxy: Server
let proxyUrl: string
let tagSet: number
let newTagSet: (name: string) => Promise<number>
let dir: string
let batches = 0
/** the numbers (from 1) of the batches that went alone */
let alone: number[] = []
let underWay = 0
let waiting: Array<() => void> = []

/** Forwards a request to the server, answering with the server's answer. */
function forward(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  return new Promise((done) => {
    const upstream = httpRequest(
      new URL(req.url!, w.server),
      { method: req.method, headers: { ...req.headers, host: new URL(w.server).host } },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers)
        answer.pipe(res)
        answer.on('end', done)
      },
    )
    upstream.end(body)
  })
}

/** A request passed to the server: a batch (POST tag/) after the import's first held until another is under way beside
 * it, or HELD_MS. */
async function pass(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST' || !req.url!.startsWith('/api/v0/tag/')) return forward(req, body, res)
  const number = ++batches
  const first = number === 1
  underWay++
  if (!first) {
    if (underWay >= 2) {
      for (const go of waiting) go()
      waiting = []
    } else {
      const partnered = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), HELD_MS)
        waiting.push(() => {
          clearTimeout(timer)
          resolve(true)
        })
      })
      if (!partnered) alone.push(number)
    }
  }
  await forward(req, body, res)
  underWay--
}

test.before(async () => {
  w = await cliWorld({}, { checkAnswers: false })
  const alice = await w.t.user('alice')
  const library = await makeLibrary(w.t.db, alice, 'Season')
  const media = await makeMediaFile(w.t.db, alice, library, { file: 'dawn.wav' })
  const tagClass = await makeTagClass(w.t.db, alice, library, 'blackbird')
  newTagSet = (name) => w.tagSet(alice, name, library)
  tagSet = await newTagSet('detections')
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => void pass(req, Buffer.concat(chunks), res))
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const address = proxy.address() as AddressInfo
  proxyUrl = `http://127.0.0.1:${address.port}`
  await saveProfile(join(w.home, 'config', 'mas'), DEFAULT_PROFILE, {
    server: proxyUrl,
    username: alice.username,
    token: alice.token,
  })
  dir = tempDir('mas-import-concurrency-')
  // 13,000 rows: a part of 10,000 (the first batch alone, then two pairs of 2,000) and one of 3,000 (a pair)
  const rows = ['mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency']
  for (let i = 0; i < 13_000; i++) rows.push(`${media},${tagClass},${i / 10},${i / 10 + 0.05},1000,2000`)
  writeFileSync(join(dir, 'tags.csv'), rows.join('\n') + '\n')
})

test.after(async () => {
  await new Promise((resolve) => proxy.close(resolve))
  await w.close()
})

test('--concurrency 2: every batch after the first goes beside another, in the later part too', async () => {
  const run = await w.mas([
    'tag',
    'import',
    join(dir, 'tags.csv'),
    '--tag-set',
    String(tagSet),
    '--batch-size',
    '2000',
    '--concurrency',
    '2',
  ])
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stderr, /Imported 13000 tags/)
  assert.is(batches, 7)
  // batches 1–5 are the first part's (5 the last), 6–7 the second's
  const lastOfFirstPart = 5
  assert.equal(
    alone.filter((n) => n !== lastOfFirstPart),
    [],
    `batches ${alone.join(', ')} went alone`,
  )
  const stored = await w.t.db
    .selectFrom('tags')
    .select((e) => e.fn.countAll<string>().as('n'))
    .where('tag_set_id', '=', tagSet)
    .executeTakeFirstOrThrow()
  assert.is(Number(stored.n), 13_000)
})

test('on a terminal, the parts of an import share one progress bar', async () => {
  await newTagSet('on a terminal')
  const tty = await w.tty(
    [
      'tag',
      'import',
      join(dir, 'tags.csv'),
      '--tag-set',
      'on a terminal',
      '--batch-size',
      '2000',
      '--concurrency',
      '2',
    ],
    { cwd: dir },
  )
  try {
    const screen = await tty.waitFor(/Imported 13000 tags/, 60_000)
    assert.is(await tty.exited(), 0)
    const bars = screen.split('\n').filter((line) => /\d+\/13000 tags/.test(line))
    assert.is(bars.length, 1, screen)
    assert.match(bars[0], /13000\/13000 tags/)
  } finally {
    await tty.close()
  }
})

test.run()
