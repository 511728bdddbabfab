import { spawnSync } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { BIN } from '../helpers/server.js'
import { tempDir } from '../helpers/tempDir.js'

// `mas worker start --execution-provider`: where a worker runs its models. No machine of the tests has a GPU
// with CUDA, so a worker told to use one must refuse to start, in one line that says what it needs, before it
// touches the database or the data directory (README, "Workers on other machines").

test('a worker told to run models on CUDA where there is none refuses to start, in one line, touching nothing', () => {
  const home = tempDir('mas-worker-')
  const dataDir = join(home, 'data')
  try {
    const run = spawnSync(
      process.execPath,
      [BIN, 'worker', 'start', '--execution-provider', 'cuda', '--data-dir', dataDir],
      { encoding: 'utf8', timeout: 60_000, env: { ...process.env, DATABASE_URL: '' } },
    )
    assert.is(run.status, 1, run.stderr)
    assert.is(run.stdout, '')
    const lines = run.stderr.trim().split('\n')
    assert.is(lines.length, 1, run.stderr)
    assert.match(
      lines[0],
      /^Error: --execution-provider cuda: ONNX Runtime cannot run models on cuda here \(.+\); a worker running models on cuda needs the GPU, its CUDA and cuDNN libraries/,
    )
    assert.not.ok(existsSync(dataDir), 'no data directory made')
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
})

test('an execution provider it does not know is refused by name', () => {
  const run = spawnSync(process.execPath, [BIN, 'worker', 'start', '--execution-provider', 'tpu'], {
    encoding: 'utf8',
    timeout: 60_000,
  })
  assert.is.not(run.status, 0)
  assert.match(run.stderr, /tpu/)
  assert.match(run.stderr, /cpu, cuda/)
})

test.run()
