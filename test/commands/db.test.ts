import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import pg from 'pg'
import { call, cleanup, mas, newDataDir, serve } from '../helpers/embedded.js'
import { postgresOf } from '../helpers/server.js'
import { multipart } from '../helpers/upload.js'
import { makeWav } from '../helpers/wav.js'

// mas db url, backup and restore on the embedded PostgreSQL, with the server running during the backup.

test('mas db url connects to the running cluster; refused in one line when nothing runs', async () => {
  const dataDir = newDataDir()
  try {
    const idle = mas(['db', 'url', '--data-dir', dataDir])
    assert.is(await idle.exited, 1)
    assert.is(idle.out().trim().split('\n').length, 1, idle.out())
    assert.match(idle.out(), 'no mas process is running')

    const s = await serve(dataDir)
    const lib = await call(s.url, 'POST', 'library/', { name: 'seen through psql' })
    const u = mas(['db', 'url', '--data-dir', dataDir])
    assert.is(await u.exited, 0, u.out())
    const client = new pg.Client({ connectionString: u.out().trim() })
    await client.connect()
    const rows = (await client.query('select name from libraries where id = $1', [lib.data.id])).rows
    await client.end()
    assert.equal(rows, [{ name: 'seen through psql' }])
    s.child.kill('SIGTERM')
    assert.is(await s.exited, 0)
  } finally {
    await cleanup(dataDir)
  }
})

test('mas db backup while the server runs, then mas db restore into a new data directory: rows and media come back', async () => {
  const dataDir = newDataDir()
  const backupDir = join(newDataDir(), 'backup')
  const restored = newDataDir()
  try {
    const s = await serve(dataDir)
    const auth = {
      authorization: `Token ${((await (await fetch(`${s.url}/api-token-auth/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'root', password: 'root-pass' }) })).json()) as { token: string }).token}`,
    }
    const lib = (await call(s.url, 'POST', 'library/', { name: 'backed up' })).data.id
    const wav = makeWav({ seconds: 1, frequency: 440 })
    const { payload, headers } = multipart({ file: { data: wav, filename: 'a.wav', contentType: 'audio/wav' } })
    const imported = await fetch(`${s.url}/api/v0/library/${lib}/mediaFiles/import/`, {
      method: 'POST',
      headers: { ...headers, ...auth },
      body: new Uint8Array(payload),
    })
    assert.is(imported.status, 201)
    const media = (await imported.json()) as { id: number; file: string }
    // writes go on while the backup runs
    let writing = true
    const writes = (async () => {
      let n = 0
      while (writing) {
        await call(s.url, 'POST', 'tagSet/', { name: `during ${n++}`, library: lib })
      }
      return n
    })()
    const b = mas(['db', 'backup', backupDir, '--data-dir', dataDir])
    assert.is(await b.exited, 0, b.out())
    writing = false
    await writes
    const after = (await call(s.url, 'POST', 'library/', { name: 'after the backup' })).data.id
    s.child.kill('SIGTERM')
    assert.is(await s.exited, 0)
    assert.equal(postgresOf(dataDir), [])

    const r = mas(['db', 'restore', backupDir, '--data-dir', restored])
    assert.is(await r.exited, 0, r.out())
    const again = await serve(restored)
    assert.is((await call(again.url, 'GET', `library/${lib}/`)).data.name, 'backed up')
    assert.is((await call(again.url, 'GET', `library/${after}/`)).status, 404)
    const file = (await call(again.url, 'GET', `mediaFile/${media.id}/`)).data
    assert.equal(readFileSync(join(restored, 'media', file.file)), wav)
    assert.is((await call(again.url, 'GET', `tagSet/?library=${lib}`)).status, 200)
    again.child.kill('SIGTERM')
    assert.is(await again.exited, 0)
    assert.equal(postgresOf(restored), [])

    // a restore never goes into a data directory in use
    const refused = mas(['db', 'restore', backupDir, '--data-dir', restored])
    assert.is(await refused.exited, 1)
    assert.match(refused.out(), 'is not empty')
  } finally {
    await cleanup(dataDir)
    await cleanup(join(backupDir, '..'))
    await cleanup(restored)
  }
})

test.run()
