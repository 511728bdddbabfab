import { createWriteStream, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { once } from 'node:events'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestUser } from '../helpers/app.js'
import { makeLibrary, makeMediaFile, makeTagClass } from '../helpers/records.js'
import { cliWorld, type CliWorld } from './cli.js'

// A table read as a stream (issue 46): a generated BirdNET-Analyzer CSV of 10^6 rows goes through the real `mas`'s
// reading of every row (its format found, each row checked and matched to its recording), with `--dry-run`, within
// 200 MB of the process's peak resident memory (VmHWM, read from /proc while it runs): the reading holds a chunk at a
// time, so memory does not grow with the file. A bound, not a time. The same bound over the whole import, rows
// sent and created, is `npm run bench:interchange`'s figure (docs/decisions.md §32): making 10^6 tags takes a
// minute or two of the server's, more than a test should.

const ROWS = 1_000_000
const FILES = 100
const SPECIES = ['Turdus merula', 'Erithacus rubecula', 'Parus major', 'Fringilla coelebs', 'Sylvia atricapilla']
const BOUND_MB = 200

let w: CliWorld
let alice: TestUser

const aliasOf = (i: number) => `site${i % 10}/2025060${i % 7}_${String(i).padStart(6, '0')}.WAV`

test.before(async () => {
  w = await cliWorld()
  alice = await w.loggedIn('alice')
  const library = await makeLibrary(w.t.db, alice, 'Big season')
  for (let i = 0; i < FILES; i++) await makeMediaFile(w.t.db, alice, library, { alias: aliasOf(i) })
  for (const s of SPECIES) await makeTagClass(w.t.db, alice, library, s)
  await w.tagSet(alice, 'BirdNET', library)
})
test.after(async () => {
  await w.close()
})

/** The peak resident memory of a process so far, in MB (Linux's VmHWM). */
function peakMb(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : undefined
  } catch {
    return undefined // the process has ended
  }
}

test(`every row of a ${ROWS}-row BirdNET CSV is read and matched within ${BOUND_MB} MB of the CLI's memory`, async () => {
  const path = join(w.newHome(), 'season.BirdNET.results.csv')
  const out = createWriteStream(path)
  out.write('Start (s),End (s),Scientific name,Common name,Confidence,File\n')
  for (let i = 0; i < ROWS; i++) {
    const start = (Math.floor(i / FILES) % 1200) * 3
    const line =
      `${start}.0,${start + 3}.0,${SPECIES[i % SPECIES.length]},Some bird,${(0.1 + (i % 900) / 1000).toFixed(4)},` +
      `E:\\Season\\${aliasOf(i % FILES).replace('/', '\\')}\n`
    if (!out.write(line)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
  let peak = 0
  let timer: NodeJS.Timeout | undefined
  const run = await w.mas(['tag', 'import', path, '--tag-set', 'BirdNET', '--dry-run'], {
    onSpawn: (child) => {
      timer = setInterval(() => {
        peak = Math.max(peak, peakMb(child.pid!) ?? 0)
      }, 20)
    },
  })
  clearInterval(timer)
  assert.is(run.code, 0, run.stderr)
  const said = run.stdout + run.stderr
  assert.match(run.stdout, /BirdNET-Analyzer CSV\s+1000000\s+1000000\s+100\s+0/, said)
  assert.match(said, 'Dry run: 1000000 tags would be imported; nothing was sent')
  const count = await w.t.db
    .selectFrom('tags')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
  assert.is(Number(count.n), 0, 'a dry run sends nothing')
  assert.ok(peak > 0, 'the peak memory was read')
  assert.ok(peak <= BOUND_MB, `peak resident memory ${peak.toFixed(0)} MB, over ${BOUND_MB} MB`)
  process.stderr.write(`  (peak resident memory of reading ${ROWS} rows: ${peak.toFixed(0)} MB)\n`)
})

test.run()
