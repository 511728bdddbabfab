import { spawn } from 'node:child_process'
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { makeWav, wavChunks } from '../test/helpers/wav.js'
import { benchArgs, runBench } from './args.js'
import { ADMIN, adminToken, cpuSeconds, json, rawImport, startImportServer } from './importServer.js'
import { nodeArgsFrom } from './processes.js'

// CLI benchmark: the real `mas` binary (node bin/run.js, a HOME of its own, logged in
// with --password-stdin) against a real `mas server start` over loopback.
//   1. `mas media import DIR --concurrency N` of many 1-second WAVs: files/s, next to the
//      raw import endpoint driven at the same concurrency in the same run, before and after
//      the CLI (the mean of the two; target ≥ 80%)
//   2. `mas tag import` of a CSV: tags/s (target ≥ 20,000; also with --concurrency N, for comparison)
//   3. the CLI's peak RSS (VmHWM) while importing one big WAV (target < 200 MB)
//   4. one command at a time, as a shell loop runs them: `node -e 0`, `mas --version`, and `mas tag create`
//      with names (target ≤ 0.4 s each, the first one, which looks the names up, included)
// Results go to bench/results/cli-<time>.json.

const USAGE = `usage: npm run bench:cli -- [--embedded] [--quick] [--files N] [--tags N] [--big-mib N] [--concurrency N] [--commands N] [--commands-only]
  --embedded     the embedded database instead of PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test)
  --quick        small sizes (100 files, 10,000 tags, 64 MiB) unless given
  --files N      1-second WAVs imported (1000)
  --tags N       CSV rows imported (100000)
  --big-mib N    size of the big WAV in MiB (1024)
  --concurrency  uploads at once, CLI and raw (4)
  --commands N   runs of each single command timed one after another (200; 50 with --quick)
  --commands-only  only the single commands (4.)`

const { values: opts } = benchArgs(USAGE, {
  options: {
    embedded: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    files: { type: 'string' },
    tags: { type: 'string' },
    'big-mib': { type: 'string' },
    concurrency: { type: 'string', default: '4' },
    commands: { type: 'string' },
    'commands-only': { type: 'boolean', default: false },
  },
})
const FILES = Number(opts.files ?? (opts.quick ? 100 : 1000))
const TAGS = Number(opts.tags ?? (opts.quick ? 10_000 : 100_000))
const BIG_MIB = Number(opts['big-mib'] ?? (opts.quick ? 64 : 1024))
const CONCURRENCY = Number(opts.concurrency)
const COMMANDS = Number(opts.commands ?? (opts.quick ? 50 : 200))
const DATABASE_URL = opts.embedded ? undefined : process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'
const MiB = 1024 * 1024
const TARGETS = { ratio: 0.8, tagsPerSecond: 20_000, peakRssMB: 200, tagCreateSeconds: 0.4 }

interface Run {
  code: number | null
  stdout: string
  stderr: string
  seconds: number
  peakRssMiB: number
  cpuSeconds: number
}

/** `mas args...` as a child process with `home` as its HOME; its peak RSS from /proc/<pid>/status (VmHWM). */
function mas(home: string, args: string[], input = ''): Promise<Run> {
  return timed(home, ['bin/run.js', ...args], input)
}

/** `node args...` as `mas` above. */
function timed(home: string, nodeArgs: string[], input = ''): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const k of Object.keys(env))
    if (k.startsWith('MAS_') || k.startsWith('XDG_') || k === 'DEBUG' || k === 'DATABASE_URL') delete env[k]
  Object.assign(env, { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data') })
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [...nodeArgsFrom('BENCH_CLI_NODE_ARGS'), ...nodeArgs], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let hwmKiB = 0
    let cpu = 0
    const sample = () => {
      try {
        const kib = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0)
        hwmKiB = Math.max(hwmKiB, kib)
        cpu = Math.max(cpu, cpuSeconds(child.pid!))
      } catch {
        /* exited */
      }
    }
    const timer = setInterval(sample, 25)
    child.stdout.setEncoding('utf8').on('data', (c) => {
      stdout += c
    })
    child.stderr.setEncoding('utf8').on('data', (c) => {
      stderr += c
    })
    child.on('error', reject)
    // the last sample before the process is reaped: 'exit' fires after the kernel has freed /proc/<pid>, so sample on stdout's end too
    child.stdout.on('end', sample)
    child.on('close', (code) => {
      clearInterval(timer)
      resolve({
        code,
        stdout,
        stderr,
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
        peakRssMiB: hwmKiB / 1024,
        cpuSeconds: cpu,
      })
    })
    child.stdin.on('error', () => {})
    child.stdin.end(input)
  })
}

function ok(run: Run, what: string): Run {
  if (run.code !== 0) throw new Error(`${what} exited with ${run.code}:\n${run.stderr.slice(-2000)}`)
  return run
}

async function writeWavFile(path: string, mib: number): Promise<number> {
  const seconds = Math.max(1, Math.round((mib * MiB) / (44100 * 2 * 2)))
  await pipeline(Readable.from(wavChunks({ seconds, channels: 2, frequency: 440 })), createWriteStream(path))
  return 44 + seconds * 44100 * 2 * 2
}

const fmt = (n: number, d = 1) => n.toFixed(d)

/** seconds: wall-clock mean, median, first run, slowest; cpu: mean CPU (user + system, as /proc last saw it before the exit) */
interface Timing {
  what: string
  mean: number
  median: number
  first: number
  max: number
  cpu: number
}

/** `runs` of one command after another, as a shell loop runs them: seconds of each. */
async function loop(home: string, what: string, nodeArgs: string[], runs: number): Promise<Timing> {
  const seconds: number[] = []
  let cpu = 0
  for (let i = 0; i < runs; i++) {
    const run = ok(await timed(home, nodeArgs), what)
    seconds.push(run.seconds)
    cpu += run.cpuSeconds
  }
  const sorted = [...seconds].sort((a, b) => a - b)
  return {
    what,
    mean: seconds.reduce((a, b) => a + b, 0) / runs,
    median: sorted[Math.floor(runs / 2)],
    first: seconds[0],
    max: sorted[runs - 1],
    cpu: cpu / runs,
  }
}

/** 4. single commands: `node -e 0`, `mas --version`, and `mas tag create` naming its tag set, media file and
 * class (a new library of its own, so the first run looks the names up). */
async function singleCommands(home: string, base: string, token: string): Promise<Timing[]> {
  const library = (await json(base, 'POST', '/api/v0/library/', token, { name: 'single commands' })).id as number
  await json(base, 'POST', '/api/v0/tagSet/', token, { name: 'loop', library })
  await json(base, 'POST', '/api/v0/tagClass/', token, { className: 'robin', displayName: 'robin', library })
  await rawImport(base, token, library, [makeWav({ seconds: 10, frequency: 3000 })], 1)
  const create = [
    'bin/run.js',
    'tag',
    'create',
    '--tag-set',
    'loop',
    '--media-file',
    'tone-0.wav',
    '--tag-class',
    'robin',
    '--start',
    '1',
    '--end',
    '2',
  ]
  return [
    await loop(home, 'node -e 0', ['-e', '0'], COMMANDS),
    await loop(home, 'mas --version', ['bin/run.js', '--version'], COMMANDS),
    await loop(home, 'mas tag create, with names', create, COMMANDS),
  ]
}

function printTimings(timings: Timing[]): void {
  const ms = (s: number) => `${fmt(s * 1000, 0)} ms`
  const rows = [
    ['command', 'runs', 'mean', 'median', 'first', 'slowest', 'CPU', 'target', 'met'],
    ...timings.map((t) => {
      const target = t.what.startsWith('mas tag create') ? TARGETS.tagCreateSeconds : undefined
      return [
        t.what,
        String(COMMANDS),
        ms(t.mean),
        ms(t.median),
        ms(t.first),
        ms(t.max),
        ms(t.cpu),
        target ? `≤ ${ms(target)} each` : '',
        target ? (t.mean <= target ? 'yes' : 'NO') : '',
      ]
    }),
  ]
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)))
  for (const r of rows)
    console.log(
      r
        .map((cell, c) => cell.padEnd(widths[c]))
        .join('  ')
        .trimEnd(),
    )
}

async function main() {
  const machine = `${cpus()[0]?.model ?? '?'} × ${cpus().length}, ${fmt(totalmem() / 1024 ** 3)} GiB RAM, Node ${process.version}`
  const database = DATABASE_URL ? 'PostgreSQL' : 'embedded PostgreSQL'
  console.log(`mas CLI benchmark — ${new Date().toISOString()}`)
  console.log(
    `machine: ${machine}, load average ${loadavg()
      .map((l) => fmt(l, 2))
      .join(' ')}, database: ${database}`,
  )
  console.log(`sizes: ${FILES} files, ${TAGS} tags, ${BIG_MIB} MiB big file, concurrency ${CONCURRENCY}`)

  const work = mkdtempSync(join(tmpdir(), 'mas-bench-cli-'))
  const home = join(work, 'home')
  mkdirSync(home)
  const server = await startImportServer(DATABASE_URL)
  try {
    const token = await adminToken(server.base)
    const newLibrary = async (name: string) =>
      (await json(server.base, 'POST', '/api/v0/library/', token, { name })).id as number
    ok(
      await mas(
        home,
        ['login', '--server', server.base, '--username', ADMIN.username, '--password-stdin'],
        `${ADMIN.password}\n`,
      ),
      'mas login',
    )
    if (opts['commands-only']) {
      const timings = await singleCommands(home, server.base, token)
      console.log(
        `load average after: ${loadavg()
          .map((l) => fmt(l, 2))
          .join(' ')}`,
      )
      printTimings(timings)
      writeResult({
        date: new Date().toISOString(),
        machine,
        loadAverage: loadavg(),
        database,
        commands: COMMANDS,
        singleCommands: timings,
      })
      return
    }

    // warm the server (JIT, pools, the database's caches) with an import of the full size: after a
    // smaller one, the first measured import ran up to 40% slower than the next, and the CLI (measured
    // second) gained from that
    const warm = FILES
    await rawImport(
      server.base,
      token,
      await newLibrary('warm-up'),
      Array.from({ length: warm }, (_, i) => makeWav({ seconds: 1, frequency: 5000 + i })),
      CONCURRENCY,
    )

    // 1. many small files: the raw endpoint before and after the CLI (other load on the machine
    // shifts both alike), each run into a library of its own with bytes of its own
    const rawWavs = (offset: number) =>
      Array.from({ length: FILES }, (_, i) => makeWav({ seconds: 1, frequency: 200 + offset + i }))
    const rawBefore = await rawImport(server.base, token, await newLibrary('raw-before'), rawWavs(0), CONCURRENCY)
    const dir = join(work, 'recordings')
    mkdirSync(dir)
    for (let i = 0; i < FILES; i++)
      writeFileSync(
        join(dir, `tone-${String(i).padStart(5, '0')}.wav`),
        makeWav({ seconds: 1, frequency: 200 + FILES + i }),
      )
    const cliLibrary = await newLibrary('cli')
    const cliRun = ok(
      await mas(home, [
        'media',
        'import',
        dir,
        '--library',
        String(cliLibrary),
        '--concurrency',
        String(CONCURRENCY),
        '--json',
      ]),
      'mas media import',
    )
    const records = JSON.parse(cliRun.stdout) as { outcome: string; id: number | null }[]
    const imported = records.filter((r) => r.outcome === 'imported').length
    if (imported !== FILES) throw new Error(`mas media import imported ${imported} of ${FILES}`)
    const rawAfter = await rawImport(server.base, token, await newLibrary('raw-after'), rawWavs(2 * FILES), CONCURRENCY)
    const rawSeconds = (rawBefore + rawAfter) / 2
    const rawRate = FILES / rawSeconds
    const cliRate = FILES / cliRun.seconds
    const ratio = cliRate / rawRate

    // 2. tag import from a CSV file
    const mediaIds = records.map((r) => r.id!).slice(0, 100)
    const tagSet = Number(
      ok(
        await mas(home, ['tagset', 'create', 'bench', '--library', String(cliLibrary)]),
        'mas tagset create',
      ).stdout.trim(),
    )
    const classes: number[] = []
    for (const name of ['blackbird', 'robin', 'wren']) {
      classes.push(
        Number(
          ok(
            await mas(home, ['tagclass', 'create', name, '--library', String(cliLibrary)]),
            'mas tagclass create',
          ).stdout.trim(),
        ),
      )
    }
    const rows = ['mediaFile,tagClass,startTime,endTime,minFrequency,maxFrequency,strength']
    for (let i = 0; i < TAGS; i++) {
      const start = (i % 90) / 100
      rows.push(
        `${mediaIds[i % mediaIds.length]},${classes[i % classes.length]},${start},${start + 0.1},${(i % 50) * 100},${(i % 50) * 100 + 500},${(i % 10) / 10}`,
      )
    }
    const csv = join(work, 'tags.csv')
    writeFileSync(csv, rows.join('\n') + '\n')
    const tagRun = ok(await mas(home, ['tag', 'import', csv, '--tag-set', String(tagSet)]), 'mas tag import')
    const tagsPerSecond = TAGS / tagRun.seconds
    // for comparison: batches sent several at once (ids then no longer follow the input order)
    const tagRunParallel = ok(
      await mas(home, ['tag', 'import', csv, '--tag-set', String(tagSet), '--concurrency', String(CONCURRENCY)]),
      'mas tag import --concurrency',
    )

    // 3. one big file: the CLI's peak resident memory
    const big = join(work, 'big', 'long.wav')
    mkdirSync(join(work, 'big'))
    const bigBytes = await writeWavFile(big, BIG_MIB)
    const bigRun = ok(
      await mas(home, ['media', 'import', big, '--library', String(await newLibrary('big')), '--json']),
      'mas media import (big)',
    )
    rmSync(big)

    const rows3 = [
      ['measure', 'value', 'target', 'met'],
      [
        `raw import endpoint, ${FILES} × 1 s WAV, ${CONCURRENCY} at a time`,
        `${fmt(rawRate)} files/s (${fmt(rawBefore, 2)} s before, ${fmt(rawAfter, 2)} s after)`,
        '',
        '',
      ],
      [
        `mas media import, same, --concurrency ${CONCURRENCY}`,
        `${fmt(cliRate)} files/s (${fmt(cliRun.seconds, 2)} s)`,
        '',
        '',
      ],
      ['CLI / raw', `${fmt(ratio * 100)} %`, '≥ 80 %', ratio >= TARGETS.ratio ? 'yes' : 'NO'],
      [
        `mas tag import, ${TAGS} CSV rows`,
        `${fmt(tagsPerSecond, 0)} tags/s (${fmt(tagRun.seconds, 2)} s)`,
        '≥ 20000 tags/s',
        tagsPerSecond >= TARGETS.tagsPerSecond ? 'yes' : 'NO',
      ],
      [
        `  (for comparison) the same with --concurrency ${CONCURRENCY}`,
        `${fmt(TAGS / tagRunParallel.seconds, 0)} tags/s (${fmt(tagRunParallel.seconds, 2)} s)`,
        '',
        '',
      ],
      [
        `mas media import, one ${fmt(bigBytes / MiB, 0)} MiB WAV`,
        `peak RSS ${fmt(bigRun.peakRssMiB)} MiB (${fmt(bigRun.seconds, 1)} s, ${fmt(bigBytes / MiB / bigRun.seconds)} MiB/s)`,
        '< 200 MB',
        (bigRun.peakRssMiB * MiB) / 1e6 < TARGETS.peakRssMB ? 'yes' : 'NO',
      ],
      ['  (for scale) mas media import of the small files', `peak RSS ${fmt(cliRun.peakRssMiB)} MiB`, '', ''],
    ]
    const widths = rows3[0].map((_, c) => Math.max(...rows3.map((r) => r[c].length)))
    for (const r of rows3)
      console.log(
        r
          .map((cell, c) => cell.padEnd(widths[c]))
          .join('  ')
          .trimEnd(),
      )
    const timings = await singleCommands(home, server.base, token)
    printTimings(timings)

    const result = {
      date: new Date().toISOString(),
      machine,
      loadAverage: loadavg(),
      database,
      files: FILES,
      concurrency: CONCURRENCY,
      rawFilesPerSecond: rawRate,
      rawSecondsBefore: rawBefore,
      rawSecondsAfter: rawAfter,
      cliImportSeconds: cliRun.seconds,
      cliFilesPerSecond: cliRate,
      cliToRaw: ratio,
      tags: TAGS,
      tagsPerSecond,
      tagImportSeconds: tagRun.seconds,
      tagsPerSecondConcurrent: TAGS / tagRunParallel.seconds,
      bigFileMiB: bigBytes / MiB,
      bigFilePeakRssMiB: bigRun.peakRssMiB,
      bigFileSeconds: bigRun.seconds,
      smallFilesPeakRssMiB: cliRun.peakRssMiB,
      commands: COMMANDS,
      singleCommands: timings,
      met: {
        ratio: ratio >= TARGETS.ratio,
        tagsPerSecond: tagsPerSecond >= TARGETS.tagsPerSecond,
        peakRss: (bigRun.peakRssMiB * MiB) / 1e6 < TARGETS.peakRssMB,
      },
    }
    writeResult(result)
  } finally {
    await server.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

function writeResult(result: { date: string } & Record<string, unknown>): void {
  const out = new URL('../../bench/results/', import.meta.url)
  mkdirSync(out, { recursive: true })
  const file = new URL(`cli-${result.date.replace(/[:.]/g, '-')}.json`, out)
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n')
  console.log(`written to bench/results/${file.pathname.split('/').pop()}`)
}

await runBench(main)
