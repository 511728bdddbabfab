import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { setTimeout as delay } from 'node:timers/promises'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { abandonedUploadMs } from '../../server/maintenance.js'
import { LocalStorage } from '../../server/storage/local.js'
import { waitFor } from '../helpers/jobs.js'
import { killHard, serverHome, type ServerHome, type ServerProcess } from '../helpers/server.js'
import { multipart } from '../helpers/upload.js'

// Uploads that a crash cut off leave a partial file under `.incoming/`. Once it
// has not changed for longer than a live upload can stay silent, it is removed:
// at start-up and by a sweep every server runs; a live upload is never removed.

const partsIn = (root: string) => {
  const dir = join(root, '.incoming')
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.part')) : []
}

test('the abandoned-upload age follows the timeouts: 4 minutes by default', () => {
  assert.is(abandonedUploadMs({ idleTimeoutSeconds: 120, bodyRateWindowSeconds: 30 }), 240_000)
  assert.is(abandonedUploadMs({ idleTimeoutSeconds: 2, bodyRateWindowSeconds: 1 }), 4_000)
})

test('a sweep by another server on the same directory keeps an upload that is still writing, and removes it once it stalls', async () => {
  const root = mkdtempSync(join(tmpdir(), 'mas-sweep-'))
  try {
    const receiving = new LocalStorage(root)
    const sweeping = new LocalStorage(root)
    const source = new PassThrough()
    const received = receiving.receive(source).catch((e: Error) => e)
    for (let i = 0; i < 8; i++) {
      source.write(Buffer.alloc(64 * 1024, i))
      await delay(100)
      assert.is(await sweeping.sweepIncoming(300), 0, 'a live upload was swept')
    }
    assert.is(partsIn(root).length, 1)
    // the writer falls silent (its process is gone, as far as the other server can tell)
    await delay(450)
    assert.is(await sweeping.sweepIncoming(300), 1)
    assert.equal(partsIn(root), [])
    source.end()
    await received
    // a server never sweeps an upload of its own, however long it waits
    const stalled = new PassThrough()
    const second = receiving.receive(stalled).catch((e: Error) => e)
    stalled.write(Buffer.alloc(1024))
    await delay(50)
    assert.is(await receiving.sweepIncoming(1), 0)
    assert.is(partsIn(root).length, 1)
    assert.is(await sweeping.sweepIncoming(1), 1)
    stalled.end()
    await second
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

let home: ServerHome
let server: ServerProcess | undefined

test.after(async () => {
  if (server) await killHard(server)
  await home?.cleanup()
  if (home) rmSync(home.dataDir, { recursive: true, force: true })
})

test('kill -9 during an upload: after a restart the partial file is gone once it is older than the abandoned age', async () => {
  home = await serverHome()
  // abandoned after 4 s (idle timeout 2 s, rate window 1 s), so the test need not wait minutes
  Object.assign(home.env, {
    MAS_IDLE_TIMEOUT_SECONDS: '2',
    MAS_BODY_RATE_WINDOW_SECONDS: '1',
    MAS_MIN_BODY_BYTES_PER_SECOND: '1',
  })
  server = await home.start()
  const url = new URL(server.url)
  const token = (
    await (
      await fetch(`${server.url}/api-token-auth/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'root', password: 'root-pass' }),
      })
    ).json()
  ).token
  const library = (
    await (
      await fetch(`${server.url}/api/v0/library/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
        body: JSON.stringify({ name: 'crash' }),
      })
    ).json()
  ).id
  const { payload, headers } = multipart({
    file: { data: Buffer.alloc(8 * 1024 * 1024, 7), filename: 'big.wav', contentType: 'audio/wav' },
  })
  const socket = connect(Number(url.port), url.hostname)
  socket.on('error', () => {})
  await new Promise((r) => socket.once('connect', r))
  socket.write(
    `POST /api/v0/library/${library}/mediaFiles/import/ HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${token}\r\n` +
      `Content-Type: ${headers['content-type']}\r\nContent-Length: ${payload.length}\r\n\r\n`,
  )
  socket.write(payload.subarray(0, 2 * 1024 * 1024))
  const media = join(home.dataDir, 'media')
  await waitFor('the partial upload on disk', async () => partsIn(media).length === 1, 10)
  await killHard(server)
  socket.destroy()
  server = undefined
  assert.is(partsIn(media).length, 1, 'the crash left its partial file')

  server = await home.start()
  await waitFor('the abandoned partial file swept', async () => partsIn(media).length === 0, 20)
  const left = await fetch(`${server.url}/api/v0/mediaFile/?library=${library}`, {
    headers: { authorization: `Token ${token}` },
  })
  assert.is((await left.json()).count, 0)
})

test.run()
