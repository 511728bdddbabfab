import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ImportCache } from '../../src/importCache.js'
import { tempDir } from '../helpers/tempDir.js'

test('a hash is returned only while path, size and mtime are unchanged, and survives a reload', async () => {
  const dir = join(tempDir('mas-cache-'), 'mas')
  const cache = await ImportCache.at(dir).load()
  assert.is(cache.get('/a.wav', 10, 1000), undefined)
  cache.set('/a.wav', 10, 1000, 'd41d8cd98f00b204e9800998ecf8427e')
  await cache.save()
  const again = await ImportCache.at(dir).load()
  assert.is(again.get('/a.wav', 10, 1000), 'd41d8cd98f00b204e9800998ecf8427e')
  assert.is(again.get('/a.wav', 11, 1000), undefined)
  assert.is(again.get('/a.wav', 10, 1001), undefined)
  assert.is(again.get('/b.wav', 10, 1000), undefined)
})

test('an unreadable cache file starts empty', async () => {
  const dir = tempDir('mas-cache-')
  writeFileSync(join(dir, 'import-cache.json'), 'garbage')
  const cache = await ImportCache.at(dir).load()
  assert.is(cache.size, 0)
})

test.run()
