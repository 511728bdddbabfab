import { rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { buildApp } from '../../server/app.js'
import { hashPassword } from '../../server/auth/passwords.js'
import { tokenFor } from '../../server/auth/routes.js'
import { localTimestamp } from '../../server/db/time.js'
import { testDatabase } from '../helpers/db.js'
import { tempDir } from '../helpers/tempDir.js'

// Closing the app (what SIGTERM does) lets requests already under way finish
// before the database it owns is closed: none of them ends in a 500.

/** the apps' data folders, removed when the suite ends */
const dataDirs: string[] = []
test.after(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
})

function appDataDir(): string {
  const dir = tempDir('mas-test-')
  dataDirs.push(dir)
  return dir
}

test('closing the app waits for a handler whose client has gone before it closes the database', async () => {
  const database = await testDatabase()
  const dataDir = appDataDir()
  const app = await buildApp({ database, ownsDatabase: true, config: { dataDir, mediaDir: join(dataDir, 'media') } })
  // a handler with a pause between two queries, as a list with embedded records has
  let outcome = 'not run'
  app.get('/slow', async () => {
    await database.db.selectFrom('users').select('id').execute()
    await new Promise((r) => setTimeout(r, 400))
    try {
      await database.db.selectFrom('users').select('id').execute()
      outcome = 'second query answered'
    } catch (e) {
      outcome = (e as Error).message
    }
    return { ok: true }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const req = request({ host: '127.0.0.1', port, path: '/slow' })
  req.on('error', () => {})
  req.end()
  await new Promise((r) => setTimeout(r, 150))
  req.destroy()
  await new Promise((r) => setTimeout(r, 50))
  const started = Date.now()
  await app.close()
  assert.is(outcome, 'second query answered')
  assert.ok(Date.now() - started < 5000, `closing took ${Date.now() - started} ms`)
})

test('a request under way when the app closes is answered, with its connection closed after it', async () => {
  const database = await testDatabase()
  const dataDir = appDataDir()
  const app = await buildApp({ database, ownsDatabase: true, config: { dataDir, mediaDir: join(dataDir, 'media') } })
  const user = await database.db
    .insertInto('users')
    .values({
      username: 'alice',
      password: await hashPassword('alice-pass'),
      is_admin: false,
      is_active: true,
      date_joined: localTimestamp(),
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const token = await tokenFor(database.db, user.id)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo

  const body = JSON.stringify({ name: 'written during shutdown' })
  const answered = new Promise<{ status: number; text: string; connection: string | undefined }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v0/library/',
        agent: new Agent({ keepAlive: true }),
        headers: {
          authorization: `Token ${token}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        let text = ''
        res
          .setEncoding('utf8')
          .on('data', (c) => {
            text += c
          })
          .on('end', () => resolve({ status: res.statusCode!, text, connection: res.headers.connection }))
      },
    )
    req.on('error', reject)
    req.write(body.slice(0, 5))
    setTimeout(() => req.end(body.slice(5)), 300)
  })
  await new Promise((r) => setTimeout(r, 100))
  const started = Date.now()
  const closed = app.close()
  const { status, text, connection } = await answered
  await closed
  assert.is(status, 201, text)
  assert.is(JSON.parse(text).name, 'written during shutdown')
  assert.is(connection, 'close')
  // the client's kept-alive connection does not hold the close up until it times out
  assert.ok(Date.now() - started < 4000, `closing took ${Date.now() - started} ms`)
})

test.run()
