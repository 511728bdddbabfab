import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { makeWav } from '../helpers/wav.js'
import { cliWorld, json, type CliWorld } from './cli.js'

// Long work in a real terminal: the bar, its notes and the summary on clean lines; Ctrl-C or SIGTERM
// restores the cursor, says what was done and how to finish, and exits 130.

let w: CliWorld
let folder: string
let gate: Server
let gated: string
let uploadsLetThrough = Infinity
let uploads = 0
/** how long the gate holds an upload past the first `uploadsLetThrough` before letting it through (undefined: for ever) */
let heldFor: number | undefined

const FILES = 12

test.before(async () => {
  w = await cliWorld()
  await w.loggedIn('alice')
  folder = join(w.newHome(), 'recordings')
  mkdirSync(folder)
  for (let i = 0; i < FILES; i++)
    writeFileSync(
      join(folder, `r${String(i).padStart(2, '0')}.wav`),
      makeWav({ frequency: 200 + 50 * i, seconds: 0.2, sampleRate: 8000 }),
    )
  // the real server behind a gate that holds every upload after the first `uploadsLetThrough`
  // (the network went quiet): the import is under way, and stays so until it is interrupted;
  // with `heldFor`, it lets each through after that long (a slow upload)
  const target = new URL(w.server)
  gate = createServer((req, res) => {
    const upload = req.method === 'POST' && String(req.headers['content-type']).startsWith('multipart/')
    if (upload && ++uploads > uploadsLetThrough) {
      if (heldFor === undefined) return
      req.pause()
      return setTimeout(() => {
        req.resume()
        pass(req, res)
      }, heldFor)
    }
    pass(req, res)
  })
  const pass = (req: IncomingMessage, res: ServerResponse) => {
    const forward = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    req.pipe(forward)
  }
  await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve))
  gated = `http://127.0.0.1:${(gate.address() as AddressInfo).port}`
})
test.after(async () => {
  gate.closeAllConnections()
  await new Promise((resolve) => gate.close(resolve))
  await w.close()
})

const library = async (name: string) => Number((await w.mas(['library', 'create', name])).stdout.trim())

for (const signal of ['C-c', 'SIGTERM'] as const) {
  test(`${signal} during an import: cursor shown again, "interrupted: N of ${FILES} files done", exit 130; a re-run finishes`, async () => {
    const lib = await library(`interrupted by ${signal}`)
    uploadsLetThrough = 3
    uploads = 0
    const tty = await w.tty(['media', 'import', folder, '--library', String(lib), '--concurrency', '1'], {
      env: { MAS_SERVER: gated },
    })
    try {
      await tty.waitFor(new RegExp(` 3/${FILES} files \\|`))
      assert.is(await tty.cursorVisible(), false) // the bar hides it while drawing
      if (signal === 'C-c') await tty.keys('C-c')
      else await tty.signal('SIGTERM')
      const screen = await tty.waitFor(/interrupted:/)
      assert.match(
        screen,
        new RegExp(`\\ninterrupted: 3 of ${FILES} files done, re-run the same command to finish$`, 'm'),
        screen,
      )
      assert.is(await tty.exited(), 130, await tty.screen())
      assert.is(await tty.cursorVisible(), true)
    } finally {
      await tty.close()
    }
    uploadsLetThrough = Infinity
    const rerun = await w.mas(['media', 'import', folder, '--library', String(lib), '--json'])
    assert.is(rerun.code, 0, rerun.stderr)
    const outcomes = json(rerun).map((r: any) => r.outcome)
    assert.is(outcomes.filter((o: string) => o === 'duplicate').length, 3)
    assert.is(outcomes.filter((o: string) => o === 'imported').length, FILES - 3)
  })
}

test('an upload under way when Ctrl-C comes is waited for, and counted: the summary says what the server stored', async () => {
  const lib = await library('interrupted while one is on its way')
  uploadsLetThrough = 3
  uploads = 0
  heldFor = 1500
  try {
    const tty = await w.tty(['media', 'import', folder, '--library', String(lib), '--concurrency', '1'], {
      env: { MAS_SERVER: gated },
    })
    try {
      await tty.waitFor(new RegExp(` 3/${FILES} files \\|`))
      await tty.keys('C-c')
      const screen = await tty.waitFor(/interrupted:/)
      assert.match(
        screen,
        new RegExp(`\\ninterrupted: 4 of ${FILES} files done, re-run the same command to finish$`, 'm'),
        screen,
      )
      assert.is(await tty.exited(), 130, await tty.screen())
    } finally {
      await tty.close()
    }
  } finally {
    heldFor = undefined
    uploadsLetThrough = Infinity
  }
  const stored = await w.t.db.selectFrom('media_files').select('id').where('library_id', '=', lib).execute()
  assert.is(stored.length, 4)
})

test("a large file on its way moves the bar's bytes before it is done", async () => {
  const lib = await library('one large file')
  const mixed = join(w.newHome(), 'mixed')
  mkdirSync(mixed)
  writeFileSync(join(mixed, 'a-small.wav'), makeWav({ seconds: 0.2, sampleRate: 8000 }))
  writeFileSync(join(mixed, 'b-large.wav'), makeWav({ seconds: 600, sampleRate: 8000 }))
  uploadsLetThrough = 1
  uploads = 0
  try {
    const tty = await w.tty(['media', 'import', mixed, '--library', String(lib), '--concurrency', '1'], {
      env: { MAS_SERVER: gated },
    })
    try {
      // the small file done (3.2 KB), and the large one's bytes counted as they are sent: tens of KB or more
      await tty.waitFor(/ 1\/2 files \| (\d{2,}(\.\d)? KB|[\d.]+ MB)\/9\.2 MB \|/)
      // the bar fills by the bytes sent, not by the files done (one of two would be half the bar)
      const bar = (await tty.screen()).split('\n').find((l) => / 1\/2 files \|/.test(l)) ?? ''
      const [, amount, unit] = / ([\d.]+) (KB|MB)\/9\.2 MB/.exec(bar) ?? []
      const share = Number(amount) / (unit === 'KB' ? 1024 : 1) / 9.2
      const cells = (bar.match(/[█░]/g) ?? []).length
      assert.ok(
        Math.abs((bar.match(/█/g) ?? []).length - share * cells) <= 2,
        `${bar} (${(share * 100).toFixed(0)}% of the bytes)`,
      )
      await tty.keys('C-c')
      await tty.waitFor(/interrupted: 1 of 2 files done/)
      assert.is(await tty.exited(), 130, await tty.screen())
    } finally {
      await tty.close()
    }
  } finally {
    uploadsLetThrough = Infinity
  }
})

test('a finished import on a terminal: the note above the bar, the bar, then the summary on a line of its own', async () => {
  const lib = await library('finished')
  assert.is(
    (await w.mas(['media', 'import', join(folder, 'r00.wav'), join(folder, 'r01.wav'), '--library', String(lib)])).code,
    0,
  )
  const tty = await w.tty(['media', 'import', folder, '--library', String(lib)])
  try {
    assert.is(await tty.exited(), 0)
    const lines = (await tty.screen()).split('\n').filter((l) => l && !l.startsWith('[exit '))
    assert.equal(
      lines.slice(-3).map((l) => l.replace(/[█░]+/, 'BAR').replace(/\| [\d.]+ [KMG]?B\/s \|/, '| RATE |')),
      [
        '2 file(s) already in library "finished"',
        `BAR ${FILES}/${FILES} files | ${((FILES * 3244) / 1024).toFixed(1)} KB/${((FILES * 3244) / 1024).toFixed(1)} KB | RATE | ETA 0s`,
        `Imported ${FILES - 2}, skipped 2 already present, skipped 0 not media, failed 0`,
      ],
    )
    assert.is(await tty.cursorVisible(), true)
  } finally {
    await tty.close()
  }
  // on a pipe: no bar, no escape codes, plain lines
  const piped = await w.mas(['media', 'import', folder, '--library', String(lib)])
  assert.is(piped.code, 0)
  assert.not.match(piped.stderr, /\x1b|\r/)
  assert.match(
    piped.stderr,
    new RegExp(`\\nImported 0, skipped ${FILES} already present, skipped 0 not media, failed 0\\n$`),
  )
})

test.run()
