import { spawn } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

// `npm test`: the compiled tests whose path below dist/test matches PATTERN, run by uvu in shards side by side
// (MAS_TEST_SHARDS, default: the machine's cores, at most 2). One shard keeps about one core busy (its test, its
// server and the `mas` processes it starts mostly take turns), so two shards use the core one leaves idle; a third
// made a run on two cores no shorter (docs/architecture.md, "Tests"). The files are shared
// out largest first, each to the shard with the fewest bytes of tests so far: a file's size is the best guess
// of its time there is without running it (by the per-file times of one run of every file in turn, the
// shards' shares would be 0.47/0.53 this way, and 0.60/0.40 dealt out in turn). Each shard's output is
// printed whole when it ends, then one summary in uvu's words for all of them (what .ci/run counts). Every
// shard is one uvu process with its own embedded PostgreSQL, as a run of uvu alone is (test/helpers/db.ts).

const ROOT = resolve(fileURLToPath(import.meta.url), '..')
const UVU = resolve(ROOT, '../../node_modules/uvu/bin.js')

interface ShardResult {
  output: string
  code: number | null
  total: number
  passed: number
  skipped: number
}

/** The compiled test files below `dir` whose path matches `pattern` (never the declarations beside them). */
function testFiles(dir: string, pattern: RegExp): string[] {
  const found: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (name.endsWith('.test.js') && pattern.test(relative(ROOT, path))) found.push(relative(ROOT, path))
    }
  }
  walk(dir)
  return found
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

function runShard(files: string[]): Promise<ShardResult> {
  return new Promise((done) => {
    const only = `^(${files.map(escape).join('|')})$`
    const child = spawn(process.execPath, [UVU, ROOT, only], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('close', (code) => {
      // uvu's summary, its colours taken off
      const plain = output.replace(/\x1b\[[0-9;]*m/g, '')
      const count = (label: string) => Number(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(plain)?.[1] ?? 0)
      done({ output, code, total: count('Total'), passed: count('Passed'), skipped: count('Skipped') })
    })
  })
}

async function main(): Promise<void> {
  const pattern = new RegExp(process.argv[2] ?? '\\.test\\.js$')
  const files = testFiles(ROOT, pattern)
  if (!files.length) {
    process.stderr.write(`no test file below ${ROOT} matches ${pattern}\n`)
    process.exit(1)
  }
  const wanted = Number(process.env.MAS_TEST_SHARDS ?? Math.min(2, availableParallelism()))
  const count = Math.max(1, Math.min(Number.isInteger(wanted) ? wanted : 1, files.length))
  const shards: string[][] = Array.from({ length: count }, () => [])
  const bytes = new Array<number>(count).fill(0)
  const sizes = new Map(files.map((f) => [f, statSync(join(ROOT, f)).size]))
  const sizeOf = (f: string) => sizes.get(f)!
  for (const f of [...files].sort((a, b) => sizeOf(b) - sizeOf(a) || a.localeCompare(b))) {
    const k = bytes.indexOf(Math.min(...bytes))
    shards[k].push(f)
    bytes[k] += sizeOf(f)
  }
  for (const shard of shards) shard.sort()
  const started = performance.now()
  const results = await Promise.all(
    shards.map((shard) =>
      runShard(shard).then((r) => {
        process.stdout.write(r.output)
        return r
      }),
    ),
  )
  const sum = (key: 'total' | 'passed' | 'skipped') => results.reduce((n, r) => n + r[key], 0)
  const failed = results.some((r) => r.code !== 0) || sum('passed') + sum('skipped') < sum('total')
  process.stdout.write(
    `\n  ${files.length} test files in ${count} shard${count === 1 ? '' : 's'}\n` +
      `  Total:     ${sum('total')}\n  Passed:    ${sum('passed')}\n  Skipped:   ${sum('skipped')}\n` +
      `  Duration:  ${(performance.now() - started).toFixed(2)}ms\n\n`,
  )
  process.exitCode = failed ? 1 : 0
}

await main()
