import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { findMediaFiles, isMediaFile, md5File } from '../../src/mediaFiles.js'
import { tempDir } from '../helpers/tempDir.js'

test('media files are recognised by extension, in any case', () => {
  for (const p of [
    'a.wav',
    'b.FLAC',
    'c.mp3',
    'd.ogg',
    'e.oga',
    'f.opus',
    'g.m4a',
    'h.aac',
    'i.aif',
    'j.aiff',
    'k.w64',
    'l.wv',
  ])
    assert.ok(isMediaFile(p), p)
  for (const p of ['notes.txt', 'wav', 'a.wav.bak', 'image.png']) assert.not.ok(isMediaFile(p), p)
})

test('folders are walked (subfolders with recursive), non-media and hidden files left out, each file once', async () => {
  const root = tempDir('mas-walk-')
  mkdirSync(join(root, 'sub'))
  for (const f of ['b.wav', 'a.flac', 'readme.md', '.hidden.wav', 'sub/c.wav']) writeFileSync(join(root, f), f)
  const flat = await findMediaFiles([root, join(root, 'b.wav')], false)
  assert.equal(
    flat.files.map((f) => f.path),
    [join(root, 'a.flac'), join(root, 'b.wav')],
  )
  assert.equal(
    flat.skipped.map((s) => [s.path, s.reason]),
    [
      [join(root, 'readme.md'), 'not a media file'],
      [join(root, 'sub'), 'a folder inside a folder (use --recursive)'],
    ],
  )
  const deep = await findMediaFiles([root, join(root, 'missing.wav')], true)
  assert.equal(
    deep.files.map((f) => f.path),
    [join(root, 'a.flac'), join(root, 'b.wav'), join(root, 'sub', 'c.wav')],
  )
  assert.equal(deep.files[0].size, 'a.flac'.length)
  assert.ok(deep.skipped.some((s) => s.failed && s.reason === 'no such file or folder'))
})

test('md5 of a file read as a stream equals the md5 of its bytes', async () => {
  const path = join(tempDir('mas-md5-'), 'x.wav')
  const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 7)
  writeFileSync(path, bytes)
  assert.is(await md5File(path), createHash('md5').update(bytes).digest('hex'))
})

test.run()
