import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { sweepUncommittedMedia } from '../../../server/media/import.js'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import FormData from 'form-data'
import { suiteApp, testApp, type TestUser } from '../../helpers/app.js'
import { waitFor } from '../../helpers/jobs.js'
import { grant, makeLibrary, makeMediaFile } from '../../helpers/records.js'
import { importMedia, storedFiles } from '../../helpers/upload.js'
import { makeWav } from '../../helpers/wav.js'
import { makeCallers } from '../../helpers/world.js'

const t = suiteApp(test)
let alice: TestUser
let bob: TestUser
let carol: TestUser
let lib: number

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex')
const meta = (record: any) => Object.fromEntries(record.mediafilemetadata_set.map((m: any) => [m.name, m.value]))
const mediaCount = async (library: number) =>
  Number(
    (
      await t.db
        .selectFrom('media_files')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('library_id', '=', library)
        .executeTakeFirstOrThrow()
    ).n,
  )

test.before(async () => {
  ;({ alice, bob, carol } = await makeCallers(t))
  lib = await makeLibrary(t.db, alice)
})

test('WAVs of several formats import with exact metadata, a server-chosen name and an absolute url', async () => {
  const formats = [
    { bitsPerSample: 16, channels: 1, sampleRate: 44100, seconds: 1, duration: '1.0' },
    { bitsPerSample: 8, channels: 2, sampleRate: 8000, seconds: 2.5, duration: '2.5' },
    { bitsPerSample: 24, channels: 2, sampleRate: 96000, seconds: 0.5, duration: '0.5' },
    { bitsPerSample: 32, channels: 1, sampleRate: 22050, seconds: 2, duration: '2.0' },
  ]
  for (const f of formats) {
    const wav = makeWav(f)
    const res = await importMedia(t, alice, lib, wav, { filename: `tone-${f.bitsPerSample}.wav` })
    assert.is(res.statusCode, 201, res.body)
    const r = res.data
    assert.is(r.type, 1)
    assert.is(r.library, lib)
    assert.is(r.user, alice.id)
    assert.is(r.alias, `tone-${f.bitsPerSample}.wav`)
    assert.match(r.file, new RegExp(`^mediaFiles/${lib}/[0-9a-f]{24}\\.wav$`))
    assert.is(r.url, `http://localhost:80/media/${r.file}`)
    assert.equal(meta(r), {
      fileSize: String(wav.length),
      durationInSeconds: f.duration,
      sampleRate: String(f.sampleRate),
      numChannels: String(f.channels),
      bitsPerSample: String(f.bitsPerSample),
    })
    assert.ok(r.mediafilemetadata_set.every((m: any) => m.userEditable === false && m.mediaFile === r.id))
    const row = await t.db
      .selectFrom('media_files')
      .select(['md5', 'size'])
      .where('id', '=', r.id)
      .executeTakeFirstOrThrow()
    assert.equal([row.md5, Number(row.size)], [md5(wav), wav.length])
    assert.ok(storedFiles(t).includes(r.file))
  }
})

test('text fields: alias, realStartTime, a readable sensor; bad values are 400 with nothing stored', async () => {
  const sensor = await t.db
    .insertInto('sensors')
    .values({ user_id: alice.id, name: 's1' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const bobsSensor = await t.db
    .insertInto('sensors')
    .values({ user_id: bob.id, name: 's2' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const wav = makeWav({ frequency: 523 })
  const fields = { alias: 'dawn chorus', realStartTime: '2024-05-01T04:30:00', sensor: String(sensor.id) }
  const ok = await importMedia(t, alice, lib, wav, { fields })
  assert.is(ok.statusCode, 201, ok.body)
  assert.is(ok.data.alias, 'dawn chorus')
  assert.is(ok.data.realStartTime, '2024-05-01T04:30:00')
  assert.is(ok.data.sensor, sensor.id)
  const notHers = await importMedia(t, alice, lib, makeWav({ frequency: 525 }), {
    fields: { sensor: String(bobsSensor.id) },
  })
  assert.is(notHers.statusCode, 400)
  assert.equal(notHers.data, { sensor: [`Invalid pk "${bobsSensor.id}" - object does not exist.`] })

  const before = storedFiles(t)
  const bad = await importMedia(t, alice, lib, makeWav({ frequency: 524 }), {
    fields: { realStartTime: 'yesterday', sensor: '99999' },
  })
  assert.is(bad.statusCode, 400)
  assert.equal(Object.keys(bad.data), ['sensor', 'realStartTime'])
  assert.equal(bad.data.sensor, ['Invalid pk "99999" - object does not exist.'])
  assert.equal(storedFiles(t), before)
})

test('a client-sent file name never becomes a path', async () => {
  const res = await importMedia(t, alice, lib, makeWav({ frequency: 600 }), { filename: '../../../etc/passwd.wav' })
  assert.is(res.statusCode, 201)
  assert.is(res.data.alias, 'passwd.wav')
  assert.match(res.data.file, new RegExp(`^mediaFiles/${lib}/[0-9a-f]{24}\\.wav$`))
  assert.ok(storedFiles(t).every((f) => /^mediaFiles\/\d+\/[0-9a-f]{24}\.wav$/.test(f)))
})

test('the same bytes again: 200 with the existing record, nothing stored twice; another library gets its own', async () => {
  const wav = makeWav({ frequency: 880, seconds: 0.25 })
  const first = await importMedia(t, alice, lib, wav, { filename: 'a.wav' })
  assert.is(first.statusCode, 201)
  const files = storedFiles(t)
  const count = await mediaCount(lib)
  const again = await importMedia(t, alice, lib, wav, {
    filename: 'renamed.wav',
    fields: { md5: md5(wav).toUpperCase() },
  })
  assert.is(again.statusCode, 200)
  assert.is(again.data.id, first.data.id)
  assert.is(again.data.alias, 'a.wav')
  assert.equal(storedFiles(t), files)
  assert.is(await mediaCount(lib), count)

  const other = await makeLibrary(t.db, alice)
  const elsewhere = await importMedia(t, alice, other, wav)
  assert.is(elsewhere.statusCode, 201)
  assert.is.not(elsewhere.data.id, first.data.id)
})

test('concurrent imports of one file into one library store it once', async () => {
  const wav = makeWav({ frequency: 1234, seconds: 0.5 })
  const answers = await Promise.all([1, 2, 3, 4].map(() => importMedia(t, alice, lib, wav)))
  assert.equal(answers.map((a) => a.statusCode).sort(), [200, 200, 200, 201])
  assert.is(new Set(answers.map((a) => a.data.id)).size, 1)
  const rows = await t.db
    .selectFrom('media_files')
    .select('file')
    .where('md5', '=', md5(wav))
    .where('library_id', '=', lib)
    .execute()
  assert.is(rows.length, 1)
  assert.is(storedFiles(t).filter((f) => f.startsWith('.incoming')).length, 0)
})

test('a client md5 that does not match the bytes is 400 and nothing is stored', async () => {
  const wav = makeWav({ frequency: 300 })
  const files = storedFiles(t)
  const count = await mediaCount(lib)
  const res = await importMedia(t, alice, lib, wav, { fields: { md5: 'f'.repeat(32) } })
  assert.is(res.statusCode, 400)
  assert.match(res.data.md5[0], md5(wav))
  const malformed = await importMedia(t, alice, lib, wav, { fields: { md5: 'xyz' } })
  assert.is(malformed.statusCode, 400)
  assert.equal(malformed.data, { md5: ['Enter a valid md5 checksum: 32 hexadecimal digits.'] })
  assert.equal(storedFiles(t), files)
  assert.is(await mediaCount(lib), count)
  const right = await importMedia(t, alice, lib, wav, { fields: { md5: md5(wav) } })
  assert.is(right.statusCode, 201)
})

test('a file that is not media is 400 with a clear message; a missing file part or JSON body is 400', async () => {
  const files = storedFiles(t)
  const text = await importMedia(t, alice, lib, Buffer.from('just some notes, not audio\n'.repeat(50)), {
    filename: 'notes.wav',
  })
  assert.is(text.statusCode, 400)
  assert.equal(text.data, {
    file: [
      'Upload a valid media file. The file you uploaded is not a readable media file: its format was not recognised.',
    ],
  })
  const noise = await importMedia(t, alice, lib, Buffer.alloc(4096, 7))
  assert.is(noise.statusCode, 400)
  assert.ok(noise.data.file)
  assert.equal(storedFiles(t), files)

  const form = new FormData()
  form.append('alias', 'x')
  const noFile = await t.app.inject({
    method: 'POST',
    url: `/api/v0/library/${lib}/mediaFiles/import/`,
    payload: form.getBuffer(),
    headers: { ...form.getHeaders(), ...alice.auth },
  })
  assert.is(noFile.statusCode, 400)
  assert.equal(JSON.parse(noFile.body), { file: ['No file was submitted.'] })
  const json = await t.call('POST', `/api/v0/library/${lib}/mediaFiles/import/`, { as: alice, body: { alias: 'x' } })
  assert.is(json.statusCode, 400)
  assert.equal(json.data, { file: ['No file was submitted.'] })
})

test('import needs write on the library: 404 unreadable, 403 read-only, 201 with a write grant', async () => {
  const wav = makeWav({ frequency: 700 })
  assert.is((await importMedia(t, bob, lib, wav)).statusCode, 404)
  assert.is((await importMedia(t, undefined, lib, wav)).statusCode, 401)
  await grant(t.db, alice, { user: bob.id }, { library: lib }, ['read'])
  const readOnly = await importMedia(t, bob, lib, wav)
  assert.is(readOnly.statusCode, 403)
  assert.equal(readOnly.data, { detail: 'You do not have permission to perform this action.' })
  await grant(t.db, alice, { user: carol.id }, { library: lib }, ['read', 'write'])
  const written = await importMedia(t, carol, lib, wav)
  assert.is(written.statusCode, 201)
  assert.is(written.data.user, carol.id)
  assert.is((await importMedia(t, alice, 999999, wav)).statusCode, 404)
})

test('check answers, in order, the id holding each md5 (and size) in that library, or null', async () => {
  const other = await makeLibrary(t.db, alice)
  const a = makeWav({ frequency: 1500 }),
    b = makeWav({ frequency: 1600 }),
    c = makeWav({ frequency: 1700 })
  const ia = (await importMedia(t, alice, other, a)).data.id
  const ib = (await importMedia(t, alice, other, b)).data.id
  const elsewhere = await makeLibrary(t.db, alice)
  await importMedia(t, alice, elsewhere, c)
  const url = `/api/v0/library/${other}/mediaFiles/check/`
  const res = await t.call('POST', url, {
    as: alice,
    body: [
      { md5: md5(c), size: c.length },
      { md5: md5(b), size: b.length },
      { md5: md5(a).toUpperCase() },
      { md5: md5(a), size: a.length + 1 },
      { md5: md5(b), size: b.length },
    ],
  })
  assert.is(res.statusCode, 200)
  assert.equal(res.data, [null, ib, ia, null, ib])
  assert.equal((await t.call('POST', url, { as: alice, body: [] })).data, [])

  const many = Array.from({ length: 1000 }, (_, i) => ({
    md5: createHash('md5').update(String(i)).digest('hex'),
    size: i,
  }))
  const full = await t.call('POST', url, { as: alice, body: many })
  assert.is(full.statusCode, 200)
  assert.is(full.data.length, 1000)
  const tooMany = await t.call('POST', url, { as: alice, body: [...many, { md5: md5(a) }] })
  assert.is(tooMany.statusCode, 400)
  assert.equal(tooMany.data, { non_field_errors: ['Ensure this field has no more than 1000 elements.'] })
  const notList = await t.call('POST', url, { as: alice, body: { md5: md5(a) } })
  assert.is(notList.statusCode, 400)
  assert.equal(notList.data, { non_field_errors: ['Expected a list of items but got type "dict".'] })
  const badItems = await t.call('POST', url, { as: alice, body: [{ md5: md5(a) }, { md5: 'nope', size: -1 }, {}] })
  assert.is(badItems.statusCode, 400)
  assert.equal(badItems.data, [
    {},
    { md5: ['Enter a valid md5 checksum: 32 hexadecimal digits.'], size: ['A valid integer is required.'] },
    { md5: ['This field is required.'] },
  ])
  assert.is((await t.call('POST', url, { as: bob, body: [] })).statusCode, 404)
  assert.is((await t.call('GET', url, { as: alice })).statusCode, 405)
})

test('?md5= filters media file lists of a library and mediaFile/', async () => {
  const wav = makeWav({ frequency: 1900 })
  const id = (await importMedia(t, alice, lib, wav)).data.id
  const inLib = await t.call('GET', `/api/v0/library/${lib}/mediaFiles/?md5=${md5(wav)}`, { as: alice })
  assert.is(inLib.statusCode, 200)
  assert.equal(
    inLib.data.results.map((r: any) => r.id),
    [id],
  )
  const all = await t.call('GET', `/api/v0/mediaFile/?md5=${md5(wav).toUpperCase()}`, { as: alice })
  assert.equal(
    all.data.results.map((r: any) => r.id),
    [id],
  )
  const none = await t.call('GET', `/api/v0/mediaFile/?md5=${'0'.repeat(32)}`, { as: alice })
  assert.is(none.data.count, 0)
  const bad = await t.call('GET', `/api/v0/mediaFile/?md5=zz`, { as: alice })
  assert.is(bad.statusCode, 400)
  assert.equal(bad.data, { md5: ['Enter a valid md5 checksum: 32 hexadecimal digits.'] })
})

test('deleting a media file removes its stored file; deleting a library removes all of its files', async () => {
  const doomed = await makeLibrary(t.db, alice)
  const one = (await importMedia(t, alice, doomed, makeWav({ frequency: 2000 }))).data
  const two = (await importMedia(t, alice, doomed, makeWav({ frequency: 2100 }))).data
  const three = (await importMedia(t, alice, doomed, makeWav({ frequency: 2200 }))).data
  assert.ok(storedFiles(t).includes(one.file))
  const del = await t.call('DELETE', `/api/v0/mediaFile/${one.id}/`, { as: alice })
  assert.is(del.statusCode, 204)
  assert.not.ok(storedFiles(t).includes(one.file))
  assert.ok(storedFiles(t).includes(two.file))
  const delLib = await t.call('DELETE', `/api/v0/library/${doomed}/`, { as: alice })
  assert.is(delLib.statusCode, 204)
  assert.not.ok(storedFiles(t).includes(two.file))
  assert.not.ok(storedFiles(t).includes(three.file))
})

test('over the upload limit: 413, and neither a file nor a row is left', async () => {
  const small = await testApp({ maxUploadBytes: 2000 })
  try {
    const owner = await small.user('dora')
    const library = await makeLibrary(small.db, owner)
    const res = await importMedia(small, owner, library, makeWav({ seconds: 0.5 }))
    assert.is(res.statusCode, 413)
    assert.ok(typeof res.data.detail === 'string' && res.data.detail.includes('2000'))
    assert.equal(storedFiles(small), [])
    assert.is((await small.db.selectFrom('media_files').select('id').execute()).length, 0)
    const fits = await importMedia(small, owner, library, makeWav({ sampleRate: 8000, bitsPerSample: 8, seconds: 0.1 }))
    assert.is(fits.statusCode, 201)
  } finally {
    await small.close()
  }
})

test('an upload that breaks off mid-body leaves the library and the media directory unchanged', async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = t.app.server.address() as AddressInfo
  const count = await mediaCount(lib)
  const files = storedFiles(t)
  const wav = makeWav({ seconds: 20, frequency: 100 })
  const form = new FormData()
  form.append('alias', 'broken')
  form.append('file', wav, { filename: 'broken.wav', contentType: 'audio/wav' })
  const body = form.getBuffer()
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: `/api/v0/library/${lib}/mediaFiles/import/`,
    headers: { ...form.getHeaders(), ...alice.auth, 'content-length': String(body.length) },
  })
  req.on('error', () => {})
  req.write(body.subarray(0, Math.floor(body.length / 2)))
  // the server is receiving: its temporary file exists; then the client goes away
  await waitFor('upload in progress', async () => storedFiles(t).some((f) => f.startsWith('.incoming/')))
  req.destroy()
  await waitFor('temporary file removed', async () => !storedFiles(t).some((f) => f.startsWith('.incoming/')))
  assert.equal(storedFiles(t), files)
  assert.is(await mediaCount(lib), count)
  assert.is((await importMedia(t, alice, lib, makeWav({ seconds: 1, frequency: 101 }))).statusCode, 201)
})

test('start-up removes stored files whose import never committed; committed files and an import under way stay', async () => {
  const own = await makeLibrary(t.db, alice)
  const other = await makeLibrary(t.db, alice)
  const storage = t.app.storage
  const committed = await importMedia(t, alice, own, makeWav({ frequency: 1234 }), { filename: 'kept.wav' })
  assert.is(committed.statusCode, 201)
  const mediaRoot = t.app.config.mediaDir
  const put = (name: string) => {
    mkdirSync(join(mediaRoot, dirname(name)), { recursive: true })
    writeFileSync(join(mediaRoot, name), 'bytes')
  }
  // what a process killed between moving a file into place and committing its row leaves
  const orphan = `mediaFiles/${own}/${'a'.repeat(24)}.wav`
  const otherOrphan = `mediaFiles/${other}/${'b'.repeat(24)}.wav`
  put(orphan)
  put(otherOrphan)
  // an import into `own` under way: its file is in place, its row not yet committed
  const underWay = `mediaFiles/${own}/${'c'.repeat(24)}.wav`
  let release!: () => void
  const importing = t.db.transaction().execute(async (trx) => {
    await trx.selectFrom('libraries').select('id').where('id', '=', own).forUpdate().execute()
    put(underWay)
    await new Promise<void>((resolve) => {
      release = resolve
    })
    await makeMediaFile(trx, alice, own, { file: underWay })
  })
  await new Promise((r) => setTimeout(r, 50))
  const sweeping = sweepUncommittedMedia(t.db, storage)
  await new Promise((r) => setTimeout(r, 200))
  release()
  await importing
  assert.is(await sweeping, 2)
  const stored = storedFiles(t)
  assert.ok(stored.includes(committed.data.file))
  assert.ok(stored.includes(underWay), 'the file of the import under way was removed')
  assert.not.ok(stored.includes(orphan))
  assert.not.ok(stored.includes(otherOrphan))
  const served = await t.app.inject({ method: 'GET', url: `/media/${committed.data.file}`, headers: alice.auth })
  assert.is(served.statusCode, 200)
})

test.run()
