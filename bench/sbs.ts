import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { benchArgs, runBench, usageError } from './args.js'
import { COMPARE_HEADER, compareRound, masTarget, referenceTarget, type CompareRow } from './compare.js'
import { wrkInstalled, type Driver } from './load.js'
import { median } from './median.js'
import { ROOT, startMas } from './processes.js'
import { referenceServiceDir, startReferenceService } from './referenceService.js'

// mas side by side with the original service (the reference implementation of the API) in one sitting: the
// reference started by its own scripts (referenceService.ts) and seeded by its seed, mas by seed:bench (in
// --data-dir, or a folder made and seeded here), then `--rounds` rounds, each measuring the five endpoints at
// every connection count on the reference and then on mas, row by row, with the machine's load. Ends with
// each row's ratio in every round and their median, and writes them to bench/results/sbs-<date>.json.
//   npm run bench:sbs -- [--rounds 3] [--duration 10] [--connections 32,4] [--data-dir DIR] [--driver wrk|autocannon]

const USAGE = `usage: npm run bench:sbs -- [--rounds 3] [--duration 10] [--connections 32,4] [--data-dir DIR]
         [--driver wrk|autocannon] [--out FILE]
  (--data-dir: a directory seeded by npm run seed:bench, kept; without it one is seeded here and removed.
   The reference service comes from MAS_DRF_SERVICE_DIR or shared/reference/drf-service beside the checkout.)`

const { values: opts } = benchArgs(USAGE, {
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32,4' },
    'data-dir': { type: 'string' },
    driver: { type: 'string' },
    out: { type: 'string' },
  },
})
const ROUNDS = Number(opts.rounds)
const DURATION = Number(opts.duration)
const CONNECTIONS = opts.connections.split(',').map(Number)
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) usageError(USAGE, '--rounds must be a whole number of at least 1')
if (!(DURATION > 0)) usageError(USAGE, '--duration must be a number of seconds')
if (CONNECTIONS.some((c) => !Number.isInteger(c) || c < 1))
  usageError(USAGE, '--connections must be whole numbers, e.g. 32,4')
const DRIVER: Driver =
  opts.driver === 'autocannon' || opts.driver === 'wrk'
    ? opts.driver
    : opts.driver
      ? usageError(USAGE, '--driver must be wrk or autocannon')
      : wrkInstalled()
        ? 'wrk'
        : 'autocannon'

async function main() {
  const found = referenceServiceDir()
  if ('error' in found) throw new Error(found.error)
  const seededHere = opts['data-dir'] ? null : mkdtempSync(join(tmpdir(), 'mas-sbs-'))
  // run as root, the embedded PostgreSQL runs as postgres, which must pass through the folder
  if (seededHere) chmodSync(seededHere, 0o755)
  const dataDir = opts['data-dir'] ? resolve(opts['data-dir']) : seededHere!
  try {
    if (seededHere) {
      process.stdout.write(`seeding mas in ${dataDir} (npm run seed:bench)\n`)
      execFileSync(process.execPath, [join(ROOT, 'dist', 'bench', 'seed.js'), '--data-dir', dataDir], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
      })
    }
    process.stdout.write(`starting the reference service from ${found.dir} (setup.sh, seed.py, serve.sh)\n`)
    const service = await startReferenceService(found.dir)
    const server = await startMas({ dataDir })
    try {
      const reference = referenceTarget(service.base, service.token, service.idsFile)
      const mas = await masTarget(server.base)
      process.stdout.write(
        `mas beside the original service: ${ROUNDS} round(s), ${DURATION} s per measurement, load from ${DRIVER}, ${cpus().length} cores\n`,
      )
      const rounds: CompareRow[][] = []
      for (let r = 1; r <= ROUNDS; r++) {
        process.stdout.write(`\nround ${r} of ${ROUNDS}\n${COMPARE_HEADER}`)
        rounds.push(await compareRound(reference, mas, DRIVER, DURATION, CONNECTIONS))
      }
      process.stdout.write(
        `\n${'endpoint'.padEnd(34)}${'conn'.padStart(5)}   ratio in each round (load)   median   target\n`,
      )
      const summary = rounds[0].map((row, i) => {
        const ratios = rounds.map((rs) => rs[i].ratio)
        const target = row.connections >= 32 ? 20 : 10
        const each = rounds.map((rs) => `${rs[i].ratio.toFixed(1)}x (${rs[i].load.toFixed(1)})`).join(', ')
        process.stdout.write(
          `${row.endpoint.padEnd(34)}${String(row.connections).padStart(5)}   ${each}   ${median(ratios).toFixed(1)}x   ${target}x${median(ratios) >= target ? '' : '  (missed)'}\n`,
        )
        return { endpoint: row.endpoint, connections: row.connections, ratios, median: median(ratios), target }
      })
      const dir = resolve(ROOT, 'bench', 'results')
      mkdirSync(dir, { recursive: true })
      const file = opts.out
        ? resolve(opts.out)
        : join(dir, `sbs-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
      writeFileSync(
        file,
        JSON.stringify(
          { date: new Date().toISOString(), driver: DRIVER, durationSeconds: DURATION, rounds, summary },
          null,
          2,
        ) + '\n',
      )
      process.stdout.write(`\nresults: ${file}\n`)
    } finally {
      await server.stop()
      service.stop()
    }
  } finally {
    if (seededHere) rmSync(seededHere, { recursive: true, force: true })
  }
}

await runBench(main)
