import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { DataDirInUse, lockDataDir } from '../../server/db/dataDirLock.js'

const dir = () => mkdtempSync(join(tmpdir(), 'mas-lock-'))

test('a data directory is locked to this process, and locking it again here is fine', () => {
  const d = dir()
  lockDataDir(d)
  assert.is(readFileSync(join(d, 'db.lock'), 'utf8'), String(process.pid))
  lockDataDir(d)
})

test('a live process holding the directory keeps it: DataDirInUse names its pid', async () => {
  const d = dir()
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' })
  try {
    writeFileSync(join(d, 'db.lock'), String(other.pid))
    try {
      lockDataDir(d)
      assert.unreachable('locked a directory another process holds')
    } catch (e) {
      assert.instance(e, DataDirInUse)
      assert.is((e as DataDirInUse).pid, other.pid)
      assert.match((e as Error).message, /--with-worker/)
    }
  } finally {
    other.kill('SIGKILL')
  }
})

test('a lock left by a process that no longer runs is taken over', async () => {
  const d = dir()
  const gone = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
  await new Promise((resolve) => gone.on('exit', resolve))
  writeFileSync(join(d, 'db.lock'), String(gone.pid))
  lockDataDir(d)
  assert.ok(existsSync(join(d, 'db.lock')))
  assert.is(readFileSync(join(d, 'db.lock'), 'utf8'), String(process.pid))
})

test.run()
