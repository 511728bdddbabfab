import { createHash, randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { LocalStorage } from '../../server/storage/local.js'
import { S3Storage } from '../../server/storage/s3.js'
import type { Storage } from '../../server/storage/storage.js'
import { startTestBucket, type TestBucket } from '../helpers/s3.js'
import { startMultipartFront, type MultipartFront } from '../helpers/s3multipart.js'
import { tempDir } from '../helpers/tempDir.js'

// One contract for every storage back-end: the local directory and an S3-compatible bucket (s3rver,
// started here, behind the front that lists and aborts multipart uploads as S3 does) pass the same tests. Each back-end gives a factory of storages over ONE place, so a
// second storage stands for another process sharing the directory or the bucket.

interface Backend {
  name: string
  /** a new place; the answer makes storages over it (each one like a separate process) */
  place(): () => Storage
  close(): Promise<void>
}

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex')

async function bytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of stream) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

/** `total` random bytes in chunks of `chunk`, failing with `fail` after `failAfter` bytes when given */
async function* source(data: Buffer, chunk = 64 * 1024, failAfter?: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += chunk) {
    if (failAfter !== undefined && i >= failAfter) throw new Error('connection reset by peer')
    yield data.subarray(i, i + chunk)
    await new Promise((r) => setImmediate(r))
  }
}

/** asserts that `f` rejects (with an error matching `re`, when given) */
async function rejects(f: () => Promise<unknown>, re?: RegExp): Promise<void> {
  try {
    await f()
  } catch (e) {
    if (re) assert.match(String((e as Error).message), re, `${(e as Error).name}: ${(e as Error).message}`)
    return
  }
  assert.unreachable('expected a rejection')
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function contract(backend: Backend) {
  const test = suite(`storage contract: ${backend.name}`)
  test.after(() => backend.close())

  test('received bytes appear under their stored name only on commit, whole and listed', async () => {
    const storage = backend.place()()
    const data = randomBytes(100_000)
    const pending = await storage.receive(Readable.from([data]))
    assert.is(pending.md5, md5(data))
    assert.is(pending.size, data.length)
    assert.equal(await bytes(pending.read()), data, 'the pending bytes read back from the start')
    assert.is(await storage.stat('mediaFiles/1/a.wav'), null)
    assert.equal(await storage.list('mediaFiles/1'), [])
    await pending.commit('mediaFiles/1/a.wav')
    const info = await storage.stat('mediaFiles/1/a.wav')
    assert.is(info?.size, data.length)
    assert.ok(info!.modified instanceof Date && Math.abs(info!.modified.getTime() - Date.now()) < 120_000)
    assert.equal(await bytes(storage.read('mediaFiles/1/a.wav')), data)
    assert.equal(await storage.list('mediaFiles/1'), ['mediaFiles/1/a.wav'])
    assert.equal(await storage.list('mediaFiles'), [], 'list names only the files directly in the folder')
    await pending.discard()
    assert.is((await storage.stat('mediaFiles/1/a.wav'))?.size, data.length, 'discard after commit leaves the file')
    await rejects(() => pending.commit('mediaFiles/1/b.wav'))
  })

  test('ranges read the inclusive bytes asked for', async () => {
    const storage = backend.place()()
    const data = randomBytes(50_000)
    const pending = await storage.receive(Readable.from([data]))
    await pending.commit('r/file.bin')
    assert.equal(await bytes(storage.read('r/file.bin', { start: 0, end: 1 })), data.subarray(0, 2))
    assert.equal(await bytes(storage.read('r/file.bin', { start: 1000, end: 2999 })), data.subarray(1000, 3000))
    assert.equal(await bytes(storage.read('r/file.bin', { start: 49_990, end: 49_999 })), data.subarray(49_990))
  })

  test('a file of many parts streams in and reads back whole', async () => {
    const storage = backend.place()()
    const data = randomBytes(21 * 1024 * 1024 + 12_345)
    const pending = await storage.receive(source(data, 256 * 1024))
    assert.is(pending.md5, md5(data))
    assert.is(pending.size, data.length)
    await pending.commit('big/file.bin')
    assert.is((await storage.stat('big/file.bin'))?.size, data.length)
    assert.is(md5(await bytes(storage.read('big/file.bin'))), md5(data))
    const mid = 8 * 1024 * 1024 - 10
    assert.equal(await bytes(storage.read('big/file.bin', { start: mid, end: mid + 19 })), data.subarray(mid, mid + 20))
  })

  test('a broken upload rejects and leaves nothing to sweep', async () => {
    const open = backend.place()
    const storage = open()
    for (const failAfter of [100_000, 10 * 1024 * 1024]) {
      const data = randomBytes(failAfter + 1024 * 1024)
      await rejects(() => storage.receive(source(data, 256 * 1024, failAfter)), /connection reset/)
    }
    await sleep(1100)
    assert.is(await open().sweepIncoming(0), 0, 'nothing of the broken uploads was left behind')
  })

  test('discarded bytes are gone and cannot be committed', async () => {
    const open = backend.place()
    const storage = open()
    for (const size of [1000, 9 * 1024 * 1024]) {
      const pending = await storage.receive(source(randomBytes(size), 1024 * 1024))
      await pending.discard()
      await pending.discard()
      await rejects(() => pending.commit('d/x.bin'))
      assert.is(await storage.stat('d/x.bin'), null)
    }
    await sleep(1100)
    assert.is(await open().sweepIncoming(0), 0)
  })

  test('the sweep removes uploads abandoned by another process, never a live one of its own', async () => {
    const open = backend.place()
    const dead = open()
    const sweeper = open()
    // larger than one part of a multipart upload, which a bucket keeps in memory until commit
    const size = 9 * 1024 * 1024
    const abandoned = await dead.receive(source(randomBytes(size), 1024 * 1024))
    const live = await sweeper.receive(source(randomBytes(size + 1), 1024 * 1024))
    assert.is(await sweeper.sweepIncoming(60_000), 0, 'a fresh upload is not abandoned')
    await sleep(1100)
    assert.is(await sweeper.sweepIncoming(500), 1, "the other process's upload, older than the age, goes")
    assert.is(await sweeper.sweepIncoming(0), 0)
    await rejects(() => abandoned.commit('s/abandoned.bin'))
    await live.commit('s/live.bin')
    assert.is((await sweeper.stat('s/live.bin'))?.size, size + 1)
  })

  test('missing files and names that are no stored names', async () => {
    const storage = backend.place()()
    assert.is(await storage.stat('nothing/here.wav'), null)
    assert.is(await storage.stat('../etc/passwd'), null)
    assert.is(await storage.stat('.incoming/x.part'), null)
    await storage.remove('nothing/here.wav')
    await storage.remove('../x')
    assert.equal(await storage.list('nothing'), [])
    assert.equal(await storage.list('..'), [])
    await rejects(() => bytes(storage.read('nothing/here.wav')))
    assert.throws(() => storage.read('../etc/passwd'))
    const pending = await storage.receive(Readable.from([Buffer.from('x')]))
    await rejects(() => pending.commit('../outside'))
    await pending.discard()
  })

  test('remove deletes a stored file', async () => {
    const storage = backend.place()()
    const pending = await storage.receive(Readable.from([Buffer.from('bytes')]))
    await pending.commit('m/gone.txt')
    await storage.remove('m/gone.txt')
    assert.is(await storage.stat('m/gone.txt'), null)
    assert.equal(await storage.list('m'), [])
  })

  test('an empty file is stored and read', async () => {
    const storage = backend.place()()
    const pending = await storage.receive(Readable.from([]))
    assert.is(pending.size, 0)
    assert.is(pending.md5, md5(Buffer.alloc(0)))
    await pending.commit('e/empty.bin')
    assert.is((await storage.stat('e/empty.bin'))?.size, 0)
    assert.is((await bytes(storage.read('e/empty.bin'))).length, 0)
  })

  return test
}

const local: Backend = {
  name: 'local directory',
  place() {
    const root = tempDir('mas-storage-')
    return () => new LocalStorage(root)
  },
  close: async () => {},
}

let bucket: TestBucket | undefined
let front: MultipartFront | undefined
let places = 0
const s3: Backend = {
  name: 's3 bucket',
  place() {
    if (!bucket || !front) throw new Error('the test S3 server did not start')
    const settings = { ...bucket.settings(`place${++places}`), endpoint: front.endpoint }
    return () => new S3Storage(settings)
  },
  close: async () => {
    await front?.close()
    await bucket?.close()
  },
}

contract(local).run()
const s3Suite = contract(s3)
s3Suite.before(async () => {
  bucket = await startTestBucket()
  front = await startMultipartFront(bucket.endpoint)
})
s3Suite.run()
