import { rmSync } from 'node:fs'
import { Readable } from 'node:stream'
import { ListObjectsV2Command } from '@aws-sdk/client-s3'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { recordFailure } from '../../../server/analysis/results.js'
import { readFacts } from '../../../server/media/facts.js'
import { sweepUncommittedMedia } from '../../../server/media/import.js'
import { LocalStorage } from '../../../server/storage/local.js'
import { S3Storage } from '../../../server/storage/s3.js'
import { buildApp } from '../../../server/app.js'
import { tokenFor } from '../../../server/auth/routes.js'
import { localTimestamp } from '../../../server/db/time.js'
import { testApp, type TestApp, type TestUser } from '../../helpers/app.js'
import { testDatabase } from '../../helpers/db.js'
import { tempDir } from '../../helpers/tempDir.js'
import { makeJob, makeProject } from '../../helpers/jobs.js'
import { audioMothWav, bextWav, riffChunk, truncated } from '../../helpers/recorders.js'
import { makeLibrary } from '../../helpers/records.js'
import { startTestBucket, type TestBucket } from '../../helpers/s3.js'
import { importMedia, multipart, storedFiles } from '../../helpers/upload.js'
import { makeWav } from '../../helpers/wav.js'

// A server whose media live in an S3-compatible bucket (MAS_STORAGE_URL): import with deduplication,
// /media/ serving with Range, HEAD and the access rules, broken uploads, the uncommitted-media sweep
// and job result files, all through the bucket and nothing in the local media directory.

let bucket: TestBucket
let t: TestApp
let storage: S3Storage
let owner: TestUser, stranger: TestUser
let library: number
const PREFIX = 'server'

async function keys(under = ''): Promise<string[]> {
  const res = await storage.client.send(
    new ListObjectsV2Command({ Bucket: storage.settings.bucket, Prefix: `${PREFIX}/${under}` }),
  )
  return (res.Contents ?? []).map((o) => o.Key!.slice(PREFIX.length + 1)).sort()
}

test.before(async () => {
  bucket = await startTestBucket()
  const settings = bucket.settings(PREFIX)
  t = await testApp({ s3: settings })
  storage = new S3Storage(settings)
  owner = await t.user('olive')
  stranger = await t.user('sam')
  library = await makeLibrary(t.db, owner)
})
test.after(async () => {
  await t?.close()
  await bucket?.close()
})

test('an import lands in the bucket once, and /media/ serves it with Range and HEAD to whoever may read it', async () => {
  const wav = makeWav({ seconds: 2, sampleRate: 8000 })
  const first = await importMedia(t, owner, library, wav)
  assert.is(first.statusCode, 201)
  const again = await importMedia(t, owner, library, wav, { filename: 'copy.wav' })
  assert.is(again.statusCode, 200)
  assert.is(again.data.id, first.data.id)
  assert.equal(await keys(), [first.data.file], 'one object, under its stored name; nothing left incoming')
  assert.equal(storedFiles(t), [], 'nothing in the local media directory')

  const path = `/media/${first.data.file}`
  const whole = await t.app.inject({ method: 'GET', url: path, headers: owner.auth })
  assert.is(whole.statusCode, 200)
  assert.is(whole.headers['content-type'], 'audio/wav')
  assert.is(Number(whole.headers['content-length']), wav.length)
  assert.ok(whole.rawPayload.equals(wav))

  const part = await t.app.inject({ method: 'GET', url: path, headers: { ...owner.auth, range: 'bytes=100-1099' } })
  assert.is(part.statusCode, 206)
  assert.is(part.headers['content-range'], `bytes 100-1099/${wav.length}`)
  assert.is(Number(part.headers['content-length']), 1000)
  assert.ok(part.rawPayload.equals(wav.subarray(100, 1100)))
  const tail = await t.app.inject({ method: 'GET', url: path, headers: { ...owner.auth, range: 'bytes=-10' } })
  assert.is(tail.statusCode, 206)
  assert.ok(tail.rawPayload.equals(wav.subarray(wav.length - 10)))

  const head = await t.app.inject({ method: 'HEAD', url: path, headers: owner.auth })
  assert.is(head.statusCode, 200)
  assert.is(Number(head.headers['content-length']), wav.length)
  assert.is(head.rawPayload.length, 0)

  assert.is((await t.app.inject({ method: 'GET', url: path, headers: stranger.auth })).statusCode, 404)
  assert.is((await t.app.inject({ method: 'GET', url: path })).statusCode, 401)
  const unsatisfiable = await t.app.inject({
    method: 'GET',
    url: path,
    headers: { ...owner.auth, range: `bytes=${wav.length}-` },
  })
  assert.is(unsatisfiable.statusCode, 416)

  // the audio itself is decoded from the bucket (the code the discovery jobs read media with)
  const spectra = await t.call('GET', `/api/v0/mediaFile/${first.data.id}/spectra/?startTime=0.5&endTime=1.5`, {
    as: owner,
  })
  assert.is(spectra.statusCode, 200, JSON.stringify(spectra.data))
  assert.ok(spectra.data.numFrames > 0 && spectra.data.spectra.length === spectra.data.numFrames)
})

test('audio facts of files larger than one part, read by ranges from the bucket, equal those read from a local file', async () => {
  const long = { seconds: 70, sampleRate: 48000, channels: 2 }
  const plain = makeWav(long)
  const afterData = riffChunk(
    'RIFF',
    Buffer.concat([
      Buffer.from('WAVE'),
      plain.subarray(12),
      riffChunk(
        'LIST',
        Buffer.concat([Buffer.from('INFO'), riffChunk('ICMT', Buffer.from('a note after the audio\0'))]),
      ),
    ]),
  )
  const files = {
    plain,
    afterData,
    audioMoth: audioMothWav(new Date('2026-05-01T05:00:00Z'), { ...long, frequency: 700 }),
    bext: bextWav('2026-05-02', '06:30:00', { ...long, frequency: 900 }),
    truncated: truncated(makeWav({ ...long, frequency: 1100 }), 0.8),
  }
  const localDir = tempDir('mas-facts-')
  const local = new LocalStorage(localDir)
  try {
    for (const [name, bytes] of Object.entries(files)) {
      assert.ok(bytes.length > 9 * 1024 * 1024, `${name} is larger than one part`)
      const inBucket = await storage.receive(Readable.from([bytes]))
      const onDisk = await local.receive(Readable.from([bytes]))
      try {
        assert.ok(inBucket.readRange && !inBucket.localPath, `${name}: read by ranges`)
        assert.equal(await readFacts(inBucket), await readFacts(onDisk), name)
      } finally {
        await inBucket.discard()
        await onDisk.discard()
      }
    }
  } finally {
    rmSync(localDir, { recursive: true, force: true })
  }
})

test('a media file deleted through the API takes its object with it', async () => {
  const wav = makeWav({ seconds: 1, sampleRate: 8000, frequency: 300 })
  const imported = await importMedia(t, owner, library, wav)
  assert.is(imported.statusCode, 201)
  assert.ok((await keys()).includes(imported.data.file))
  const del = await t.call('DELETE', `/api/v0/mediaFile/${imported.data.id}/`, { as: owner })
  assert.is(del.statusCode, 204)
  assert.not.ok((await keys()).includes(imported.data.file))
})

test('an upload that breaks off or is no media leaves no row and no object', async () => {
  const before = await keys()
  const rows = await t.db.selectFrom('media_files').select('id').execute()
  const { payload, headers } = multipart({
    file: { data: makeWav({ seconds: 3, sampleRate: 8000, frequency: 500 }), filename: 'cut.wav' },
  })
  const cut = await t.app.inject({
    method: 'POST',
    url: `/api/v0/library/${library}/mediaFiles/import/`,
    payload: payload.subarray(0, payload.length - 2000),
    headers: { ...headers, ...owner.auth },
  })
  assert.is(cut.statusCode, 400)
  const notMedia = await importMedia(t, owner, library, Buffer.from('not audio at all'.repeat(100)), {
    filename: 'x.wav',
  })
  assert.is(notMedia.statusCode, 400)
  assert.equal(await keys(), before)
  assert.is((await t.db.selectFrom('media_files').select('id').execute()).length, rows.length)
})

test("a bucket that refuses the upload is the server's failure (500), and no row is written", async () => {
  // an app of its own without the OpenAPI check: a 500 is no answer the API documents
  const database = await testDatabase()
  const dir = tempDir('mas-broken-bucket-')
  const app = await buildApp({
    database,
    config: { dataDir: dir, mediaDir: `${dir}/media`, s3: { ...bucket.settings(PREFIX), bucket: 'no-such-bucket' } },
    logger: false,
  })
  try {
    const user = await database.db
      .insertInto('users')
      .values({
        username: 'olive',
        password: 'x',
        is_admin: false,
        is_active: true,
        date_joined: localTimestamp(),
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const lib = await makeLibrary(database.db, user)
    const { payload, headers } = multipart({
      file: { data: makeWav({ seconds: 1, sampleRate: 8000 }), filename: 'a.wav' },
    })
    const res = await app.inject({
      method: 'POST',
      url: `/api/v0/library/${lib}/mediaFiles/import/`,
      payload,
      headers: { ...headers, authorization: `Token ${await tokenFor(database.db, user.id)}` },
    })
    assert.is(res.statusCode, 500)
    assert.equal(JSON.parse(res.body), { detail: 'A server error occurred.' })
    assert.is((await database.db.selectFrom('media_files').select('id').execute()).length, 0)
  } finally {
    await app.close()
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the sweep removes objects of a library that no row names, and keeps the ones rows name', async () => {
  const named = (await t.db.selectFrom('media_files').select('file').where('library_id', '=', library).execute()).map(
    (r) => r.file,
  )
  assert.ok(named.length > 0)
  // what a server killed between storing an import's object and its commit leaves behind
  const orphan = await storage.receive(Readable.from([Buffer.from('orphan bytes')]))
  await orphan.commit(`mediaFiles/${library}/orphan_0123456789abcdef01234567.wav`)
  assert.is(await sweepUncommittedMedia(t.db, storage), 1)
  const left = await keys(`mediaFiles/${library}/`)
  assert.equal(left, named.sort())
})

test('job result files are written to and served from the bucket', async () => {
  const job = await makeJob(t.db, owner, await makeProject(t.db, owner), 1)
  await t.db.transaction().execute((trx) => recordFailure(trx, t.app.storage, job, 'the recorder was unplugged'))
  const row = await t.db.selectFrom('job_result_files').selectAll().where('job_id', '=', job).executeTakeFirstOrThrow()
  assert.ok((await keys()).includes(row.result_file!))
  const res = await t.app.inject({ method: 'GET', url: `/media/${row.result_file}`, headers: owner.auth })
  assert.is(res.statusCode, 200)
  assert.is(res.body, 'the recorder was unplugged\n')
})

test.run()
