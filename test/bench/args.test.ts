import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'

// The benchmark scripts answer --help and refuse a wrong option as mas's commands do (bench/args.ts):
// the usage on stdout, or one line and the usage on stderr, never a stack trace.

const script = (name: string) => fileURLToPath(new URL(`../../bench/${name}.js`, import.meta.url))
const run = (name: string, ...args: string[]) => {
  const env = { ...process.env }
  delete env.DATABASE_URL
  return spawnSync(process.execPath, [script(name), ...args], { encoding: 'utf8', env, timeout: 30_000 })
}

for (const name of ['api', 'seed', 'soak', 'cliBench', 'sbs']) {
  test(`${name}: --help prints the usage and exits 0`, () => {
    const r = run(name, '--help')
    assert.is(r.status, 0)
    assert.match(r.stdout, /^usage: npm run [a-z:]+ --/)
    assert.is(r.stderr, '')
  })

  test(`${name}: an unknown option is one line and the usage, exit status 2`, () => {
    const r = run(name, '--no-such-option')
    assert.is(r.status, 2)
    const [first, second] = r.stderr.split('\n')
    assert.match(first, /Unknown option '--no-such-option'/)
    assert.match(second, /^usage: /)
    assert.not.match(r.stderr, /\bat .*\.js:\d+/)
  })
}

test('seed: a wrong value and a missing database are named in one line', () => {
  const tags = run('seed', '--data-dir', '/nonexistent', '--tags', 'many')
  assert.equal([tags.status, tags.stderr.split('\n')[0]], [2, '--tags must be a whole number up to 10^7'])
  const noTarget = run('seed')
  assert.equal(
    [noTarget.status, noTarget.stderr.split('\n')[0]],
    [2, 'give --data-dir DIR (embedded PostgreSQL) or set DATABASE_URL'],
  )
  const api = run('api')
  assert.equal(
    [api.status, api.stderr.split('\n')[0]],
    [2, 'give --data-dir DIR (seeded with npm run seed:bench) or set DATABASE_URL'],
  )
})

test('sbs: wrong rounds, connections and a reference service that is not there are named in one line', () => {
  assert.equal(
    [run('sbs', '--rounds', '0').status, run('sbs', '--rounds', '0').stderr.split('\n')[0]],
    [2, '--rounds must be a whole number of at least 1'],
  )
  const conns = run('sbs', '--connections', '32,x')
  assert.equal([conns.status, conns.stderr.split('\n')[0]], [2, '--connections must be whole numbers, e.g. 32,4'])
  const missing = spawnSync(process.execPath, [script('sbs')], {
    encoding: 'utf8',
    env: { ...process.env, MAS_DRF_SERVICE_DIR: '/nonexistent' },
    timeout: 30_000,
  })
  assert.is(missing.status, 1)
  assert.is(missing.stderr, 'no reference service (setup.sh and serve.sh) in /nonexistent: set MAS_DRF_SERVICE_DIR\n')
})

test('discoveryBench: --only names its parts; a part it does not have is one line and the usage, exit status 2', () => {
  const help = run('discoveryBench', '--help')
  assert.is(help.status, 0)
  assert.match(help.stdout, /--only PARTS/)
  const wrong = run('discoveryBench', '--only', 'fewshot,nope')
  assert.equal(
    [wrong.status, wrong.stderr.split('\n')[0]],
    [2, '--only: no part nope (parts: hidden, loop, long, fewshot)'],
  )
  assert.match(wrong.stderr.split('\n')[1], /^Usage: /)
})

test.run()
