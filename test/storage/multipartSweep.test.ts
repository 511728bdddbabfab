import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { S3Storage, type S3Settings } from '../../server/storage/s3.js'
import { startMultipartFront, type MultipartFront, type TrackedUpload } from '../helpers/s3multipart.js'
import { startTestBucket, type TestBucket } from '../helpers/s3.js'

// Multipart uploads left open in the bucket (docs/architecture.md, "Storage"): one abandoned by a process
// killed mid-upload is listed and aborted by the sweep once older than any live upload could be, a younger
// one is left alone, and an upload that breaks off aborts its own. s3rver cannot list or abort multipart
// uploads, so the storage talks to it through a front that can (test/helpers/s3multipart.ts), which also
// ages uploads as the listings report them, so the test need not wait hours.

const MiB = 1024 * 1024
const HOUR = 3_600_000
/** the sweep's threshold for multipart uploads at the default slowest body (1024 B/s): 2 × 8 MiB / 1024 B/s */
const PART_SILENCE_MS = ((2 * 8 * MiB) / 1024) * 1000

const test = suite('s3 storage: multipart uploads left open')

let bucket: TestBucket
let front: MultipartFront
let places = 0

test.before(async () => {
  bucket = await startTestBucket()
  // one upload and one part per page, so the sweep's paging through both listings is exercised
  front = await startMultipartFront(bucket.endpoint, { pageSize: 1 })
})
test.after(async () => {
  await front?.close()
  await bucket?.close()
})

function place(): S3Settings {
  return { ...bucket.settings(`multipart${++places}`), endpoint: front.endpoint }
}

const under = (s: S3Settings) => (u: TrackedUpload) => u.key.startsWith(`${s.prefix}/`)

async function until<T>(what: string, f: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = f()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * A `node` process that starts one upload into the storage at `settings` for each size in `sizes`, each
 * sending its bytes and then waiting for more that never come; it is killed with SIGKILL once the front has
 * seen every upload's parts (8 MiB each): multipart uploads created with parts, never completed.
 */
async function crashMidUploads(settings: S3Settings, sizes: number[]): Promise<TrackedUpload[]> {
  const module = fileURLToPath(new URL('../../server/storage/s3.js', import.meta.url))
  const script = `
    const { S3Storage } = await import(${JSON.stringify(module)})
    const storage = new S3Storage(JSON.parse(process.argv[1]))
    setInterval(() => {}, 60_000)
    for (const size of JSON.parse(process.argv[2])) {
      storage.receive((async function* () { yield Buffer.alloc(size, 1); await new Promise(() => {}) })())
        .catch((e) => { console.error(e); process.exit(3) })
    }`
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', script, JSON.stringify(settings), JSON.stringify(sizes)],
    {
      env: process.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  )
  let stderr = ''
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const partsOf = (size: number) => Math.floor(size / (8 * MiB))
  try {
    return await until("the uploads' parts", () => {
      if (child.exitCode !== null) throw new Error(`the uploading process exited with ${child.exitCode}: ${stderr}`)
      const mine = front.open().filter(under(settings))
      const want = sizes.map(partsOf).sort()
      const have = mine.map((u) => u.parts.size).sort()
      return JSON.stringify(have) === JSON.stringify(want) ? mine : undefined
    })
  } finally {
    child.kill('SIGKILL')
    await exited
  }
}

test('a multipart upload abandoned by a killed process is aborted by the sweep once old enough, a younger one is left alone', async () => {
  const settings = place()
  // a 9 MiB and a 17 MiB file: one part and two parts sent when the process is killed
  const crashed = await crashMidUploads(settings, [9 * MiB, 9 * MiB + 1, 17 * MiB])
  const [old, young] = crashed.filter((u) => u.parts.size === 1)
  const longRunning = crashed.find((u) => u.parts.size === 2)!
  assert.ok(old && young && longRunning, 'three uploads left open by the killed process')

  const sweeper = new S3Storage(settings)
  // the sweeper's own upload, still receiving: never swept, whatever its age
  let finish!: () => void
  const finished = new Promise<void>((resolve) => {
    finish = resolve
  })
  const data = randomBytes(9 * MiB)
  const own = sweeper.receive(
    (async function* () {
      yield data
      await finished
    })(),
  )
  const ownUpload = await until("the sweeper's own part", () =>
    front
      .open()
      .filter(under(settings))
      .find((u) => !crashed.includes(u) && u.parts.size === 1),
  )

  assert.is(await sweeper.sweepIncoming(60_000), 0, 'nothing is old enough yet')

  front.age(old.uploadId, PART_SILENCE_MS + HOUR, [PART_SILENCE_MS + HOUR])
  // older than the age asked for, but a part could still be on its way at the slowest body accepted
  front.age(young.uploadId, PART_SILENCE_MS - HOUR, [PART_SILENCE_MS - HOUR])
  // initiated long ago, but its latest part is recent: an upload of a long file still going on elsewhere
  front.age(longRunning.uploadId, PART_SILENCE_MS + HOUR, [PART_SILENCE_MS + HOUR, undefined])
  front.age(ownUpload.uploadId, PART_SILENCE_MS + HOUR, [PART_SILENCE_MS + HOUR])

  assert.is(await sweeper.sweepIncoming(60_000), 1, 'only the old abandoned upload goes')
  assert.equal(
    front.aborted.map((u) => u.uploadId),
    [old.uploadId],
  )
  assert.equal(
    front
      .open()
      .filter(under(settings))
      .map((u) => u.uploadId)
      .sort(),
    [young.uploadId, longRunning.uploadId, ownUpload.uploadId].sort(),
  )

  front.age(young.uploadId, PART_SILENCE_MS + HOUR, [PART_SILENCE_MS + HOUR])
  front.age(longRunning.uploadId, PART_SILENCE_MS + HOUR, [PART_SILENCE_MS + HOUR, PART_SILENCE_MS + 1000])
  assert.is(await sweeper.sweepIncoming(60_000), 2, 'once old enough, the others go too')
  assert.equal(
    new Set(front.aborted.map((u) => u.uploadId)),
    new Set([old.uploadId, young.uploadId, longRunning.uploadId]),
  )
  assert.equal(
    front
      .open()
      .filter(under(settings))
      .map((u) => u.uploadId),
    [ownUpload.uploadId],
  )

  finish()
  const pending = await own
  await pending.commit('kept/own.bin')
  assert.is((await sweeper.stat('kept/own.bin'))?.size, data.length, 'the live upload completed after the sweeps')
  assert.equal(front.open().filter(under(settings)), [])
})

test('an upload that breaks off aborts its multipart upload', async () => {
  const settings = place()
  const storage = new S3Storage(settings)
  const before = front.aborted.length
  const data = randomBytes(20 * MiB)
  const source = async function* () {
    for (let i = 0; i < data.length; i += MiB) {
      if (i >= 17 * MiB) throw new Error('connection reset by peer')
      yield data.subarray(i, i + MiB)
    }
  }
  try {
    await storage.receive(source())
    assert.unreachable('the upload should have failed')
  } catch (e) {
    assert.match(String((e as Error).message), /connection reset/)
  }
  const aborted = front.aborted.slice(before).filter(under(settings))
  assert.is(aborted.length, 1, "the upload's multipart upload was aborted")
  assert.ok(aborted[0].parts.size >= 1, `it had parts when aborted (${aborted[0].parts.size})`)
  assert.equal(front.open().filter(under(settings)), [], 'nothing of it is left open')
  assert.is(await storage.sweepIncoming(0), 0, 'nothing is left to sweep')
})

test.run()
