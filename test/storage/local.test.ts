import { readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { LocalStorage } from '../../server/storage/local.js'
import { tempDir } from '../helpers/tempDir.js'

test('sweepIncoming removes only uploads left untouched longer than the limit', async () => {
  const root = tempDir('mas-storage-')
  const storage = new LocalStorage(root)
  const live = await storage.receive(Readable.from([Buffer.from('still arriving')]))
  const incoming = join(root, '.incoming')
  writeFileSync(join(incoming, 'dead.part'), 'left by a process that died')
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000)
  utimesSync(join(incoming, 'dead.part'), twoHoursAgo, twoHoursAgo)
  writeFileSync(join(incoming, 'notes.txt'), 'not an upload')
  utimesSync(join(incoming, 'notes.txt'), twoHoursAgo, twoHoursAgo)

  assert.is(await storage.sweepIncoming(3600_000), 1)
  const left = readdirSync(incoming).sort()
  assert.ok(left.includes('notes.txt'))
  assert.not.ok(left.includes('dead.part'))
  assert.ok(live.localPath && left.includes(live.localPath.split('/').pop()!))
  await live.commit('mediaFiles/1/kept.wav')
  assert.is((await storage.stat('mediaFiles/1/kept.wav'))?.size, 14)
})

test('sweepIncoming on a storage that never received anything removes nothing', async () => {
  const storage = new LocalStorage(tempDir('mas-storage-'))
  assert.is(await storage.sweepIncoming(0), 0)
})

test.run()
