import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { sql } from 'kysely'
import { cliWorld, type CliWorld, type Run } from '../test/cli/cli.js'
import { makeLibrary, makeMediaFile } from '../test/helpers/records.js'
import { benchArgs, runBench, usageError } from './args.js'
import { cpuSecondsOf, ownCpuSeconds, reapedCpuSeconds } from './cpu.js'
import { peakRssMiB, processTree } from './memory.js'
import { startProfile } from './profile.js'
import { boundServerHeap } from '../server/heap.js'

// Detectors' tables in and out (docs/decisions.md §32): the real `mas` against a real server (the tests' app on a
// port in this process, with the server's heap flags, its embedded database, without the tests' OpenAPI check of
// each answer) with a library of --files recordings.
//   1. `mas tag import` of a generated combined BirdNET-Analyzer CSV of --rows rows (each recording's rows together),
//      end to end (both readings, the classes created, every tag sent): rows/s and the CLI's peak resident memory
//      (VmHWM, read from /proc while it runs)
//   2. `mas tag export --format F` of the same tag set, vacuumed first, for csv, birdnet, kaleidoscope, aoef and audacity (--per-file):
//      rows/s and peak memory each, written to a file as `> FILE` would
// Figures are printed; targets (issue 46: ≥ 50,000 rows/s in, ≤ 200 MB, ≥ 150,000 rows/s out) are shown beside them.

const USAGE = `usage: npm run bench:interchange -- [--quick] [--rows N] [--files N] [--concurrency N] [--compare-with DIR] [--cpu-prof DIR]
  --quick         100,000 rows over 1,000 files, unless given
  --rows N        BirdNET rows imported (1000000)
  --files N       recordings in the library (10000)
  --concurrency N the import's --concurrency (1: its default, batches one at a time)
  --compare-with DIR
                  each export also made, and timed, by the \`mas\` of the checkout DIR (built): this mas, that one
                  twice, this one again; the files compared line by line, AOEF documents by their content whatever their layout, their
                  creation times aside (the benchmark fails when they differ)
  --cpu-prof DIR  CPU profiles into DIR: the import's, the CLI's (cli-import.cpuprofile) and the server's
                  (server-import.cpuprofile, this process, which serves), and each export's CLI's
                  (cli-export-FORMAT.cpuprofile), to open in Chrome's DevTools`

const { values: opts } = benchArgs(USAGE, {
  options: {
    quick: { type: 'boolean', default: false },
    rows: { type: 'string' },
    files: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'compare-with': { type: 'string' },
    concurrency: { type: 'string', default: '1' },
  },
})
const ROWS = Number(opts.rows ?? (opts.quick ? 100_000 : 1_000_000))
const FILES = Number(opts.files ?? (opts.quick ? 1_000 : 10_000))
/** scientific and common names, as BirdNET-Analyzer writes both */
const SPECIES = [
  ['Turdus merula', 'Eurasian Blackbird'],
  ['Erithacus rubecula', 'European Robin'],
  ['Parus major', 'Great Tit'],
  ['Fringilla coelebs', 'Common Chaffinch'],
  ['Sylvia atricapilla', 'Eurasian Blackcap'],
  ['Phylloscopus collybita', 'Common Chiffchaff'],
  ['Troglodytes troglodytes', 'Eurasian Wren'],
  ['Columba palumbus', 'Common Wood-Pigeon'],
  ['Strix aluco', 'Tawny Owl'],
  ['Dendrocopos major', 'Great Spotted Woodpecker'],
]
const OTHER_MAS = opts['compare-with'] === undefined ? undefined : resolve(opts['compare-with'], 'bin/run.js')
if (OTHER_MAS && !existsSync(OTHER_MAS)) usageError(USAGE, `--compare-with: no ${OTHER_MAS}`)
const TARGETS = { importRowsPerSecond: 50_000, peakMB: 200, exportRowsPerSecond: 150_000 }

const alias = (i: number) =>
  `site${String(i % 50).padStart(2, '0')}/2025${String(5 + (i % 3)).padStart(2, '0')}${String(1 + (i % 28)).padStart(2, '0')}_${String(i).padStart(6, '0')}.WAV`

/** A combined table as BirdNET-Analyzer writes one (its --combine_results): each recording's detections together, in
 * time order, the recordings one after another (the rows spread evenly over them). */
async function writeBirdnet(path: string): Promise<void> {
  const out = createWriteStream(path)
  out.write('Start (s),End (s),Scientific name,Common name,Confidence,File\r\n')
  const perFile = Math.ceil(ROWS / FILES)
  for (let i = 0; i < ROWS; i++) {
    const file = Math.floor(i / perFile)
    const start = (i % perFile) * 3
    const line = `${start}.0,${start + 3}.0,${SPECIES[(i * 7) % SPECIES.length].join(',')},${(0.1 + ((i * 37) % 900) / 1000).toFixed(4)},D:\\Season\\${alias(file).replace('/', '\\')}\r\n`
    if (!out.write(line)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

/** Where a run's CPU went, in seconds: the CLI's (this process's child, counted once it has ended), this process's
 * (the server's), and the database's (the processes below this one, with the backends that ended: the cluster). */
interface CpuSpent {
  cli: number
  server: number
  database: number
}

const clusterCpu = () => cpuSecondsOf(processTree(process.pid).slice(1), true)

const cpuLine = (cpu: CpuSpent) =>
  `  CPU s: CLI ${cpu.cli.toFixed(1)}, server ${cpu.server.toFixed(1)}, database ${cpu.database.toFixed(1)}`

/** `mas args`: its run, wall time, peak resident memory (the kernel's VmHWM, read while it runs), and CPU. */
async function measured(
  w: CliWorld,
  args: string[],
  nodeArgs: string[],
  stdoutFile?: string,
  bin?: string,
): Promise<{ run: Run; seconds: number; peak: number; cpu: CpuSpent }> {
  let peak = 0
  let timer: NodeJS.Timeout | undefined
  const server = ownCpuSeconds()
  const database = clusterCpu()
  const cli = reapedCpuSeconds()
  const started = process.hrtime.bigint()
  const run = await w.mas(args, {
    nodeArgs,
    stdoutFile,
    bin,
    onSpawn: (child) => {
      timer = setInterval(() => {
        peak = Math.max(peak, peakRssMiB(child.pid!))
      }, 25)
    },
    onStderr: (_text, child) => {
      peak = Math.max(peak, peakRssMiB(child.pid!))
    },
  })
  clearInterval(timer)
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const cpu = { cli: reapedCpuSeconds() - cli, server: ownCpuSeconds() - server, database: clusterCpu() - database }
  return { run, seconds, peak, cpu }
}

/** Whether two files hold the same lines (an export of 10^6 tags is hundreds of MB: read a line at a time). */
async function sameLines(a: string, b: string): Promise<boolean> {
  const left = createInterface({ input: createReadStream(a), crlfDelay: Infinity })[Symbol.asyncIterator]()
  const right = createInterface({ input: createReadStream(b), crlfDelay: Infinity })[Symbol.asyncIterator]()
  for (;;) {
    const [l, r] = await Promise.all([left.next(), right.next()])
    if (l.done || r.done) return !!l.done && !!r.done
    if (l.value !== r.value) return false
  }
}

/** An AOEF document's digest, whatever its layout and the order of its lists, without its members that say when
 * the export ran (each `created_on`) or a default (`is_issue: false`), which AOEF documents written before
 * 2026-12-02 held: the SHA-256 of each list of its data (and of what comes before them) in its text without
 * whitespace outside strings and without those members. A document of 10^6 tags is longer than a string may be, so
 * it is read in pieces cut at line breaks, which JSON holds only between values. */
async function aoefDigest(path: string): Promise<string> {
  const compact = (text: string) => text.replace(/("(?:[^"\\]|\\.)*")|\s+/g, (_all, string?: string) => string ?? '')
  const without = (text: string) => text.replace(/,"created_on":"[^"]*"|,"is_issue":false/g, '')
  // a list's key, which no value of an AOEF document holds but the list itself (a key within a string is escaped; an
  // annotation's "tags" are numbers, the vocabulary's objects)
  const LIST = /("(?:sound_event_annotations|sound_events|recordings|clips|clip_annotations)":\[|"tags":\[(?=[{\]]))/
  const parts = new Map<string, { hash: ReturnType<typeof createHash>; tail: string }>()
  let current = 'head'
  // each part's last characters, where a member may be cut, wait for its next text
  const add = (text: string) => {
    let part = parts.get(current)
    if (!part) parts.set(current, (part = { hash: createHash('sha256'), tail: '' }))
    const kept = without(part.tail + text)
    part.hash.update(kept.slice(0, Math.max(0, kept.length - 64)))
    part.tail = kept.slice(Math.max(0, kept.length - 64))
  }
  // a "tags" key at a piece's end waits for the piece after, which says which it is
  let held = ''
  const route = (text: string, last = false) => {
    let compacted = held + compact(text)
    held = ''
    if (!last && compacted.endsWith('"tags":[')) {
      held = '"tags":['
      compacted = compacted.slice(0, -held.length)
    }
    // split by a pattern of one group: each odd piece is a list's key
    compacted.split(LIST).forEach((piece, i) => {
      if (i % 2) current = piece
      add(piece)
    })
  }
  let rest = ''
  for await (const chunk of createReadStream(path, { encoding: 'utf8' }) as AsyncIterable<string>) {
    const text = rest + chunk
    const cut = text.lastIndexOf('\n') + 1
    route(text.slice(0, cut))
    rest = text.slice(cut)
  }
  route(rest, true)
  return [...parts]
    .map(([name, part]) => `${name}${part.hash.update(without(part.tail)).digest('hex')}`)
    .sort()
    .join(' ')
}

void runBench(async () => {
  // this process serves: with the heap `mas server start` gives its server (docs/decisions.md §17), set before the load
  boundServerHeap()
  const dir = mkdtempSync(join(tmpdir(), 'mas-interchange-'))
  // the server as it ships: without the tests' check of every answer against the OpenAPI document
  const w = await cliWorld({}, { checkAnswers: false })
  try {
    const alice = await w.loggedIn('alice')
    const library = await makeLibrary(w.t.db, alice, 'Season')
    for (let i = 0; i < FILES; i++) await makeMediaFile(w.t.db, alice, library, { alias: alias(i), file: `${i}.wav` })
    const set = await w.mas(['tagset', 'create', 'BirdNET', '--library', 'Season'])
    if (set.code !== 0) throw new Error(set.stderr)
    const csv = join(dir, 'season.BirdNET.results.csv')
    await writeBirdnet(csv)
    process.stdout.write(
      `interchange: ${ROWS} BirdNET rows over ${FILES} recordings; ${cpus().length} CPUs, load ${loadavg()[0].toFixed(1)}\n`,
    )

    const profileDir = opts['cpu-prof']
    if (profileDir) mkdirSync(profileDir, { recursive: true })
    const serverProfile = profileDir ? await startProfile() : undefined
    const { run, seconds, peak, cpu } = await measured(
      w,
      ['tag', 'import', csv, '--tag-set', 'BirdNET', '--create-classes', '--concurrency', opts.concurrency],
      profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', 'cli-import.cpuprofile'] : [],
    )
    if (serverProfile && profileDir) await serverProfile.stop(join(profileDir, 'server-import.cpuprofile'))
    if (run.code !== 0) throw new Error(`mas tag import exited with ${run.code}: ${run.stderr.slice(-2000)}`)
    process.stdout.write(
      `import   ${(ROWS / seconds).toFixed(0).padStart(8)} rows/s  (${seconds.toFixed(1)} s; target ≥ ${TARGETS.importRowsPerSecond})` +
        `  peak CLI memory ${peak.toFixed(0)} MB (target ≤ ${TARGETS.peakMB})${cpuLine(cpu)}\n`,
    )

    // the exports read a settled table: the first reading of 10^6 new rows otherwise sets their hint bits, beside an
    // autovacuum of the import, and that lands on whichever export comes first (BENCHMARKS.md)
    await sql`vacuum (analyze) tags`.execute(w.t.db)
    for (const format of ['csv', 'birdnet', 'kaleidoscope', 'aoef', 'audacity']) {
      const args = [
        'tag',
        'export',
        '--tag-set',
        'BirdNET',
        '--format',
        format,
        ...(format === 'audacity' ? ['--per-file', join(dir, 'tracks')] : []),
      ]
      // to a file, as a user's `> FILE`: an AOEF document of 10^6 tags is longer than a string may be
      const prof = profileDir
        ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', `cli-export-${format}.cpuprofile`]
        : []
      const out = await measured(w, args, prof, join(dir, `export.${format}`))
      if (out.run.code !== 0)
        throw new Error(`mas tag export --format ${format} exited with ${out.run.code}: ${out.run.stderr.slice(-2000)}`)
      let compared = ''
      if (OTHER_MAS && format !== 'audacity') {
        // this mas, the other twice, this mas again (ABBA, so neither gains from going first or last): their means
        const theirs = join(dir, `export.${format}.other`)
        const timesOther: number[] = []
        for (let k = 0; k < 2; k++) {
          const other = await measured(w, args, [], theirs, OTHER_MAS)
          if (other.run.code !== 0)
            throw new Error(`the other mas's export of ${format} failed: ${other.run.stderr.slice(-500)}`)
          timesOther.push(other.seconds)
        }
        const again = await measured(w, args, [], join(dir, `export.${format}`))
        if (again.run.code !== 0) throw new Error(`mas tag export --format ${format} failed: ${again.run.stderr}`)
        const ourText = join(dir, `export.${format}`)
        if (
          format === 'aoef'
            ? (await aoefDigest(ourText)) !== (await aoefDigest(theirs))
            : !(await sameLines(ourText, theirs))
        )
          throw new Error(`the exports of ${format} by this mas and by ${OTHER_MAS} differ`)
        const ours = (out.seconds + again.seconds) / 2
        const other = (timesOther[0] + timesOther[1]) / 2
        compared = `  (the same text as the other mas; ABBA means: this ${(ROWS / ours).toFixed(0)}, the other ${(ROWS / other).toFixed(0)} rows/s, ×${(other / ours).toFixed(2)})`
      }
      process.stdout.write(
        `export ${format.padEnd(13)} ${(ROWS / out.seconds).toFixed(0).padStart(8)} rows/s  (${out.seconds.toFixed(1)} s; target ≥ ${TARGETS.exportRowsPerSecond})` +
          `  peak CLI memory ${out.peak.toFixed(0)} MB${cpuLine(out.cpu)}${compared}\n`,
      )
    }
  } finally {
    await w.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
