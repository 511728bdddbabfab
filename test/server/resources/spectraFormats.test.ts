import { readFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteApp, type TestUser } from '../../helpers/app.js'
import { makeLibrary, makeMediaFile } from '../../helpers/records.js'
import { importMedia } from '../../helpers/upload.js'

// Spectra of FLAC and MP3 recordings (test/fixtures/make-audio.sh: 1 s at 8 kHz, a 1 kHz tone then
// 2 kHz from 0.5 s), decoded by the same code the jobs use: the tone is in its band in each half.

const FIXTURES = resolve(fileURLToPath(import.meta.url), '../../../../../test/fixtures')
const t = suiteApp(test)
let alice: TestUser
let library: number

test.before(async () => {
  alice = await t.user('alice')
  library = await makeLibrary(t.db, alice)
})

const loudestHz = (s: any, frame: number) => {
  const row: number[] = s.spectra[frame]
  const band = row.indexOf(Math.max(...row))
  return (s.bandEdges[band] + s.bandEdges[band + 1]) / 2
}

for (const name of ['tone.flac', 'tone.mp3']) {
  test(`${name}: imported with its facts, and its spectra show 1 kHz then 2 kHz`, async () => {
    const imported = await importMedia(t, alice, library, readFileSync(resolve(FIXTURES, name)), { filename: name })
    assert.is(imported.statusCode, 201, imported.body)
    const meta = Object.fromEntries(imported.data.mediafilemetadata_set.map((m: any) => [m.name, m.value]))
    assert.is(meta.sampleRate, '8000')
    assert.not.ok('warning' in meta)
    const res = await t.call('GET', `/api/v0/mediaFile/${imported.data.id}/spectra/`, { as: alice })
    assert.is(res.statusCode, 200, res.body)
    const s = res.data
    assert.equal([s.numBands, s.bandEdges[0], s.bandEdges[s.numBands]], [256, 0, 4000])
    // an MP3 decoder adds its frame padding: about a second either way
    assert.ok(s.numFrames >= 95 && s.numFrames <= 125, `${s.numFrames} frames`)
    assert.ok(Math.abs(loudestHz(s, 25) - 1000) < 40, `${loudestHz(s, 25)} Hz at 0.25 s`)
    assert.ok(Math.abs(loudestHz(s, 80) - 2000) < 40, `${loudestHz(s, 80)} Hz at 0.8 s`)
  })
}

test('stored bytes that are neither WAV, FLAC nor MP3 cannot be analysed: 400 naming the formats', async () => {
  const name = `mediaFiles/formats/${process.pid}.ogg`
  const pending = await t.app.storage.receive(Readable.from([Buffer.concat([Buffer.from('OggS'), Buffer.alloc(60)])]))
  await pending.commit(name)
  const id = await makeMediaFile(t.db, alice, library, { file: name })
  const res = await t.call('GET', `/api/v0/mediaFile/${id}/spectra/`, { as: alice })
  assert.equal([res.statusCode, res.data], [400, { detail: 'only WAV, FLAC and MP3 audio can be analysed.' }])
})

test.run()
