import { loadImage } from '@napi-rs/canvas'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeLibrary, makeMediaFile } from '../../helpers/records.js'
import { signal, storedWav } from '../../helpers/signals.js'

// GET mediaFile/{Id}/spectra/: the feature code of the discovery jobs, to look
// at: JSON frames × bands with the caller's settings, or a PNG that decodes.

const RATE = 8000
const t = suiteApp(test)
let alice: TestUser, bob: TestUser
let media: number

test.before(async () => {
  alice = await t.user('alice')
  bob = await t.user('bob')
  const library = await makeLibrary(t.db, alice)
  media = await storedWav(
    t.db,
    t.app.config,
    alice,
    library,
    signal(2, RATE, [{ from: 0, to: 2, frequency: 1000 }], 0.01),
    RATE,
  )
})

test("JSON spectra: frames × bands with the caller's settings, the tone in its band", async () => {
  const res = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?startTime=0.5&endTime=1.5`, { as: alice })
  assert.is(res.statusCode, 200)
  const s = res.data
  assert.equal([s.mediaFile, s.startTime, s.endTime, s.framesPerSecond, s.numBands], [media, 0.5, 1.5, 100, 256])
  assert.is(s.numFrames, 100)
  assert.is(s.spectra.length, s.numFrames)
  assert.ok(s.spectra.every((row: number[]) => row.length === 256 && row.every(Number.isFinite)))
  assert.is(s.bandEdges.length, 257)
  assert.equal([s.bandEdges[0], s.bandEdges[256]], [0, 4000])
  const middle: number[] = s.spectra[50]
  const loudest = middle.indexOf(Math.max(...middle))
  assert.ok(
    s.bandEdges[loudest] <= 1000 + 32 && s.bandEdges[loudest + 1] >= 1000 - 32,
    `loudest band ${s.bandEdges[loudest]} Hz`,
  )
  await t.call('GET', '/api/v0/userSettings/', { as: alice })
  await t.db
    .updateTable('user_settings')
    .set({ spectra_num_frequency_bands: 16, spectra_num_frames_per_second: 10 })
    .where('user_id', '=', alice.id)
    .execute()
  const coarse = (await t.call('GET', `/api/v0/mediaFile/${media}/spectra/`, { as: alice })).data
  assert.equal([coarse.numBands, coarse.numFrames, coarse.spectra[0].length], [16, 20, 16])
})

test('PNG spectra: a picture of frames × bands with axes and a colour map, sized by the settings', async () => {
  const res = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?format=png&endTime=1`, { as: alice })
  assert.is(res.statusCode, 200)
  assert.is(res.headers['content-type'], 'image/png')
  const png = res.rawPayload
  assert.equal([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  assert.is(png.toString('ascii', 12, 16), 'IHDR')
  // 10 frames of 16 bands (the settings of the test before): the smallest plot, 480 × 256, and the margins (the colour bar's on the right)
  const image = await loadImage(png)
  assert.equal([image.width, image.height], [608, 332])
  const bad = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?format=png&tagSet=abc`, { as: alice })
  assert.equal([bad.statusCode, bad.data], [400, { tagSet: ['A valid integer is required.'] }])
  const missing = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?format=png&tagSet=999999`, { as: alice })
  assert.equal([missing.statusCode, missing.data], [400, { tagSet: ['Invalid pk "999999" - object does not exist.'] }])
})

test('spectra need read access; bad times are 400; bytes that are no WAV are 400', async () => {
  assert.is((await t.call('GET', `/api/v0/mediaFile/${media}/spectra/`, { as: bob })).statusCode, 404)
  assert.is((await t.call('GET', `/api/v0/mediaFile/${media}/spectra/`)).statusCode, 401)
  const bad = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?startTime=abc`, { as: alice })
  assert.equal([bad.statusCode, bad.data], [400, { startTime: ['A valid number is required.'] }])
  const backwards = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?startTime=1&endTime=0.5`, { as: alice })
  assert.equal([backwards.statusCode, backwards.data], [400, { endTime: ['endTime must be after startTime.'] }])
  // a range outside the 2 s file is refused naming the field, the file (by its alias) and the limit, not drawn blank
  const { alias } = await t.db
    .selectFrom('media_files')
    .select('alias')
    .where('id', '=', media)
    .executeTakeFirstOrThrow()
  const after = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?format=png&startTime=5&endTime=6`, {
    as: alice,
  })
  assert.equal(
    [after.statusCode, after.data],
    [400, { startTime: [`startTime 5.0 is past the end of media file ${media} (${alias}), at 2.0 s.`] }],
  )
  const past = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?startTime=1&endTime=3`, { as: alice })
  assert.equal(
    [past.statusCode, past.data],
    [400, { endTime: [`endTime 3.0 is past the end of media file ${media} (${alias}), at 2.0 s.`] }],
  )
  const format = await t.call('GET', `/api/v0/mediaFile/${media}/spectra/?format=gif`, { as: alice })
  assert.equal([format.statusCode, format.data], [400, { format: ['"gif" is not a valid choice.'] }])
  const noBytes = await makeMediaFile(t.db, alice, await makeLibrary(t.db, alice))
  const none = await t.call('GET', `/api/v0/mediaFile/${noBytes}/spectra/`, { as: alice })
  assert.is(none.statusCode, 400)
  assert.ok(typeof none.data.detail === 'string')
})

test.run()
