import { Readable } from 'node:stream'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { recordingBlocks, recordingWav } from '../../../bench/longRecording.js'
import { decodeAudio } from '../../../server/analysis/decode.js'
import { spectraSettingsOf, spectrogram } from '../../../server/analysis/spectra.js'
import { spectrogramPicture } from '../../../server/media/spectrogramPicture.js'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { CountingStorage } from '../../helpers/countingStorage.js'
import { flacChunks } from '../../helpers/flac.js'
import { makeLibrary, makeMediaFile } from '../../helpers/records.js'

// The spectrogram of a stretch of a long recording reads only that stretch from storage (the bytes
// of its frames in a WAV file, frames near it in a FLAC file), and is the spectrogram of the same
// stretch of the whole file decoded.

let counting: CountingStorage | undefined
const t = suiteApp(test, {}, { storage: (configured) => (counting = new CountingStorage(configured)) })
let alice: TestUser
let library: number

const RATE = 16000
const FRAMES = 10 * 60 * RATE // 10 minutes: 19 MB as 16-bit WAV
const recording = { sampleRate: RATE, seed: 29, callEvery: 4 }

test.before(async () => {
  alice = await t.user('alice')
  library = await makeLibrary(t.db, alice)
})

async function stored(
  name: string,
  chunks: Iterable<Buffer> | AsyncIterable<Buffer>,
): Promise<{ id: number; size: number }> {
  const pending = await t.app.storage.receive(Readable.from(chunks))
  await pending.commit(name)
  return { id: await makeMediaFile(t.db, alice, library, { file: name, alias: name }), size: pending.size }
}

const kinds: Array<[string, () => Iterable<Buffer> | AsyncIterable<Buffer>, (bytes: number, size: number) => boolean]> =
  [
    // 15 s of 16-bit samples is 480,000 bytes; the header read is 64 KiB at most
    ['long.wav', () => recordingWav(FRAMES, recording), (bytes) => bytes <= 480_000 + 4 + 64 * 1024],
    [
      'long.flac',
      () => flacChunks(recordingBlocks(FRAMES, recording), { sampleRate: RATE, totalFrames: FRAMES }),
      (bytes, size) => bytes < size / 20,
    ],
  ]

for (const [name, chunks, fewBytes] of kinds) {
  test(`${name}: 15 s from the middle read ${'only that stretch'}, as JSON and as a picture, equal to a whole decode of the range`, async () => {
    const { id, size } = await stored(`mediaFiles/range/${name}`, chunks())
    const url = `/api/v0/mediaFile/${id}/spectra/?startTime=300.25&endTime=315.25`
    counting!.reset()
    const res = await t.call('GET', `${url}&format=json`, { as: alice })
    assert.is(res.statusCode, 200, res.body)
    assert.ok(fewBytes(counting!.bytesRead, size), `${counting!.bytesRead} of ${size} bytes read`)

    const whole = await decodeAudio(t.app.storage.read(`mediaFiles/range/${name}`))
    const settings = await spectraSettingsOf(t.db, alice.id)
    const s = await spectrogram(
      whole.samples.subarray(Math.floor(300.25 * RATE), Math.ceil(315.25 * RATE)),
      RATE,
      settings,
    )
    assert.equal(
      [res.data.startTime, res.data.endTime, res.data.numFrames, res.data.numBands],
      [300.25, 315.25, s.frames, s.bands],
    )
    for (let f = 0; f < s.frames; f++) {
      const wanted = Array.from(s.data.subarray(f * s.bands, (f + 1) * s.bands), (v) => Math.round(v * 100) / 100)
      assert.equal(res.data.spectra[f], wanted, `frame ${f}`)
    }

    counting!.reset()
    const png = await t.call('GET', `${url}&format=png`, { as: alice })
    assert.is(png.statusCode, 200)
    assert.ok(fewBytes(counting!.bytesRead, size), `${counting!.bytesRead} of ${size} bytes read for the picture`)
    const picture = await spectrogramPicture(s, {
      start: 300.25,
      realStartTime: null,
      title: `mediaFiles/range/${name}`,
      tags: [],
    })
    assert.ok(png.rawPayload.equals(picture), "the picture of the whole decode's range")
  })
}

test('a stretch past the end of the file is refused, naming the file (by its alias) and its length', async () => {
  const { id } = await stored('mediaFiles/range/short.wav', recordingWav(10 * RATE, recording))
  const res = await t.call('GET', `/api/v0/mediaFile/${id}/spectra/?startTime=8&endTime=20`, { as: alice })
  assert.is(res.statusCode, 400, res.body)
  assert.equal(res.data, {
    endTime: [`endTime 20.0 is past the end of media file ${id} (mediaFiles/range/short.wav), at 10.0 s.`],
  })
})

test.run()
