import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { TagImportMemory } from '../../src/tagImportMemory.js'
import { tempDir } from '../helpers/tempDir.js'

const tags = [{ mediaFile: 1, tagClass: 2, startTime: 0, endTime: 1, minFrequency: 0, maxFrequency: 10 }]

test('what an import created survives a reload, per input and tag set, and goes once the import is done', () => {
  const root = tempDir('mas-memory-')
  const dir = join(root, 'data')
  const key = TagImportMemory.keyOf(tags, 3)
  assert.is.not(key, TagImportMemory.keyOf(tags, 4))
  assert.is.not(key, TagImportMemory.keyOf([{ ...tags[0], startTime: 0.5 }], 3))
  assert.is(TagImportMemory.keyOf(tags, 3), key)
  assert.is(TagImportMemory.at(dir).created(key).size, 0)

  TagImportMemory.at(dir).save(
    key,
    new Map([
      [0, 17],
      [2, 19],
    ]),
  )
  assert.equal(
    [...TagImportMemory.at(dir).created(key)],
    [
      [0, 17],
      [2, 19],
    ],
  )
  assert.is(TagImportMemory.at(dir).created(TagImportMemory.keyOf(tags, 4)).size, 0)
  assert.is(statSync(join(dir, 'tag-import-memory.json')).mode & 0o777, 0o600)

  TagImportMemory.at(dir).save(key, new Map())
  assert.is(TagImportMemory.at(dir).created(key).size, 0)
  assert.equal(JSON.parse(readFileSync(join(dir, 'tag-import-memory.json'), 'utf8')).entries, {})
  rmSync(root, { recursive: true, force: true })
})

test('an unreadable memory file remembers nothing; nothing to forget writes nothing', () => {
  const dir = tempDir('mas-memory-')
  writeFileSync(join(dir, 'tag-import-memory.json'), 'garbage')
  assert.is(TagImportMemory.at(dir).created(TagImportMemory.keyOf(tags, 1)).size, 0)
  const empty = join(dir, 'fresh')
  TagImportMemory.at(empty).save(TagImportMemory.keyOf(tags, 1), new Map())
  assert.not.ok(existsSync(empty))
  rmSync(dir, { recursive: true, force: true })
})

test.run()
